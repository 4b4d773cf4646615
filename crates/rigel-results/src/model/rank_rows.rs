//! A fleet point's per-host rows. A merge of many hosts streams them to a spill file one point at a
//! time (`fleet/per-rank.jsonl` in the fleet folder) instead of holding every host's row at every
//! point; they are read back, one point at a time, when the document is written or a report asks.
//! In `results.json` they are an ordinary array.

use super::wall_window::WallWindow;
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

/// Spilled rows that cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum SpillError {
    #[error("cannot read `{path}`: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{path}` at offset {offset} holds no host rows: {source}")]
    Invalid {
        path: PathBuf,
        offset: u64,
        #[source]
        source: serde_json::Error,
    },
}

impl RankRows {
    /// The rows, read back when spilled.
    pub fn load(&self) -> Result<Cow<'_, [RankPoint]>, SpillError> {
        match self {
            RankRows::Rows(rows) => Ok(Cow::Borrowed(rows)),
            RankRows::Spilled { path, offset, len } => {
                let mut bytes = vec![0; *len];
                std::fs::File::open(path)
                    .and_then(|f| f.read_exact_at(&mut bytes, *offset))
                    .map_err(|source| SpillError::Read {
                        path: path.clone(),
                        source,
                    })?;
                serde_json::from_slice::<Vec<RankPoint>>(&bytes)
                    .map(Cow::Owned)
                    .map_err(|source| SpillError::Invalid {
                        path: path.clone(),
                        offset: *offset,
                        source,
                    })
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

/// One host's figures at a merged point (its histograms stay in its own run folder).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankPoint {
    pub rank: u32,
    pub hostname: String,
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WallWindow>,
    pub classes: Vec<RankClass>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankClass {
    pub class: String,
    pub ios: u64,
    pub iops: f64,
    pub mbps: f64,
    pub mean_ns: f64,
    pub p99_ns: u64,
    pub max_ns: u64,
}
