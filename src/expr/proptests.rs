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
        let text = items.join(", ");
        let levels = parse_sweep(&text).and_then(|s| s.eval(&NAMES));
        let levels = levels.map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert!(levels.windows(2).all(|w| w[0] < w[1]), "{}: {:?}", text, levels);
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

/// One sweep item of any kind, small enough to expand quickly.
fn sweep_item() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..1000).prop_map(|n| n.to_string()),
        (1u64..5).prop_map(|n| format!("{n} * targets")),
        (0u64..100, 1u64..100, 1u64..10)
            .prop_map(|(a, len, s)| format!("{a}..={} step {s}", a + len)),
        (1u64..100, 1u64..100).prop_map(|(a, len)| format!("{a}..{}", a + len)),
        (1u64..64, 2u64..5).prop_map(|(a, f)| format!("{a}..=4096 x{f}")),
        (0u64..200).prop_map(|m| format!("orion({m})")),
    ]
}
