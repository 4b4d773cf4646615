//! Where each point's result lies in a rank's `results.jsonl`: one pass over the file keeps, per
//! point, the offset and length of its last complete line with its status and window, and nothing
//! of its figures. The merge then reads one point's line from every rank at a time.

use super::FleetError;
use rigel_record::POINTS_FILE;
use rigel_results::stats::{PointResult, PointStatus, WallWindow};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// One point's last complete line.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub id: u32,
    pub ok: bool,
    pub window: Option<WallWindow>,
    offset: u64,
    len: usize,
}

/// A rank's `results.jsonl`, indexed.
#[derive(Debug, Default)]
pub struct RankIndex {
    path: PathBuf,
    /// Sorted by point id.
    entries: Vec<Entry>,
}

/// What the index reads of a line: everything else is skipped unparsed into figures.
#[derive(serde::Deserialize)]
struct Light {
    point: LightPoint,
    status: PointStatus,
    #[serde(default)]
    window: Option<WallWindow>,
}

#[derive(serde::Deserialize)]
struct LightPoint {
    id: u32,
}

impl RankIndex {
    /// Indexes `dir/results.jsonl` (none yet: an empty index). A later line for a point (redone by
    /// a fleet's resume) replaces the earlier one; a torn last line is skipped.
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
        let mut reader = BufReader::with_capacity(256 * 1024, file);
        let mut line = Vec::new();
        let mut offset = 0u64;
        loop {
            line.clear();
            let n = reader
                .read_until(b'\n', &mut line)
                .map_err(|e| read_error(&path, e))?;
            if n == 0 {
                break;
            }
            if line.ends_with(b"\n")
                && let Ok(p) = serde_json::from_slice::<Light>(&line)
            {
                let entry = Entry {
                    id: p.point.id,
                    ok: matches!(p.status, PointStatus::Ok),
                    window: p.window,
                    offset,
                    len: n,
                };
                match entries.binary_search_by_key(&entry.id, |e| e.id) {
                    Ok(i) => entries[i] = entry,
                    Err(i) => entries.insert(i, entry),
                }
            }
            offset += n as u64;
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

    /// A line that does not read as a point's result.
    pub fn invalid(&self, id: u32, e: serde_json::Error) -> FleetError {
        FleetError::Invalid {
            path: self.path.clone(),
            message: format!("point {id}: {e}"),
        }
    }
}

fn read_error(path: &Path, source: std::io::Error) -> FleetError {
    FleetError::Io {
        action: "read",
        path: path.to_path_buf(),
        source,
    }
}
