//! Lists of sizes for sweeps over I/O sizes: `4KiB, 8KiB`, `4KiB..=1MiB x2`,
//! `4KiB..=64KiB step 4KiB`, kept in the order written (the order the sweep runs them).

use super::grammar::{Expected, Node, Rule, parse_entry};
use super::size::{size_from, trimmed_span};
use super::sweep::{RangeStep, expand_range, geometric_factor};
use super::{ExprError, Size};

pub(crate) const EXPECT_SIZES: Expected = Expected {
    noun: "a list of sizes",
    examples: "4KiB, 8KiB or 4KiB..=1MiB x2",
};

/// A comma-separated list of sizes, with ranges: `4KiB, 8KiB`, `4KiB..=1MiB x2`. In the order written.
pub fn parse_size_list(s: &str) -> Result<Vec<Size>, ExprError> {
    let items = parse_entry(Rule::size_list_value, s, EXPECT_SIZES)?;
    let mut sizes = Vec::new();
    for node in items {
        match node.as_rule() {
            Rule::size => sizes.push(size_from(node)?),
            Rule::size_range => sizes.extend(size_range(node)?),
            _ => {}
        }
    }
    Ok(sizes)
}

pub(crate) fn size_range(node: Node<'_>) -> Result<Vec<Size>, ExprError> {
    let span = trimmed_span(&node);
    let mut parts = node.into_inner();
    let missing = || ExprError::new(span.clone(), "expected a range such as 4KiB..=1MiB x2");
    let low = size_from(parts.next().ok_or_else(missing)?)?;
    let inclusive = parts.next().ok_or_else(missing)?.as_rule() == Rule::inclusive;
    let high = size_from(parts.next().ok_or_else(missing)?)?;
    let step = match parts.next() {
        None => {
            return Err(
                ExprError::new(span, "a range of sizes needs a step").with_hint(format!(
                    "add x2 for powers of two, or a step such as `step {low}`"
                )),
            );
        }
        Some(s) if s.as_rule() == Rule::geometric => RangeStep::Times(geometric_factor(s)?),
        Some(s) => {
            let step_span = trimmed_span(&s);
            let size = s.into_inner().next().ok_or_else(missing)?;
            match size_from(size)? {
                Size(0) => {
                    return Err(ExprError::new(step_span, "a step of 0B never advances")
                        .with_hint("use a step such as 4KiB"));
                }
                Size(n) => RangeStep::By(n),
            }
        }
    };
    let levels = expand_range(low.0, high.0, inclusive, step, span, |v| {
        Size(v).to_string()
    })?;
    Ok(levels.into_iter().map(Size).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(s: &str) -> Vec<String> {
        match parse_size_list(s) {
            Ok(v) => v.iter().map(Size::to_string).collect(),
            Err(e) => panic!("{s:?}: {e} {:?}", e.hint),
        }
    }

    #[test]
    fn lists_keep_the_order_written() {
        assert_eq!(sizes("8KiB"), ["8KiB"]);
        assert_eq!(sizes("16KiB, 4KiB, 8k"), ["16KiB", "4KiB", "8KiB"]);
        assert_eq!(sizes("1MiB, 512, 1MiB"), ["1MiB", "512B", "1MiB"]);
    }

    #[test]
    fn geometric_and_stepped_ranges() {
        assert_eq!(
            sizes("4KiB..=64KiB x2"),
            ["4KiB", "8KiB", "16KiB", "32KiB", "64KiB"]
        );
        assert_eq!(sizes("4KiB..64KiB x4"), ["4KiB", "16KiB"]);
        assert_eq!(
            sizes("4KiB..=16KiB step 4KiB"),
            ["4KiB", "8KiB", "12KiB", "16KiB"]
        );
        assert_eq!(
            sizes("512..=2048 step 512"),
            ["512B", "1KiB", "1536B", "2KiB"]
        );
        assert_eq!(sizes("512 ..= 2048 x2"), ["512B", "1KiB", "2KiB"]);
        assert_eq!(
            sizes("1MiB, 4KiB..=16KiB x2"),
            ["1MiB", "4KiB", "8KiB", "16KiB"]
        );
        assert_eq!(sizes("4KiB..=1MiB x2").len(), 9);
    }

    #[test]
    fn range_errors() {
        let err = parse_size_list("64KiB..=4KiB x2").unwrap_err();
        assert_eq!(err.message, "the range 64KiB..=4KiB is empty");
        assert_eq!(
            err.hint.as_deref(),
            Some("write the smaller bound first, e.g. 4KiB..=64KiB")
        );
        let err = parse_size_list("4KiB..=8KiB").unwrap_err();
        assert_eq!(err.message, "a range of sizes needs a step");
        assert_eq!(err.span, 0..11);
        let err = parse_size_list("4KiB..=8KiB step 0").unwrap_err();
        assert_eq!(err.span, 12..18);
        let err = parse_size_list("4KiB..=8KiB x1").unwrap_err();
        assert!(err.message.contains("x1"));
        let err = parse_size_list("512..=1TiB step 1").unwrap_err();
        assert!(err.message.contains("more than"));
    }

    #[test]
    fn unit_errors_point_inside_the_list() {
        let err = parse_size_list("4KiB, 8kB").unwrap_err();
        assert_eq!(err.span, 7..9);
        assert!(err.message.contains("ambiguous"));
        assert_eq!(sizes("4KiB, "), ["4KiB"]);
        assert!(parse_size_list("4KiB,,").is_err());
        assert!(parse_size_list("").is_err());
        assert!(parse_size_list("4KiB 8KiB").is_err());
    }
}
