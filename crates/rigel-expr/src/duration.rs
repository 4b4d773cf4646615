//! Durations: `100ns`, `250us`/`250µs`, `500ms`, `60s`, `2m`, `1h`, `1m30s`, `1.5s`. Exact to the
//! nanosecond; a bare number is refused (seconds or minutes? the spec must say).

use super::ExprError;
use super::grammar::{Expected, Node, Rule, parse_entry};
use super::number::{Decimal, Scaled};
use super::size::{span_of, trimmed_span};
use std::ops::Range;
use std::time::Duration;

pub(crate) const EXPECT_DURATION: Expected = Expected {
    noun: "a duration",
    examples: "500ms, 60s or 1m30s",
};

const NANOS_PER_SEC: u128 = 1_000_000_000;

/// The time units, largest first; a duration's parts must follow this order.
const UNITS: [(&str, u128); 6] = [
    ("h", 3600 * NANOS_PER_SEC),
    ("m", 60 * NANOS_PER_SEC),
    ("s", NANOS_PER_SEC),
    ("ms", 1_000_000),
    ("us", 1_000),
    ("ns", 1),
];

/// Parses a duration such as `500ms`, `60s` or `1m30s`.
pub fn parse_duration(s: &str) -> Result<Duration, ExprError> {
    let mut inner = parse_entry(Rule::duration_value, s, EXPECT_DURATION)?;
    match inner.next() {
        Some(node) => duration_from(node),
        None => Err(ExprError::new(
            0..s.len(),
            "expected a duration such as 60s",
        )),
    }
}

/// Evaluates a `duration` node: parts in decreasing units, summed exactly.
fn duration_from(node: Node<'_>) -> Result<Duration, ExprError> {
    let whole = trimmed_span(&node);
    let mut total: u128 = 0;
    let mut previous: Option<(usize, Range<usize>)> = None;
    for part in node.into_inner() {
        let (nanos, rank, unit_span) = part_nanos(part)?;
        if let Some((prev_rank, prev_span)) = &previous {
            if rank <= *prev_rank {
                return Err(ExprError::new(
                    unit_span.start..unit_span.end.max(prev_span.end),
                    "the parts of a duration must go from the largest unit to the smallest",
                )
                .with_hint("write e.g. 1h30m, 1m30s or 2s500ms, each unit once"));
            }
        }
        previous = Some((rank, unit_span));
        total = total
            .checked_add(nanos)
            .ok_or_else(|| too_long(whole.clone()))?;
    }
    let secs = u64::try_from(total / NANOS_PER_SEC).map_err(|_| too_long(whole))?;
    Ok(Duration::new(secs, (total % NANOS_PER_SEC) as u32))
}

/// One `number unit` part: its nanoseconds, the rank of its unit (0 = hours) and the unit's span.
fn part_nanos(part: Node<'_>) -> Result<(u128, usize, Range<usize>), ExprError> {
    let whole = trimmed_span(&part);
    let mut pieces = part.into_inner();
    let Some(number) = pieces.next() else {
        return Err(ExprError::new(whole, "expected a duration such as 60s"));
    };
    let Some(unit) = pieces.next() else {
        return Err(
            ExprError::new(whole, format!("`{}` has no unit", number.as_str()))
                .with_hint("add a unit, e.g. 60s (units: h, m, s, ms, us, ns)"),
        );
    };
    let unit_span = span_of(&unit);
    let (rank, nanos_per_unit) = time_unit(unit.as_str(), unit_span.clone())?;
    let value = Decimal::parse(number.as_str(), span_of(&number))?;
    match value.times(nanos_per_unit) {
        Scaled::Exact(n) => Ok((n, rank, unit_span)),
        Scaled::Overflow => Err(too_long(whole)),
        Scaled::Fraction => Err(ExprError::new(
            whole,
            format!(
                "`{}` is not a whole number of nanoseconds",
                part_text(&number, &unit)
            ),
        )),
    }
}

fn part_text(number: &Node<'_>, unit: &Node<'_>) -> String {
    format!("{}{}", number.as_str(), unit.as_str())
}

/// A time unit's rank in [`UNITS`] and its length in nanoseconds.
pub(crate) fn time_unit(unit: &str, span: Range<usize>) -> Result<(usize, u128), ExprError> {
    let canonical = match unit {
        "µs" | "μs" => "us",
        other => other,
    };
    if let Some(rank) = UNITS.iter().position(|(name, _)| *name == canonical) {
        return Ok((rank, UNITS[rank].1));
    }
    let hint = match unit {
        "sec" | "secs" | "second" | "seconds" | "S" => "write s for seconds, e.g. 60s",
        "min" | "mins" | "minute" | "minutes" | "M" => "write m for minutes, e.g. 2m",
        "hr" | "hour" | "hours" | "H" => "write h for hours, e.g. 1h",
        "d" | "day" | "days" => "days are not a unit: write hours, e.g. 24h",
        _ => "the units are h, m, s, ms, us (or µs) and ns",
    };
    Err(ExprError::new(span, format!("unknown time unit `{unit}`")).with_hint(hint))
}

fn too_long(span: Range<usize>) -> ExprError {
    ExprError::new(span, "duration too long")
}

/// Canonical text of a duration, which parses back to the same duration. Up to a minute it is
/// written in one unit (`60s`, `1.5s`, `500ms`, `250us`, `100ns`); beyond, as hours, minutes and
/// seconds, leaving out the parts that are zero (`1m30s`, `2m`, `1h`, `1h0.5s`).
pub fn format_duration(d: Duration) -> String {
    let total = d.as_nanos();
    if total == 0 {
        return "0s".to_string();
    }
    if total <= 60 * NANOS_PER_SEC {
        let (unit, per) = match total {
            t if t >= NANOS_PER_SEC => ("s", NANOS_PER_SEC),
            t if t >= 1_000_000 => ("ms", 1_000_000),
            t if t >= 1_000 => ("us", 1_000),
            _ => ("ns", 1),
        };
        return format!("{}{unit}", decimal(total, per));
    }
    let mut out = String::new();
    let hours = total / UNITS[0].1;
    let minutes = total % UNITS[0].1 / UNITS[1].1;
    let rest = total % UNITS[1].1;
    if hours > 0 {
        out.push_str(&format!("{hours}h"));
    }
    if minutes > 0 {
        out.push_str(&format!("{minutes}m"));
    }
    if rest > 0 {
        out.push_str(&format!("{}s", decimal(rest, NANOS_PER_SEC)));
    }
    out
}

/// `value / per` as a decimal without trailing zeros: (1_500, 1_000) → "1.5".
fn decimal(value: u128, per: u128) -> String {
    let whole = value / per;
    let frac = value % per;
    if frac == 0 {
        return whole.to_string();
    }
    let width = per.ilog10() as usize;
    let digits = format!("{frac:0width$}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nanos(s: &str) -> u128 {
        match parse_duration(s) {
            Ok(d) => d.as_nanos(),
            Err(e) => panic!("{s:?}: {e} {:?}", e.hint),
        }
    }

    #[test]
    fn every_accepted_form() {
        assert_eq!(nanos("100ns"), 100);
        assert_eq!(nanos("250us"), 250_000);
        assert_eq!(nanos("250µs"), 250_000);
        assert_eq!(nanos("250μs"), 250_000);
        assert_eq!(nanos("500ms"), 500_000_000);
        assert_eq!(nanos("60s"), 60 * NANOS_PER_SEC);
        assert_eq!(nanos("60 s"), 60 * NANOS_PER_SEC);
        assert_eq!(nanos("2m"), 120 * NANOS_PER_SEC);
        assert_eq!(nanos("1h"), 3600 * NANOS_PER_SEC);
        assert_eq!(nanos("1m30s"), 90 * NANOS_PER_SEC);
        assert_eq!(nanos("1m 30s"), 90 * NANOS_PER_SEC);
        assert_eq!(nanos("1h2m3s4ms5us6ns"), 3_723_004_005_006);
        assert_eq!(nanos("1.5s"), 1_500_000_000);
        assert_eq!(nanos("0.5ms"), 500_000);
        assert_eq!(nanos("0s"), 0);
        assert_eq!(nanos("1_000ms"), NANOS_PER_SEC);
    }

    #[test]
    fn a_bare_number_needs_a_unit() {
        let err = parse_duration("60").unwrap_err();
        assert_eq!(err.span, 0..2);
        assert_eq!(err.message, "`60` has no unit");
        assert!(err.hint.unwrap().contains("add a unit, e.g. 60s"));
        let err = parse_duration("1m 30").unwrap_err();
        assert_eq!(err.span, 3..5);
    }

    #[test]
    fn unknown_units_get_a_hint() {
        let err = parse_duration("5 sec").unwrap_err();
        assert_eq!(err.message, "unknown time unit `sec`");
        assert_eq!(err.span, 2..5);
        assert_eq!(err.hint.as_deref(), Some("write s for seconds, e.g. 60s"));
        assert!(
            parse_duration("1d")
                .unwrap_err()
                .hint
                .unwrap()
                .contains("24h")
        );
        assert!(
            parse_duration("3 fortnights")
                .unwrap_err()
                .hint
                .unwrap()
                .contains("ms")
        );
    }

    #[test]
    fn parts_must_decrease() {
        let err = parse_duration("30s1m").unwrap_err();
        assert!(err.message.contains("largest unit to the smallest"));
        assert_eq!(err.span, 4..5);
        assert!(parse_duration("1s1s").is_err());
    }

    #[test]
    fn sub_nanosecond_and_overflow_are_errors() {
        let err = parse_duration("1.5ns").unwrap_err();
        assert!(err.message.contains("whole number of nanoseconds"));
        assert_eq!(err.span, 0..5);
        assert!(parse_duration("99999999999999999999999999999h").is_err());
        assert!(parse_duration("18446744073709551616s").is_err());
        assert!(parse_duration("18446744073709551615s").is_ok());
    }

    #[test]
    fn malformed_durations_say_what_was_expected() {
        let err = parse_duration("fast").unwrap_err();
        assert_eq!(
            err.message,
            "expected a duration such as 500ms, 60s or 1m30s, found `fast`"
        );
        assert_eq!(err.span, 0..4);
        assert!(parse_duration("").is_err());
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn canonical_text() {
        let cases = [
            (Duration::ZERO, "0s"),
            (Duration::from_nanos(100), "100ns"),
            (Duration::from_nanos(1_500), "1.5us"),
            (Duration::from_micros(250), "250us"),
            (Duration::from_millis(500), "500ms"),
            (Duration::from_millis(1_500), "1.5s"),
            (Duration::from_secs(60), "60s"),
            (Duration::from_secs(61), "1m1s"),
            (Duration::from_secs(90), "1m30s"),
            (Duration::from_secs(120), "2m"),
            (Duration::from_secs(3600), "1h"),
            (Duration::from_secs(5400), "1h30m"),
            (Duration::new(3600, 500_000_000), "1h0.5s"),
            (Duration::new(61, 1), "1m1.000000001s"),
        ];
        for (d, text) in cases {
            assert_eq!(format_duration(d), text);
            assert_eq!(parse_duration(text).unwrap(), d, "{text}");
        }
        let max = Duration::new(u64::MAX, 999_999_999);
        assert_eq!(parse_duration(&format_duration(max)).unwrap(), max);
    }
}
