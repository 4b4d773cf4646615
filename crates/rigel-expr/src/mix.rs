//! Read/write mixes: `read`, `write`, `70% read`, `30% write` (the same mix), and `70/30`, which
//! means 70% reads and 30% writes (read share first, as fio's `rwmixread` and ORION's `-write`
//! complement it). Trims (discards, fio's `rw=trim`/`randtrim`): `trim` alone, or shares that
//! name one and add up to 100, `70% read, 20% write, 10% trim`.

use super::grammar::{Expected, Node, Rule, parse_entry};
use super::number::parse_u64;
use super::size::{span_of, trimmed_span};
use super::{ExprError, Mix};
use std::fmt;

pub(crate) const EXPECT_MIX: Expected = Expected {
    noun: "a mix",
    examples: "read, write, 70% read, 70/30 or 70% read, 20% write, 10% trim",
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
        Rule::read => Ok(Mix::READ),
        Rule::write => Ok(Mix::WRITE),
        Rule::trim => Ok(Mix::TRIM),
        Rule::shares => shares(form, span),
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
            Ok(Mix::reads_of(read_percent))
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
            Ok(Mix::reads_of(r))
        }
    }
}

/// `70% read, 20% write, 10% trim`: each direction at most once, the shares adding up to 100.
fn shares(form: Node<'_>, span: std::ops::Range<usize>) -> Result<Mix, ExprError> {
    let mut got: [Option<u8>; 3] = [None; 3];
    for share in form.into_inner().filter(|n| n.as_rule() != Rule::sep) {
        let share_span = trimmed_span(&share);
        let mut parts = share.into_inner().filter(|n| n.as_rule() != Rule::pct);
        let (Some(number), Some(direction)) = (parts.next(), parts.next()) else {
            return Err(ExprError::new(
                share_span,
                "expected a share such as 10% trim",
            ));
        };
        let (k, name) = match direction.as_rule() {
            Rule::read => (0, "read"),
            Rule::write => (1, "write"),
            _ => (2, "trim"),
        };
        if got[k].is_some() {
            return Err(
                ExprError::new(share_span, format!("{name} is given twice in this mix"))
                    .with_hint("give each of read, write and trim at most once"),
            );
        }
        got[k] = Some(percent(&number)?);
    }
    let [r, w, t] = got.map(|p| p.unwrap_or(0));
    let sum = u16::from(r) + u16::from(w) + u16::from(t);
    if sum != 100 {
        return Err(
            ExprError::new(span, format!("these shares add up to {sum}%, not 100%")).with_hint(
                format!(
                    "give every direction's share, e.g. {r}% read, {}% write, {t}% trim",
                    100u16.saturating_sub(u16::from(r) + u16::from(t))
                ),
            ),
        );
    }
    Ok(Mix {
        read_percent: r,
        trim_percent: t,
    })
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
    /// Canonical text: `read`, `write`, `trim`, the read share such as `70% read`, or with
    /// trims every share that is not 0, such as `70% read, 20% write, 10% trim`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.read_percent, self.trim_percent) {
            (_, 100) => f.write_str("trim"),
            (100, _) => f.write_str("read"),
            (0, 0) => f.write_str("write"),
            (p, 0) => write!(f, "{p}% read"),
            (r, t) => {
                let w = self.write_percent();
                let shares = [(r, "read"), (w, "write"), (t, "trim")];
                let mut first = true;
                for (p, name) in shares.into_iter().filter(|(p, _)| *p > 0) {
                    if !first {
                        f.write_str(", ")?;
                    }
                    first = false;
                    write!(f, "{p}% {name}")?;
                }
                Ok(())
            }
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
            let mix = Mix::reads_of(p);
            assert_eq!(parse_mix(&mix.to_string()).unwrap(), mix);
            for t in (1..=100 - p).step_by(7).chain([100 - p]) {
                let mix = Mix {
                    read_percent: p,
                    trim_percent: t,
                };
                assert_eq!(parse_mix(&mix.to_string()).unwrap(), mix, "{mix}");
            }
        }
    }

    #[test]
    fn trims_in_a_mix() {
        let m = parse_mix("70% read, 20% write, 10% trim").unwrap();
        assert_eq!(
            (m.read_percent, m.write_percent(), m.trim_percent),
            (70, 20, 10)
        );
        assert!(m.reads() && m.writes() && m.trims() && m.modifies());
        let m = parse_mix("10% TRIM, 90% reads").unwrap();
        assert_eq!((m.read_percent, m.trim_percent), (90, 10));
        assert!(!m.writes() && m.modifies());
        assert_eq!(m.to_string(), "90% read, 10% trim");
        let m = parse_mix("trim").unwrap();
        assert_eq!((m.read_percent, m.trim_percent), (0, 100));
        assert!(!m.writes() && !m.reads() && m.trims());
        let err = parse_mix("70% read, 20% write, 5% trim").unwrap_err();
        assert_eq!(err.message, "these shares add up to 95%, not 100%");
        assert_eq!(
            err.hint.as_deref(),
            Some("give every direction's share, e.g. 70% read, 25% write, 5% trim")
        );
        let err = parse_mix("10% trim, 10% trim, 80% read").unwrap_err();
        assert_eq!(err.message, "trim is given twice in this mix");
        assert_eq!(err.span, 10..18);
        // Without a trim, a list of shares is still a list of mixes (a sweep's); a trim's
        // shares are one mix of the list.
        let mixes = parse_mix_list("70% read, 30% write, read, 90% read, 10% trim, write").unwrap();
        let text: Vec<String> = mixes.iter().map(Mix::to_string).collect();
        assert_eq!(
            text,
            [
                "70% read",
                "70% read",
                "read",
                "90% read, 10% trim",
                "write"
            ]
        );
    }
}
