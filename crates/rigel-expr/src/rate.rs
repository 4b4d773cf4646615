//! Open-loop rates: `20000 iops`, `20000` (IOPS), `400MiB/s`, `1.5GiB/s`, and lists of them for
//! `[sweep]`. Exact: a byte rate is a whole number of bytes per second; `MB/s` is refused as
//! ambiguous (rigel's MB/s are MiB/s), as in requirements.

use super::ExprError;
use super::grammar::{Expected, Node, Rule, parse_entry};
use super::number::{Decimal, Scaled};
use super::quantity::{QuantityParts, quantity_parts};
use super::size::size_unit;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Range;

const RATE: Expected = Expected {
    noun: "a rate",
    examples: "20000 iops or 400MiB/s",
};

/// Highest rate a class may ask for: far above what one host issues, low enough that the
/// schedule's nanosecond arithmetic stays exact.
pub const MAX_RATE_IOPS: u64 = 100_000_000;

/// How a rate class spaces its I/Os: evenly, or with exponential gaps (a Poisson process, as
/// independent clients arrive).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrival {
    #[default]
    Uniform,
    Poisson,
}

/// A class's requested rate: I/Os per second, or bytes per second (turned into I/Os per second
/// with the class's size at each point).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rate {
    Iops(u64),
    BytesPerSec(u64),
}

impl Rate {
    /// I/Os per second for I/Os of `size` bytes.
    pub fn iops(&self, size: u64) -> f64 {
        match *self {
            Rate::Iops(n) => n as f64,
            Rate::BytesPerSec(b) => b as f64 / size.max(1) as f64,
        }
    }
}

impl fmt::Display for Rate {
    /// Text that parses back to the same rate.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Rate::Iops(n) => write!(f, "{n} iops"),
            Rate::BytesPerSec(b) => write!(f, "{}/s", super::Size(b)),
        }
    }
}

/// Parses one rate: `20000 iops`, `20000`, `400MiB/s`.
pub fn parse_rate(s: &str) -> Result<Rate, ExprError> {
    let mut inner = parse_entry(Rule::rate_value, s, RATE)?;
    let node = inner
        .next()
        .ok_or_else(|| ExprError::new(0..s.len(), "expected a rate such as 20000 iops"))?;
    rate_from(node)
}

/// Parses a list of rates: `5000 iops, 10000 iops`, `100MiB/s, 200MiB/s`.
pub fn parse_rate_list(s: &str) -> Result<Vec<Rate>, ExprError> {
    parse_entry(Rule::rate_list, s, RATE)?
        .filter(|n| n.as_rule() == Rule::quantity)
        .map(rate_from)
        .collect()
}

fn rate_from(node: Node<'_>) -> Result<Rate, ExprError> {
    let QuantityParts {
        whole,
        number: text,
        value,
        unit,
    } = quantity_parts(node)?;
    let too_large = || {
        ExprError::new(whole.clone(), "rate too high").with_hint(format!(
            "at most {MAX_RATE_IOPS} I/Os per second (or the bytes of as many I/Os)"
        ))
    };
    let Some((unit, unit_span)) = unit else {
        return whole_iops(value, whole.clone()).and_then(|n| check(n, too_large));
    };
    if unit.eq_ignore_ascii_case("iops") {
        return whole_iops(value, whole.clone()).and_then(|n| check(n, too_large));
    }
    let Some(multiplier) = byte_rate_unit(unit, unit_span.clone(), text)? else {
        return Err(
            ExprError::new(unit_span, format!("`{unit}` is not a rate unit"))
                .with_hint(format!("write {text} iops or {text}MiB/s")),
        );
    };
    match value.times(u128::from(multiplier)) {
        Scaled::Exact(n) if n > 0 => u64::try_from(n)
            .map(Rate::BytesPerSec)
            .map_err(|_| too_large()),
        Scaled::Exact(_) => Err(zero(whole)),
        Scaled::Overflow => Err(too_large()),
        Scaled::Fraction => Err(ExprError::new(
            whole,
            "not a whole number of bytes per second",
        )),
    }
}

/// The bytes per second of one byte-rate unit (`MiB/s` is 2^20), or None when `unit` is not a
/// size per time. `number` is the figure written before the unit, for the hints. `MB/s` is refused
/// as ambiguous: rigel's MB/s, as ORION's, are MiB/s. Rates and requirements both read units here.
pub(crate) fn byte_rate_unit(
    unit: &str,
    span: Range<usize>,
    number: &str,
) -> Result<Option<u64>, ExprError> {
    let Some((bytes, per)) = unit.split_once('/') else {
        return Ok(None);
    };
    if per != "s" {
        return Err(ExprError::new(span, format!("unknown rate unit `{unit}`"))
            .with_hint(format!("rates are per second: write {number}{bytes}/s")));
    }
    let bytes_span = span.start..span.start + bytes.len();
    size_unit(bytes, bytes_span, number).map(Some).map_err(|e| {
        if e.message.contains("ambiguous") {
            ExprError::new(span, format!("`{bytes}/s` is ambiguous")).with_hint(format!(
                "rigel's MB/s are MiB/s (2^20 bytes, as ORION's): write {number}MiB/s"
            ))
        } else {
            ExprError::new(e.span, format!("unknown unit `{unit}`"))
                .with_hint("a rate is a size per second: KiB/s, MiB/s or GiB/s")
        }
    })
}

fn whole_iops(value: Decimal, span: std::ops::Range<usize>) -> Result<u64, ExprError> {
    match value.times(1) {
        Scaled::Exact(0) => Err(zero(span)),
        Scaled::Exact(n) => u64::try_from(n).map_err(|_| ExprError::new(span, "rate too high")),
        Scaled::Overflow => Err(ExprError::new(span, "rate too high")),
        Scaled::Fraction => Err(
            ExprError::new(span, "not a whole number of I/Os per second")
                .with_hint("write a whole number: 1500 iops"),
        ),
    }
}

fn check(n: u64, too_large: impl Fn() -> ExprError) -> Result<Rate, ExprError> {
    if n > MAX_RATE_IOPS {
        return Err(too_large());
    }
    Ok(Rate::Iops(n))
}

fn zero(span: std::ops::Range<usize>) -> ExprError {
    ExprError::new(span, "a rate of zero").with_hint(
        "a class with a rate issues at least one I/O per second; set its matrix load to 0 to idle it",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_exact() {
        assert_eq!(parse_rate("20000 iops").unwrap(), Rate::Iops(20000));
        assert_eq!(parse_rate("20000").unwrap(), Rate::Iops(20000));
        assert_eq!(parse_rate("20_000 IOPS").unwrap(), Rate::Iops(20000));
        assert_eq!(
            parse_rate("400MiB/s").unwrap(),
            Rate::BytesPerSec(400 << 20)
        );
        assert_eq!(parse_rate("1.5GiB/s").unwrap(), Rate::BytesPerSec(3 << 29));
        assert_eq!(parse_rate("400MiB/s").unwrap().iops(1 << 20), 400.0);
        for r in ["20000 iops", "400MiB/s", "1536KiB/s"] {
            let parsed = parse_rate(r).unwrap();
            assert_eq!(parse_rate(&parsed.to_string()).unwrap(), parsed);
        }
    }

    #[test]
    fn ambiguous_and_wrong_rates_are_refused_with_a_hint() {
        let e = parse_rate("400MB/s").unwrap_err();
        assert!(e.message.contains("ambiguous"), "{e:?}");
        assert!(e.hint.unwrap().contains("400MiB/s"));
        assert!(parse_rate("400MiB/m").is_err());
        assert!(parse_rate("0 iops").unwrap_err().message.contains("zero"));
        assert!(parse_rate("1.5 iops").is_err());
        assert!(parse_rate("200000000 iops").is_err());
        assert!(parse_rate("20ms").is_err());
    }

    #[test]
    fn lists_keep_their_order() {
        assert_eq!(
            parse_rate_list("5000 iops, 1000, 100MiB/s").unwrap(),
            vec![
                Rate::Iops(5000),
                Rate::Iops(1000),
                Rate::BytesPerSec(100 << 20)
            ]
        );
    }
}
