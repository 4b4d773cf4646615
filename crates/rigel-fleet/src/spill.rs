//! The per-host rows of a fleet's merged points, streamed to `fleet/per-rank.jsonl` as the merge
//! goes: the merged document refers to them (`RankRows::Spilled`) and reads them back one point
//! at a time when it is written or a report asks.

use super::{FleetError, io_err};
use rigel_results::{RankPoint, RankRows};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where the merge streams each point's per-host rows (in the fleet's `fleet/` folder).
pub const SPILL_FILE: &str = "per-rank.jsonl";

/// The per-host rows of each point, written out as the merge goes (one JSON array a line), so
/// its memory does not grow with hosts × points.
pub struct Spill {
    path: PathBuf,
    out: std::io::BufWriter<std::fs::File>,
    offset: u64,
}

impl Spill {
    /// Creates the spill file `fleet/NAME` of the fleet folder `fleet`: the last merge's is
    /// removed and a new one made with O_EXCL beneath `fleet/`'s descriptor (a link or a hard
    /// link planted under its name is never written through).
    pub fn create(fleet: &Path, name: &str) -> Result<Spill, FleetError> {
        let meta = super::open_meta(fleet)?;
        meta.remove_file(name)?;
        let file = meta.create_new(name)?;
        let path = meta.join(name);
        Ok(Spill {
            path,
            out: std::io::BufWriter::new(file),
            offset: 0,
        })
    }

    pub fn put(&mut self, rows: &[RankPoint]) -> Result<RankRows, FleetError> {
        let mut line = serde_json::to_vec(rows).map_err(|e| FleetError::Invalid {
            path: self.path.clone(),
            message: e.to_string(),
        })?;
        let (offset, len) = (self.offset, line.len());
        line.push(b'\n');
        self.out
            .write_all(&line)
            .map_err(io_err("write", &self.path))?;
        self.offset += line.len() as u64;
        Ok(RankRows::Spilled {
            path: self.path.clone(),
            offset,
            len,
        })
    }

    /// Flushed, so the rows read back.
    pub fn finish(mut self) -> Result<(), FleetError> {
        self.out.flush().map_err(io_err("write", &self.path))
    }
}
