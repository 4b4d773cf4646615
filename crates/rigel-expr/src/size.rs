//! Sizes: `512`, `4096B`, `8KiB`, `8k` (= 8192, as ORION and fio), `1.5GiB`. Always exact bytes;
//! decimal SI units (`8kB`, `1MB`) are refused with a hint, never guessed.

use super::grammar::{Expected, Node, Rule, parse_entry};
use super::number::{Decimal, Scaled};
use super::{ExprError, Size};
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

pub(crate) const EXPECT_SIZE: Expected = Expected {
    noun: "a size",
    examples: "8KiB or 1MiB",
};

const KIB: u64 = 1 << 10;

/// The IEC units, largest first, as [`Size`]'s `Display` writes them.
const IEC: [(&str, u64); 6] = [
    ("EiB", KIB.pow(6)),
    ("PiB", KIB.pow(5)),
    ("TiB", KIB.pow(4)),
    ("GiB", KIB.pow(3)),
    ("MiB", KIB.pow(2)),
    ("KiB", KIB),
];

/// Parses a size such as `8KiB`, `8k`, `1.5GiB` or `4096`.
pub fn parse_size(s: &str) -> Result<Size, ExprError> {
    let mut inner = parse_entry(Rule::size_value, s, EXPECT_SIZE)?;
    match inner.next() {
        Some(node) => size_from(node),
        None => Err(ExprError::new(
            0..s.len(),
            "expected a size such as 8KiB or 1MiB",
        )),
    }
}

/// Evaluates a `size` node (a number and an optional unit).
pub(crate) fn size_from(node: Node<'_>) -> Result<Size, ExprError> {
    let whole = trimmed_span(&node);
    let mut parts = node.into_inner();
    let Some(number) = parts.next() else {
        return Err(ExprError::new(
            whole,
            "expected a size such as 8KiB or 1MiB",
        ));
    };
    let value = Decimal::parse(number.as_str(), span_of(&number))?;
    let (unit, unit_span) = match parts.next() {
        Some(u) => (u.as_str(), span_of(&u)),
        None => ("", whole.end..whole.end),
    };
    let multiplier = size_unit(unit, unit_span, number.as_str())?;
    match value.times(u128::from(multiplier)) {
        Scaled::Exact(bytes) => u64::try_from(bytes).map(Size).map_err(|_| too_large(whole)),
        Scaled::Overflow => Err(too_large(whole)),
        Scaled::Fraction => Err(ExprError::new(
            whole,
            format!("`{}{unit}` is not a whole number of bytes", number.as_str()),
        )
        .with_hint("use a smaller unit, e.g. 1536KiB instead of 1.5MiB")),
    }
}

/// The number of bytes in one `unit`; `number` is only used to word hints (`8kB` → `8KiB`).
pub(crate) fn size_unit(unit: &str, span: Range<usize>, number: &str) -> Result<u64, ExprError> {
    if unit.is_empty() || unit == "B" {
        return Ok(1);
    }
    let mut letters = unit.chars();
    let prefix = letters.next().map(|c| c.to_ascii_uppercase());
    let rest = letters.as_str();
    let power = match prefix {
        Some('K') => 1,
        Some('M') => 2,
        Some('G') => 3,
        Some('T') => 4,
        Some('P') => 5,
        Some('E') if !rest.is_empty() => 6,
        _ => return Err(unknown_unit(unit, span)),
    };
    // `k`/`K` alone and the IEC forms in any case (`KiB`, `kib`) are binary; `kB`/`KB` are not.
    if rest.is_empty() || rest.eq_ignore_ascii_case("iB") || rest.eq_ignore_ascii_case("i") {
        return Ok(KIB.pow(power));
    }
    if rest.eq_ignore_ascii_case("B") {
        return Err(ambiguous(unit, span, number, power));
    }
    Err(unknown_unit(unit, span))
}

fn ambiguous(unit: &str, span: Range<usize>, number: &str, power: u32) -> ExprError {
    let message = format!("`{unit}` is ambiguous (1000 or 1024?)");
    let iec = IEC[IEC.len() - power as usize].0;
    let value = Decimal::parse(number, span.clone()).ok();
    let binary = value.map(|v| v.times(u128::from(KIB.pow(power))));
    let decimal = value.map(|v| v.times(1000u128.pow(power)));
    let hint = match (binary, decimal) {
        (Some(Scaled::Exact(b)), Some(Scaled::Exact(d))) => {
            format!("write {number}{iec} ({b} bytes) or {d}B")
        }
        _ => format!("write {iec} (powers of 1024) or a plain number of bytes such as 4096B"),
    };
    ExprError::new(span, message).with_hint(hint)
}

fn unknown_unit(unit: &str, span: Range<usize>) -> ExprError {
    let message = format!("unknown size unit `{unit}`");
    let hint = if unit == "b" {
        "b would be bits: write B for bytes, or KiB, MiB, GiB".to_string()
    } else {
        "use B, KiB, MiB, GiB or TiB (k, m, g and t also mean KiB, MiB, GiB and TiB)".to_string()
    };
    ExprError::new(span, message).with_hint(hint)
}

fn too_large(span: Range<usize>) -> ExprError {
    ExprError::new(span, "size too large").with_hint("sizes must be below 16EiB")
}

/// The byte range of a node in the parsed string.
pub(crate) fn span_of(node: &Node<'_>) -> Range<usize> {
    let s = node.as_span();
    s.start()..s.end()
}

/// The span of a node without the blanks a compound-atomic rule may have swallowed at its end.
pub(crate) fn trimmed_span(node: &Node<'_>) -> Range<usize> {
    let s = node.as_span();
    s.start()..s.start() + node.as_str().trim_end().len()
}

impl fmt::Display for Size {
    /// The largest IEC unit that divides the size exactly: `8KiB`, `1536KiB`, `4097B`, `0B`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bytes = self.0;
        for (name, unit) in IEC {
            if bytes != 0 && bytes % unit == 0 {
                return write!(f, "{}{name}", bytes / unit);
            }
        }
        write!(f, "{bytes}B")
    }
}

impl FromStr for Size {
    type Err = ExprError;
    fn from_str(s: &str) -> Result<Size, ExprError> {
        parse_size(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(s: &str) -> u64 {
        match parse_size(s) {
            Ok(size) => size.0,
            Err(e) => panic!("{s:?}: {e} {:?}", e.hint),
        }
    }

    #[test]
    fn every_accepted_form() {
        assert_eq!(bytes("512"), 512);
        assert_eq!(bytes("4096B"), 4096);
        assert_eq!(bytes("8KiB"), 8192);
        assert_eq!(bytes("8k"), 8192);
        assert_eq!(bytes("8K"), 8192);
        assert_eq!(bytes("8 KiB"), 8192);
        assert_eq!(bytes("  8KiB "), 8192);
        assert_eq!(bytes("1MiB"), 1 << 20);
        assert_eq!(bytes("1m"), 1 << 20);
        assert_eq!(bytes("1M"), 1 << 20);
        assert_eq!(bytes("1.5GiB"), 3 << 29);
        assert_eq!(bytes("4GiB"), 4 << 30);
        assert_eq!(bytes("2g"), 2 << 30);
        assert_eq!(bytes("2G"), 2 << 30);
        assert_eq!(bytes("1t"), 1 << 40);
        assert_eq!(bytes("1T"), 1 << 40);
        assert_eq!(bytes("1TiB"), 1 << 40);
        assert_eq!(bytes("1PiB"), 1 << 50);
        assert_eq!(bytes("15EiB"), 15 << 60);
        assert_eq!(bytes("1_048_576"), 1 << 20);
        assert_eq!(bytes("0.5KiB"), 512);
        assert_eq!(bytes("8kib"), 8192);
        assert_eq!(bytes("0"), 0);
    }

    #[test]
    fn decimal_units_are_ambiguous_with_a_worked_hint() {
        for (input, unit) in [
            ("8kB", "kB"),
            ("8KB", "KB"),
            ("1MB", "MB"),
            ("1GB", "GB"),
            ("2 TB", "TB"),
        ] {
            let err = parse_size(input).unwrap_err();
            assert_eq!(
                err.message,
                format!("`{unit}` is ambiguous (1000 or 1024?)")
            );
            let start = input.find(unit).unwrap();
            assert_eq!(err.span, start..start + unit.len(), "{input}");
        }
        let err = parse_size("8kB").unwrap_err();
        assert_eq!(
            err.hint.as_deref(),
            Some("write 8KiB (8192 bytes) or 8000B")
        );
    }

    #[test]
    fn unknown_units_and_bits() {
        let err = parse_size("8 furlongs").unwrap_err();
        assert_eq!(err.message, "unknown size unit `furlongs`");
        assert_eq!(err.span, 2..10);
        assert!(err.hint.unwrap().contains("KiB"));
        let err = parse_size("8b").unwrap_err();
        assert!(err.hint.unwrap().contains("bits"));
        assert!(parse_size("1e").is_err());
    }

    #[test]
    fn fractions_must_give_whole_bytes() {
        let err = parse_size("1.1B").unwrap_err();
        assert_eq!(err.span, 0..4);
        assert!(
            err.message.contains("not a whole number of bytes"),
            "{}",
            err.message
        );
        assert!(parse_size("0.3KiB").is_err());
    }

    #[test]
    fn overflow_is_an_error() {
        assert!(
            parse_size("16EiB")
                .unwrap_err()
                .message
                .contains("too large")
        );
        assert!(parse_size("18446744073709551616").is_err());
        assert!(parse_size("99999999999999999999999999999999999999999TiB").is_err());
        assert_eq!(bytes("18446744073709551615"), u64::MAX);
    }

    #[test]
    fn malformed_sizes_say_what_was_expected() {
        let err = parse_size("KiB").unwrap_err();
        assert_eq!(
            err.message,
            "expected a size such as 8KiB or 1MiB, found `KiB`"
        );
        assert_eq!(err.span, 0..3);
        let err = parse_size("-8KiB").unwrap_err();
        assert_eq!(err.span, 0..1);
        let err = parse_size("8KiB 4").unwrap_err();
        assert_eq!(err.span, 5..6);
        assert!(parse_size("").unwrap_err().message.contains("empty"));
        assert!(parse_size("1.").is_err());
    }

    #[test]
    fn display_uses_the_largest_exact_iec_unit() {
        assert_eq!(Size(8192).to_string(), "8KiB");
        assert_eq!(Size(1536 * 1024).to_string(), "1536KiB");
        assert_eq!(Size(4097).to_string(), "4097B");
        assert_eq!(Size(0).to_string(), "0B");
        assert_eq!(Size(1 << 20).to_string(), "1MiB");
        assert_eq!(Size(3 << 30).to_string(), "3GiB");
        assert_eq!(Size(u64::MAX).to_string(), format!("{}B", u64::MAX));
        assert_eq!("8k".parse::<Size>().unwrap(), Size(8192));
    }
}
