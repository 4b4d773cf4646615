//! Requirement comparisons for `[expect]`: `>= 40000`, `<= 500us`, `< 2ms`, `>= 1.5GiB/s`,
//! `<= 1MiB`, `== 0`. The unit decides the kind of quantity; `MB/s` is refused with a hint,
//! because rigel's (and ORION's) MB/s are MiB/s.

use super::duration::{format_duration, time_unit};
use super::grammar::{Expected, Node, Rule, parse_entry};
use super::number::Scaled;
use super::quantity::{QuantityParts, quantity_parts};
use super::rate::byte_rate_unit;
use super::size::{size_unit, trimmed_span};
use super::{CmpOp, Comparison, ExprError, Quantity, Size};
use std::fmt;
use std::ops::Range;
use std::time::Duration;

pub(crate) const EXPECT_COMPARISON: Expected = Expected {
    noun: "a requirement",
    examples: ">= 40000, <= 500us or >= 200MiB/s",
};

/// Parses a requirement such as `>= 40000`, `<= 500us` or `>= 1.5GiB/s`.
pub fn parse_comparison(s: &str) -> Result<Comparison, ExprError> {
    let mut inner = parse_entry(Rule::comparison_value, s, EXPECT_COMPARISON)?;
    let node = inner.next();
    let node =
        node.ok_or_else(|| ExprError::new(0..s.len(), "expected a requirement such as >= 40000"))?;
    let span = trimmed_span(&node);
    let mut parts = node.into_inner();
    let (Some(op), Some(quantity)) = (parts.next(), parts.next()) else {
        return Err(ExprError::new(
            span,
            "expected a requirement such as >= 40000",
        ));
    };
    let op = match op.as_rule() {
        Rule::ge => CmpOp::Ge,
        Rule::gt => CmpOp::Gt,
        Rule::le => CmpOp::Le,
        Rule::lt => CmpOp::Lt,
        _ => CmpOp::Eq,
    };
    Ok(Comparison {
        op,
        value: quantity_from(quantity)?,
    })
}

fn quantity_from(node: Node<'_>) -> Result<Quantity, ExprError> {
    let QuantityParts {
        whole,
        number: text,
        value,
        unit,
    } = quantity_parts(node)?;
    let Some((unit, unit_span)) = unit else {
        return Ok(Quantity::Number(value.to_f64()));
    };
    if unit.eq_ignore_ascii_case("iops") {
        return Ok(Quantity::Number(value.to_f64()));
    }
    if let Some(multiplier) = byte_rate_unit(unit, unit_span.clone(), text)? {
        // A rate as an `f64`: it is compared with measured rates, not scheduled.
        return Ok(Quantity::BytesPerSec(value.to_f64() * multiplier as f64));
    }
    if unit.len() == 1 && "kKmMgGtTpP".contains(unit) {
        return Err(
            ExprError::new(unit_span, format!("`{unit}` is ambiguous in a requirement"))
                .with_hint(single_letter_hint(text, unit)),
        );
    }
    if let Ok((_, nanos)) = time_unit(unit, unit_span.clone()) {
        return match value.times(nanos) {
            Scaled::Exact(n) => u64::try_from(n)
                .map(Quantity::Nanos)
                .map_err(|_| too_large(whole)),
            Scaled::Overflow => Err(too_large(whole)),
            Scaled::Fraction => Err(ExprError::new(whole, "not a whole number of nanoseconds")),
        };
    }
    let multiplier = size_unit(unit, unit_span, text).map_err(|e| {
        if e.message.contains("ambiguous") {
            e
        } else {
            unknown(e, unit)
        }
    })?;
    match value.times(u128::from(multiplier)) {
        Scaled::Exact(n) => u64::try_from(n)
            .map(Quantity::Bytes)
            .map_err(|_| too_large(whole)),
        Scaled::Overflow => Err(too_large(whole)),
        Scaled::Fraction => Err(ExprError::new(whole, "not a whole number of bytes")),
    }
}

/// `2m` could be minutes or MiB, `40k` thousands of IOPS or KiB: a requirement must say.
fn single_letter_hint(number: &str, unit: &str) -> String {
    let iec = match unit.to_ascii_uppercase().as_str() {
        "K" => "KiB",
        "M" => "MiB",
        "G" => "GiB",
        "T" => "TiB",
        _ => "PiB",
    };
    match unit {
        "m" => format!("write {number}MiB for a size, or a time in s or ms (120s)"),
        "k" | "K" => format!("write {number}{iec} for a size, or {number}000 for a number of IOPS"),
        _ => format!("write {number}{iec} for a size"),
    }
}

fn unknown(e: ExprError, unit: &str) -> ExprError {
    ExprError::new(e.span, format!("unknown unit `{unit}`"))
        .with_hint("use no unit for IOPS, a time (500us, 2ms), a size (1MiB) or a rate (200MiB/s)")
}

fn too_large(span: Range<usize>) -> ExprError {
    ExprError::new(span, "value too large")
}

impl fmt::Display for CmpOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CmpOp::Ge => ">=",
            CmpOp::Gt => ">",
            CmpOp::Le => "<=",
            CmpOp::Lt => "<",
            CmpOp::Eq => "==",
        })
    }
}

impl fmt::Display for Quantity {
    /// Text that parses back to the same quantity (rates up to `f64` printing precision).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Quantity::Number(n) => write!(f, "{n}"),
            Quantity::Bytes(b) => write!(f, "{}", Size(b)),
            Quantity::Nanos(n) => f.write_str(&format_duration(Duration::from_nanos(n))),
            Quantity::BytesPerSec(r) => write!(f, "{}MiB/s", r / f64::from(1u32 << 20)),
        }
    }
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.op, self.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(s: &str) -> (CmpOp, Quantity) {
        match parse_comparison(s) {
            Ok(c) => (c.op, c.value),
            Err(e) => panic!("{s:?}: {e} {:?}", e.hint),
        }
    }

    #[test]
    fn every_accepted_form() {
        assert_eq!(cmp(">= 40000"), (CmpOp::Ge, Quantity::Number(40000.0)));
        assert_eq!(cmp("> 1_000"), (CmpOp::Gt, Quantity::Number(1000.0)));
        assert_eq!(cmp(">=40000 IOPS"), (CmpOp::Ge, Quantity::Number(40000.0)));
        assert_eq!(cmp("<= 500us"), (CmpOp::Le, Quantity::Nanos(500_000)));
        assert_eq!(cmp("<= 500µs"), (CmpOp::Le, Quantity::Nanos(500_000)));
        assert_eq!(cmp("< 2ms"), (CmpOp::Lt, Quantity::Nanos(2_000_000)));
        assert_eq!(cmp("< 1.5s"), (CmpOp::Lt, Quantity::Nanos(1_500_000_000)));
        assert_eq!(
            cmp(">= 1.5GiB/s"),
            (CmpOp::Ge, Quantity::BytesPerSec(1.5 * (1u64 << 30) as f64))
        );
        assert_eq!(
            cmp(">= 200MiB/s"),
            (
                CmpOp::Ge,
                Quantity::BytesPerSec(200.0 * (1u64 << 20) as f64)
            )
        );
        assert_eq!(
            cmp(">= 200 M/s"),
            (
                CmpOp::Ge,
                Quantity::BytesPerSec(200.0 * (1u64 << 20) as f64)
            )
        );
        assert_eq!(cmp("== 0"), (CmpOp::Eq, Quantity::Number(0.0)));
        assert_eq!(cmp("<= 1MiB"), (CmpOp::Le, Quantity::Bytes(1 << 20)));
        assert_eq!(cmp("<= 0.5"), (CmpOp::Le, Quantity::Number(0.5)));
    }

    #[test]
    fn decimal_rates_are_refused_with_a_hint() {
        let err = parse_comparison(">= 200MB/s").unwrap_err();
        assert_eq!(err.span, 6..10);
        assert_eq!(err.message, "`MB/s` is ambiguous");
        assert!(err.hint.unwrap().contains("write 200MiB/s"));
        let err = parse_comparison("<= 1MB").unwrap_err();
        assert!(err.message.contains("ambiguous"));
    }

    #[test]
    fn unknown_units_are_errors() {
        let err = parse_comparison(">= 5 parsecs").unwrap_err();
        assert_eq!(err.message, "unknown unit `parsecs`");
        assert_eq!(err.span, 5..12);
        let err = parse_comparison(">= 5MiB/h").unwrap_err();
        assert!(err.hint.unwrap().contains("5MiB/s"));
        let err = parse_comparison("<= 2m").unwrap_err();
        assert_eq!(err.message, "`m` is ambiguous in a requirement");
        assert_eq!(err.span, 4..5);
        assert!(
            parse_comparison(">= 40k")
                .unwrap_err()
                .hint
                .unwrap()
                .contains("40000")
        );
        assert!(parse_comparison("<= 1.5ns").is_err());
        let err = parse_comparison("<= 99999999999999999999h").unwrap_err();
        assert_eq!((err.message.as_str(), err.span), ("value too large", 3..24));
        assert!(parse_comparison("<= 99999999999999999999TiB").is_err());
        assert!(parse_comparison("<= 0.5B").is_err());
    }

    #[test]
    fn malformed_requirements_say_what_was_expected() {
        let err = parse_comparison("40000").unwrap_err();
        assert!(
            err.message.starts_with("expected a requirement such as"),
            "{}",
            err.message
        );
        assert_eq!(err.span, 0..5);
        let err = parse_comparison("= 4").unwrap_err();
        assert_eq!(err.span, 0..1);
        let err = parse_comparison(">=").unwrap_err();
        assert!(err.message.contains("ends here"));
        assert!(parse_comparison("").is_err());
        assert!(parse_comparison("=> 4").is_err());
    }

    #[test]
    fn display_parses_back() {
        for text in [
            ">= 40000",
            "> 0.5",
            "<= 500us",
            "< 2ms",
            "<= 1MiB",
            "== 0",
            ">= 200MiB/s",
            ">= 1536MiB/s",
        ] {
            let c = parse_comparison(text).unwrap();
            assert_eq!(c.to_string(), text);
            assert_eq!(parse_comparison(&c.to_string()).unwrap(), c);
        }
    }
}
