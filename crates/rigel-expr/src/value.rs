//! The typed values the grammar produces, and the errors it reports (spans are byte offsets into the
//! string that was parsed, so the spec layer can point inside a TOML string).

use serde::{Deserialize, Serialize};
use std::ops::Range;

/// A byte count, always exact (`8KiB` = 8192).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Size(pub u64);

/// Random offsets over the whole volume, or sequential streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    Random,
    Sequential,
}

/// The shares of reads and trims in a class's I/Os, in whole percent; writes are the rest
/// (`read_percent` 0 and no trims = all writes, 100 = all reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Mix {
    pub read_percent: u8,
    /// Discards of the class's size at its offsets (`10% trim`); absent in results and plans
    /// written before rigel had trims, and where there are none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub trim_percent: u8,
}

fn is_zero(p: &u8) -> bool {
    *p == 0
}

impl Mix {
    pub const READ: Mix = Mix::reads_of(100);
    pub const WRITE: Mix = Mix::reads_of(0);
    pub const TRIM: Mix = Mix {
        read_percent: 0,
        trim_percent: 100,
    };

    /// A read/write mix with `read_percent` reads and no trims.
    pub const fn reads_of(read_percent: u8) -> Mix {
        Mix {
            read_percent,
            trim_percent: 0,
        }
    }

    /// The share of writes, in whole percent.
    pub fn write_percent(&self) -> u8 {
        100u8.saturating_sub(self.read_percent.saturating_add(self.trim_percent))
    }

    /// Whether the class writes (trims aside: see [`Mix::modifies`]).
    pub fn writes(&self) -> bool {
        self.write_percent() > 0
    }
    pub fn reads(&self) -> bool {
        self.read_percent > 0
    }
    pub fn trims(&self) -> bool {
        self.trim_percent > 0
    }
    /// Whether the class changes the target's contents: it writes or trims (the write guard's
    /// consent and the data it may destroy).
    pub fn modifies(&self) -> bool {
        self.writes() || self.trims()
    }
}

/// The names a count expression may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Names {
    /// Number of `[[target]]` entries in the spec.
    pub targets: u64,
    /// Cores of the machine the plan is made on.
    pub cores: u64,
}

/// The comparison operator of a requirement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CmpOp {
    #[serde(rename = ">=")]
    Ge,
    #[serde(rename = ">")]
    Gt,
    #[serde(rename = "<=")]
    Le,
    #[serde(rename = "<")]
    Lt,
    #[serde(rename = "==")]
    Eq,
}

/// The right-hand side of a requirement, with its kind of unit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "unit", content = "value", rename_all = "snake_case")]
pub enum Quantity {
    /// A plain number (IOPS, counts).
    Number(f64),
    /// Bytes (`1MiB`).
    Bytes(u64),
    /// A time in nanoseconds (`500us`).
    Nanos(u64),
    /// Bytes per second (`1.5GiB/s`).
    BytesPerSec(f64),
}

/// `>= 40000`, `<= 500us`, `>= 1.5GiB/s`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub op: CmpOp,
    pub value: Quantity,
}

/// What went wrong inside a value string: where (byte range in that string), what, and a hint.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ExprError {
    pub span: Range<usize>,
    pub message: String,
    pub hint: Option<String>,
}

impl ExprError {
    pub fn new(span: Range<usize>, message: impl Into<String>) -> Self {
        ExprError {
            span,
            message: message.into(),
            hint: None,
        }
    }
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}
