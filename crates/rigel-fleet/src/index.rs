//! Where each point's result lies in a rank's `results.jsonl`: one pass of the results' streaming
//! reader keeps, per point, the offset and length of its last complete line with its status and
//! window, and nothing of its figures. The merge then reads one point's line from every rank at a
//! time.

use super::FleetError;
use rigel_record::POINTS_FILE;
use rigel_results::PointResult;
use rigel_results::stream::{self, LineHead as Entry};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// A rank's `results.jsonl`, indexed: per point, the place of its last complete line.
#[derive(Debug, Default)]
pub struct RankIndex {
    path: PathBuf,
    /// Sorted by point id.
    entries: Vec<Entry>,
}

impl RankIndex {
    /// Indexes `dir/results.jsonl` (none yet: an empty index). A later line for a point (redone by
    /// a fleet's resume) replaces the earlier one; a torn last line is skipped, a damaged one refused.
    pub fn read(dir: &Path) -> Result<RankIndex, FleetError> {
        let path = dir.join(POINTS_FILE);
        let mut entries: Vec<Entry> = Vec::new();
        let file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(RankIndex { path, entries });
            }
            Err(source) => return Err(read_error(&path, source)),
        };
        for entry in stream::heads(file) {
            let entry = entry.map_err(|e| read_error(&path, e))?;
            match entries.binary_search_by_key(&entry.id, |e| e.id) {
                Ok(i) => entries[i] = entry,
                Err(i) => entries.insert(i, entry),
            }
        }
        Ok(RankIndex { path, entries })
    }

    /// The points found, by id.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn get(&self, id: u32) -> Option<&Entry> {
        let i = self.entries.binary_search_by_key(&id, |e| e.id).ok()?;
        self.entries.get(i)
    }

    /// The full result of point `id`, read from its line (none when the rank lacks it).
    pub fn load(&self, id: u32) -> Result<Option<PointResult>, FleetError> {
        let mut line = Vec::new();
        if !self.read_line(id, &mut line)? {
            return Ok(None);
        }
        serde_json::from_slice(&line)
            .map(Some)
            .map_err(|e| self.invalid(id, e))
    }

    /// Reads point `id`'s line into `line` (false when the rank lacks it).
    pub fn read_line(&self, id: u32, line: &mut Vec<u8>) -> Result<bool, FleetError> {
        let Some(entry) = self.get(id) else {
            return Ok(false);
        };
        let file = File::open(&self.path).map_err(|e| read_error(&self.path, e))?;
        line.resize(entry.len, 0);
        file.read_exact_at(line, entry.offset)
            .map_err(|e| read_error(&self.path, e))?;
        Ok(true)
    }

    /// A point whose figures cannot be (a negative rate, min > max).
    pub fn impossible(&self, e: rigel_results::check::Impossible) -> FleetError {
        FleetError::Invalid {
            path: self.path.clone(),
            message: e.to_string(),
        }
    }

    /// A line that does not read as a point's result.
    pub fn invalid(&self, id: u32, e: serde_json::Error) -> FleetError {
        FleetError::Invalid {
            path: self.path.clone(),
            message: format!("point {id}: {e}"),
        }
    }
}

/// A damaged line (`InvalidData`, from the stream's reader) is the folder's invalid content, as
/// `rigel_record::load` calls it; any other error is the reading's.
fn read_error(path: &Path, source: std::io::Error) -> FleetError {
    if source.kind() == std::io::ErrorKind::InvalidData {
        return FleetError::Invalid {
            path: path.to_path_buf(),
            message: source.to_string(),
        };
    }
    FleetError::Io {
        action: "read",
        path: path.to_path_buf(),
        source,
    }
}
