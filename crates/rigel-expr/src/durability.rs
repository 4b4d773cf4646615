//! A class's `durability`: how its writes are made durable. `dsync` sets RWF_DSYNC on every
//! write; `fdatasync:N` (or `fsync:N`) sends a flush after every N writes of the class, as a
//! database's commit does after its log writes.

use super::value::ExprError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// `fdatasync:N` and `fsync:N` take N from 1 to this.
pub const MAX_SYNC_EVERY: u32 = 1_000_000;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Durability {
    /// A write completes when the device accepts it (it may sit in a write-back cache).
    #[default]
    None,
    /// Every write carries RWF_DSYNC.
    Dsync,
    /// An fdatasync after every N writes of the class.
    Fdatasync(u32),
    /// An fsync after every N writes of the class.
    Fsync(u32),
}

impl Durability {
    /// A flush after every N writes: (N, data only).
    pub fn flush_every(&self) -> Option<(u32, bool)> {
        match *self {
            Durability::Fdatasync(n) => Some((n, true)),
            Durability::Fsync(n) => Some((n, false)),
            Durability::None | Durability::Dsync => None,
        }
    }
}

impl fmt::Display for Durability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Durability::None => f.write_str("none"),
            Durability::Dsync => f.write_str("dsync"),
            Durability::Fdatasync(n) => write!(f, "fdatasync:{n}"),
            Durability::Fsync(n) => write!(f, "fsync:{n}"),
        }
    }
}

impl From<Durability> for String {
    fn from(d: Durability) -> String {
        d.to_string()
    }
}

impl TryFrom<String> for Durability {
    type Error = String;
    fn try_from(s: String) -> Result<Durability, String> {
        parse_durability(&s).map_err(|e| e.message)
    }
}

const FORMS: &str = "write \"none\", \"dsync\", \"fdatasync:8\" or \"fsync:1\"";

/// Parses a `durability` value: `none`, `dsync`, `fdatasync:N`, `fsync:N` (1 ≤ N ≤ 10⁶).
pub fn parse_durability(s: &str) -> Result<Durability, ExprError> {
    let text = s.trim();
    let lead = s.len() - s.trim_start().len();
    let whole = lead..lead + text.len();
    let (kind, arg) = match text.split_once(':') {
        Some((k, a)) => (k.trim(), Some(a)),
        None => (text, None),
    };
    let every = |a: &str| -> Result<u32, ExprError> {
        let at = lead + text.len() - a.len();
        let span = at..at + a.len();
        match a.trim().replace('_', "").parse::<u32>() {
            Ok(n) if (1..=MAX_SYNC_EVERY).contains(&n) => Ok(n),
            _ => Err(ExprError::new(
                span,
                format!(
                    "`{}` is not a count of writes from 1 to {MAX_SYNC_EVERY}",
                    a.trim()
                ),
            )
            .with_hint("fdatasync:1 flushes after every write, fdatasync:8 after every 8th")),
        }
    };
    match (kind, arg) {
        ("none", None) => Ok(Durability::None),
        ("dsync", None) => Ok(Durability::Dsync),
        ("fdatasync", Some(a)) => Ok(Durability::Fdatasync(every(a)?)),
        ("fsync", Some(a)) => Ok(Durability::Fsync(every(a)?)),
        ("fdatasync" | "fsync", None) => Err(ExprError::new(
            whole,
            format!("`{kind}` needs the number of writes per flush"),
        )
        .with_hint(format!("write \"{kind}:1\" for a flush after every write"))),
        _ => {
            let hint = super::suggest::did_you_mean(kind, ["none", "dsync", "fdatasync", "fsync"])
                .unwrap_or_else(|| FORMS.to_owned());
            Err(ExprError::new(whole, format!("unknown durability `{text}`")).with_hint(hint))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_parse_and_print_back() {
        for (s, d) in [
            ("none", Durability::None),
            ("dsync", Durability::Dsync),
            ("fdatasync:8", Durability::Fdatasync(8)),
            (" fsync : 1 ", Durability::Fsync(1)),
        ] {
            let parsed = parse_durability(s).expect(s);
            assert_eq!(parsed, d);
            assert_eq!(parse_durability(&parsed.to_string()), Ok(d));
        }
        assert_eq!(Durability::Fdatasync(8).flush_every(), Some((8, true)));
        assert_eq!(Durability::Dsync.flush_every(), None);
    }

    #[test]
    fn bad_forms_are_refused() {
        let e = parse_durability("fdatasync:0").unwrap_err();
        assert!(e.message.contains("from 1"), "{}", e.message);
        assert_eq!(e.span, 10..11);
        assert!(
            parse_durability("fdatasync")
                .unwrap_err()
                .message
                .contains("needs")
        );
        let e = parse_durability("fdatsync:8").unwrap_err();
        assert!(e.hint.unwrap_or_default().contains("fdatasync"));
        assert!(parse_durability("dsync:2").is_err());
        assert!(parse_durability("fsync:x").is_err());
    }
}
