//! Property tests over the whole value language: canonical text round-trips, sweeps expand to
//! sorted distinct levels, and no input string, however strange, makes a parser panic.

use super::*;
use proptest::prelude::*;
use std::time::Duration;

const NAMES: Names = Names {
    targets: 3,
    cores: 8,
};

proptest! {
    #[test]
    fn every_size_prints_and_parses_back(bytes in any::<u64>()) {
        let size = Size(bytes);
        prop_assert_eq!(parse_size(&size.to_string()), Ok(size));
    }

    #[test]
    fn aligned_sizes_print_in_iec_units(n in 1u64..1_000_000, shift in 0u32..40) {
        let size = Size(n << shift);
        let text = size.to_string();
        prop_assert_eq!(parse_size(&text), Ok(size));
        prop_assert!(shift < 10 || !text.ends_with("B") || text.ends_with("iB"), "{}", text);
    }

    #[test]
    fn every_duration_prints_and_parses_back(secs in any::<u64>(), nanos in 0u32..1_000_000_000) {
        let d = Duration::new(secs, nanos);
        prop_assert_eq!(parse_duration(&format_duration(d)), Ok(d));
    }

    #[test]
    fn short_durations_print_and_parse_back(nanos in 0u64..200_000_000_000) {
        let d = Duration::from_nanos(nanos);
        prop_assert_eq!(parse_duration(&format_duration(d)), Ok(d));
    }

    #[test]
    fn sweeps_expand_sorted_and_distinct(
        items in prop::collection::vec(sweep_item(), 1..6),
    ) {
        let text = items.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>().join(", ");
        let levels = parse_sweep(&text).and_then(|s| s.eval(&NAMES));
        let levels = levels.map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert!(levels.windows(2).all(|w| w[0] < w[1]), "{}: {:?}", text, levels);
        let mut expected: Vec<u64> = items.iter().flat_map(|(_, l)| l.iter().copied()).collect();
        expected.sort_unstable();
        expected.dedup();
        prop_assert_eq!(levels, expected, "{}", text);
    }

    #[test]
    fn parenthesized_counts_divide_rounding_down(expr in count_expr(3)) {
        let (text, model) = expr;
        let result = parse_count(&text).and_then(|c| c.eval(&NAMES));
        match model {
            Some(v) if v >= 0 => prop_assert_eq!(result, Ok(v as u64), "{}", text),
            _ => prop_assert!(result.is_err(), "{}: {:?}", text, result),
        }
    }

    #[test]
    fn counts_without_parentheses_bind_like_arithmetic(
        first in 0u64..30,
        rest in prop::collection::vec((0usize..4, 0u64..30), 0..6),
    ) {
        let mut text = first.to_string();
        let (mut sum, mut sign, mut term) = (Some(0i128), 1i128, Some(i128::from(first)));
        for (op, v) in &rest {
            let v = i128::from(*v);
            text.push_str([" + ", " - ", " * ", " / "][*op]);
            text.push_str(&v.to_string());
            match op {
                2 => term = term.map(|t| t * v),
                3 => term = term.and_then(|t| t.checked_div(v)),
                _ => {
                    sum = sum.zip(term).map(|(s, t)| s + sign * t);
                    sign = if *op == 0 { 1 } else { -1 };
                    term = Some(v);
                }
            }
        }
        let model = sum.zip(term).map(|(s, t)| s + sign * t);
        let result = parse_count(&text).and_then(|c| c.eval(&NAMES));
        match model {
            Some(v) if v >= 0 => prop_assert_eq!(result, Ok(v as u64), "{}", text),
            _ => prop_assert!(result.is_err(), "{}: {:?}", text, result),
        }
    }

    #[test]
    fn sizes_scale_by_their_unit(n in 0u64..1_000_000, unit in 0usize..9) {
        let (name, multiplier) = [
            ("", 1u64), ("B", 1), ("k", 1 << 10), ("KiB", 1 << 10), ("M", 1 << 20),
            ("MiB", 1 << 20), ("g", 1 << 30), ("GiB", 1 << 30), ("TiB", 1 << 40),
        ][unit];
        prop_assert_eq!(parse_size(&format!("{n}{name}")), Ok(Size(n * multiplier)));
        prop_assert_eq!(parse_size(&format!("{n} {name}")), Ok(Size(n * multiplier)));
    }

    #[test]
    fn orion_levels_rise_to_the_maximum(m in 1u64..100_000) {
        let levels = orion_levels(m);
        prop_assert!(levels.windows(2).all(|w| w[0] < w[1]));
        prop_assert_eq!(levels.first(), Some(&1));
        prop_assert_eq!(levels.last(), Some(&m));
        prop_assert_eq!(levels.len() as u64, orion_level_count(m));
    }

    #[test]
    fn arbitrary_strings_never_panic(s in any::<String>()) {
        check_no_panic(&s);
    }

    #[test]
    fn value_like_strings_never_panic(s in "[0-9a-zA-Zµ .,=<>/%*+()_-]{0,40}") {
        check_no_panic(&s);
    }
}

/// Every parser and evaluator on `s`; errors must have spans inside the string, on char boundaries.
fn check_no_panic(s: &str) {
    let mut errors = Vec::new();
    errors.push(parse_size(s).err());
    errors.push(parse_duration(s).err());
    errors.push(parse_count(s).and_then(|c| c.eval(&NAMES)).err());
    errors.push(parse_sweep(s).and_then(|w| w.eval(&NAMES)).err());
    errors.push(parse_size_list(s).err());
    errors.push(parse_mix(s).err());
    errors.push(parse_mix_list(s).err());
    errors.push(parse_comparison(s).err());
    for e in errors.into_iter().flatten() {
        assert!(
            e.span.start <= e.span.end && e.span.end <= s.len(),
            "{s:?}: {e:?}"
        );
        assert!(
            s.is_char_boundary(e.span.start) && s.is_char_boundary(e.span.end),
            "{s:?}: {e:?}"
        );
        assert!(!e.message.is_empty());
    }
}

/// One sweep item of any kind, small enough to expand quickly, with its levels computed
/// independently of the parser.
fn sweep_item() -> impl Strategy<Value = (String, Vec<u64>)> {
    prop_oneof![
        (0u64..1000).prop_map(|n| (n.to_string(), vec![n])),
        (1u64..5).prop_map(|n| (format!("{n} * targets"), vec![n * NAMES.targets])),
        (0u64..100, 0u64..100, 1u64..10).prop_map(|(a, len, s)| {
            let b = a + len;
            (
                format!("{a}..={b} step {s}"),
                (a..=b).step_by(s as usize).collect(),
            )
        }),
        (1u64..100, 1u64..100)
            .prop_map(|(a, len)| (format!("{a}..{}", a + len), (a..a + len).collect())),
        (1u64..64, 2u64..5).prop_map(|(a, f)| {
            let levels = std::iter::successors(Some(a), |v| Some(v * f)).take_while(|v| *v <= 4096);
            (format!("{a}..=4096 x{f}"), levels.collect())
        }),
        (0u64..200).prop_map(|m| (format!("orion({m})"), orion_model(m))),
    ]
}

/// ORION's rule as the reference describes it: 1..=s, then multiples of s, ending at m.
fn orion_model(m: u64) -> Vec<u64> {
    let s = (m / 20).max(1);
    let mut levels: Vec<u64> = (1..=m).filter(|v| *v <= s || v % s == 0).collect();
    if m > 0 && levels.last() != Some(&m) {
        levels.push(m);
    }
    levels
}

/// A random count expression and its value by a reference evaluator (`None`: division by zero).
fn count_expr(depth: u32) -> BoxedStrategy<(String, Option<i128>)> {
    let leaf = prop_oneof![
        (0u64..50).prop_map(|n| (n.to_string(), Some(i128::from(n)))),
        Just(("targets".to_string(), Some(i128::from(NAMES.targets)))),
        Just(("cores".to_string(), Some(i128::from(NAMES.cores)))),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    let sub = count_expr(depth - 1);
    prop_oneof![
        leaf,
        (sub.clone(), 0usize..4, sub).prop_map(|((a, x), op, (b, y))| {
            let symbol = ["+", "-", "*", "/"][op];
            let value = match (x, y) {
                (Some(x), Some(y)) => match op {
                    0 => Some(x + y),
                    1 => Some(x - y),
                    2 => Some(x * y),
                    _ if y == 0 => None,
                    _ => Some((x as f64 / y as f64).floor() as i128),
                },
                _ => None,
            };
            (format!("({a}) {symbol} ({b})"), value)
        }),
    ]
    .boxed()
}
