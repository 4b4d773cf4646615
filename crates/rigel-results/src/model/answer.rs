//! An answer: one figure the spec exists to give (`[answers]`, or those derived from its classes),
//! as judged on a run: its value with unit, the point and load it was taken at, the latency beside
//! it and the rule used, or why no point qualified. Kept in `results.json` beside the verdicts.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The answer's name (`[answers.NAME]`, or a derived one such as `oltp IOPS`).
    pub name: String,
    /// The question it answers, in words.
    pub question: String,
    /// The figure as `[expect]` writes it (`oltp.read.latency.p99`), or `search`.
    pub figure: String,
    /// The group of a `per` or `each load` answer (`log.size=8KiB`, `oltp=16`); empty otherwise.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub group: String,
    /// The value in its unit (`unit`); none when no point qualified.
    pub value: Option<f64>,
    /// `iops`, `mbps` (MiB/s), `ns`, `commits/s`.
    pub unit: String,
    /// The value with its unit (`41,235 IOPS`), `-` without one.
    pub text: String,
    pub point_id: Option<u32>,
    /// The point's loads and sweep (`oltp=16 redo=1`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub point: String,
    /// The load of the figure's class at the point.
    pub load: Option<u32>,
    /// The latency beside the figure, of the same class and direction (`p99 1.2 ms, mean 410 µs`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub latency: String,
    pub p99_ns: Option<u64>,
    pub mean_ns: Option<f64>,
    /// How the point was chosen, in words.
    pub rule: String,
    /// Why no point gave the answer, or what else to know (`not confirmed`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// The spec declared it (`[answers]`); false: derived from the classes.
    pub declared: bool,
}

impl Answer {
    /// `name` and its group: how `compare` and `history` match an answer across runs.
    pub fn key(&self) -> String {
        if self.group.is_empty() {
            self.name.clone()
        } else {
            format!("{} ({})", self.name, self.group)
        }
    }
}
