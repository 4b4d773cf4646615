//! Read/write mixes: `read`, `write`, `70% read`, `30% write` (the same mix), and `70/30`, which
//! means 70% reads and 30% writes (read share first, as fio's `rwmixread` and ORION's `-write`
//! complement it).

use super::grammar::{Expected, Node, Rule, parse_entry};
use super::number::parse_u64;
use super::size::{span_of, trimmed_span};
use super::{ExprError, Mix};
use std::fmt;

pub(crate) const EXPECT_MIX: Expected = Expected {
    noun: "a mix",
    examples: "read, write, 70% read or 70/30",
};

/// Parses a mix: `read`, `write`, `70% read`, `30% write` or `70/30` (70% reads).
pub fn parse_mix(s: &str) -> Result<Mix, ExprError> {
    let mut inner = parse_entry(Rule::mix_value, s, EXPECT_MIX)?;
    match inner.next() {
        Some(node) => mix_from(node),
        None => Err(ExprError::new(0..s.len(), "expected a mix such as read")),
    }
}

/// `read, 70% read, write`: in the order written.
pub fn parse_mix_list(s: &str) -> Result<Vec<Mix>, ExprError> {
    let expected = Expected {
        noun: "a list of mixes",
        examples: "read, 70% read, write",
    };
    parse_entry(Rule::mix_list_value, s, expected)?
        .filter(|node| node.as_rule() == Rule::mix)
        .map(mix_from)
        .collect()
}

/// Evaluates a `mix` node.
fn mix_from(node: Node<'_>) -> Result<Mix, ExprError> {
    let span = trimmed_span(&node);
    let Some(form) = node.into_inner().next() else {
        return Err(ExprError::new(span, "expected a mix such as read"));
    };
    match form.as_rule() {
        Rule::read => Ok(Mix { read_percent: 100 }),
        Rule::write => Ok(Mix { read_percent: 0 }),
        Rule::percent => {
            let mut parts = form.into_inner().filter(|n| n.as_rule() != Rule::pct);
            let (Some(number), Some(direction)) = (parts.next(), parts.next()) else {
                return Err(ExprError::new(span, "expected a mix such as 70% read"));
            };
            let percent = percent(&number)?;
            let read_percent = if direction.as_rule() == Rule::read {
                percent
            } else {
                100 - percent
            };
            Ok(Mix { read_percent })
        }
        _ => {
            let mut parts = form.into_inner().filter(|n| n.as_rule() == Rule::int);
            let (Some(reads), Some(writes)) = (parts.next(), parts.next()) else {
                return Err(ExprError::new(span, "expected a mix such as 70/30"));
            };
            let (r, w) = (percent(&reads)?, percent(&writes)?);
            if u16::from(r) + u16::from(w) != 100 {
                return Err(
                    ExprError::new(span, format!("{r}/{w} does not add up to 100")).with_hint(
                        format!("write reads/writes in percent, e.g. {r}/{}", 100 - r),
                    ),
                );
            }
            Ok(Mix { read_percent: r })
        }
    }
}

/// A whole percentage, 0 to 100.
fn percent(number: &Node<'_>) -> Result<u8, ExprError> {
    let span = span_of(number);
    let out_of_range = || {
        ExprError::new(
            span.clone(),
            format!("{}% is not a percentage", number.as_str()),
        )
        .with_hint("a percentage is a whole number from 0 to 100")
    };
    let value = parse_u64(number.as_str(), span.clone()).map_err(|_| out_of_range())?;
    u8::try_from(value)
        .ok()
        .filter(|v| *v <= 100)
        .ok_or_else(out_of_range)
}

impl fmt::Display for Mix {
    /// Canonical text: `read`, `write`, or the read share such as `70% read`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.read_percent {
            100 => f.write_str("read"),
            0 => f.write_str("write"),
            p => write!(f, "{p}% read"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_percent(s: &str) -> u8 {
        match parse_mix(s) {
            Ok(m) => m.read_percent,
            Err(e) => panic!("{s:?}: {e} {:?}", e.hint),
        }
    }

    #[test]
    fn every_accepted_form() {
        assert_eq!(read_percent("read"), 100);
        assert_eq!(read_percent("write"), 0);
        assert_eq!(read_percent("READ"), 100);
        assert_eq!(read_percent("writes"), 0);
        assert_eq!(read_percent("70% read"), 70);
        assert_eq!(read_percent("70%read"), 70);
        assert_eq!(read_percent("30% write"), 70);
        assert_eq!(read_percent("100% write"), 0);
        assert_eq!(read_percent("0% read"), 0);
        assert_eq!(read_percent("70/30"), 70);
        assert_eq!(read_percent(" 0 / 100 "), 0);
    }

    #[test]
    fn percentages_out_of_range_are_errors() {
        let err = parse_mix("170% read").unwrap_err();
        assert_eq!(err.span, 0..3);
        assert_eq!(err.message, "170% is not a percentage");
        assert!(parse_mix("99999999999999999999999% read").is_err());
        let err = parse_mix("70/40").unwrap_err();
        assert_eq!(err.message, "70/40 does not add up to 100");
        assert_eq!(
            err.hint.as_deref(),
            Some("write reads/writes in percent, e.g. 70/30")
        );
        assert!(parse_mix("700/30").is_err());
    }

    #[test]
    fn malformed_mixes_say_what_was_expected() {
        let err = parse_mix("readwrite").unwrap_err();
        assert!(
            err.message.starts_with("expected a mix such as"),
            "{}",
            err.message
        );
        assert_eq!(err.span, 0..9);
        let err = parse_mix("70%").unwrap_err();
        assert!(err.message.contains("ends here"));
        let err = parse_mix("70 read").unwrap_err();
        assert_eq!(err.span, 3..7);
        assert_eq!(err.hint.as_deref(), Some("expected `%` or `/` here"));
        assert!(parse_mix("").is_err());
        assert!(parse_mix("read, write").is_err());
    }

    #[test]
    fn lists_keep_the_order_written() {
        let mixes = parse_mix_list("write, 70% read, read").unwrap();
        let text: Vec<String> = mixes.iter().map(Mix::to_string).collect();
        assert_eq!(text, ["write", "70% read", "read"]);
        let err = parse_mix_list("read, 50% sideways").unwrap_err();
        assert_eq!(err.span, 10..18);
    }

    #[test]
    fn display_round_trips() {
        for p in 0..=100u8 {
            let mix = Mix { read_percent: p };
            assert_eq!(parse_mix(&mix.to_string()).unwrap(), mix);
        }
    }
}
