//! A fleet point's per-host rows. A merge of many hosts streams them to a spill file one point at a
//! time (`fleet/per-rank.jsonl` in the fleet folder) instead of holding every host's row at every
//! point; they are read back, one point at a time, when the document is written or a report asks.
//! In `results.json` they are an ordinary array.

use super::model::RankPoint;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq)]
pub enum RankRows {
    Rows(Vec<RankPoint>),
    /// `len` bytes at `offset` of `path`: the rows as a JSON array.
    Spilled {
        path: PathBuf,
        offset: u64,
        len: usize,
    },
}

impl RankRows {
    /// The rows, read back when spilled.
    pub fn load(&self) -> Result<Cow<'_, [RankPoint]>, String> {
        match self {
            RankRows::Rows(rows) => Ok(Cow::Borrowed(rows)),
            RankRows::Spilled { path, offset, len } => {
                let mut bytes = vec![0; *len];
                std::fs::File::open(path)
                    .and_then(|f| f.read_exact_at(&mut bytes, *offset))
                    .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
                serde_json::from_slice::<Vec<RankPoint>>(&bytes)
                    .map(Cow::Owned)
                    .map_err(|e| format!("`{}` at offset {offset}: {e}", path.display()))
            }
        }
    }
}

impl Serialize for RankRows {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.load().map_err(serde::ser::Error::custom)?.serialize(s)
    }
}

impl<'de> Deserialize<'de> for RankRows {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::deserialize(d).map(RankRows::Rows)
    }
}
