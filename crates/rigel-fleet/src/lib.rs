//! Fleet runs: one rigel per host, started by the cluster's own launcher (srun, mpirun, a
//! Kubernetes Indexed Job, pdsh), on one wall-clock schedule, merged exactly into one result.
//!
//! It sits after `record` in the pipeline, beside `runner`: it reads and writes run folders. The
//! fleet folder holds one ordinary run folder per rank (`rank-0007/`), the rendezvous files
//! (`fleet/`), and once merged the fleet's own `results.json` and reports.

#![forbid(unsafe_code)]

mod barrier;
mod index;
mod join;
mod launcher;
mod merge;
mod overlap;
mod plan_diff;
mod ranks;
mod rendezvous;
mod spill;

pub use barrier::Preconditioned;
pub use join::{FINISH_GRACE, Joined, join, leave};
pub use launcher::{Rank, detect};
pub use merge::{MergeError, merge, merge_and_render};
pub use overlap::MIN_OVERLAP_PCT;
pub use plan_diff::{comparable, first_difference};
pub use ranks::MAX_RANKS;
pub use rendezvous::{
    Agreed, MARGIN, READY_WAIT, SETUP_GAP, StartRule, agree, mark_done, slot, unix_ns, wait_done,
};

use serde::Serialize;
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    #[error("{message}")]
    Launcher { message: String },
    #[error("cannot {action} `{path}`: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{path}` is not a valid fleet file: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error(
        "rank {rank} refuses to start: its plan differs from rank 0's at {difference} (every host must run the same spec; only target paths may differ)"
    )]
    PlanDiffers { rank: u32, difference: String },
    #[error(
        "no schedule from rank 0 in `{path}` after {}s: is rank 0 running, and is the fleet folder on a filesystem every host shares? (without one, give every rank the same --start-at)",
        waited.as_secs()
    )]
    NoSchedule { path: PathBuf, waited: Duration },
    #[error(
        "`{}` is rank {rank}, outside the fleet: {why} (a stray folder? move it out of the fleet folder)",
        dir.display()
    )]
    StrayRank {
        dir: PathBuf,
        rank: u32,
        why: String,
    },
    #[error(transparent)]
    Fs(#[from] rigel_fs::FsError),
}

impl FleetError {
    /// The fleet folder's files say what cannot be (a corrupted count, a stray rank folder, a
    /// rank's results that do not read): bad input, not a failure of the run.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            FleetError::Invalid { .. } | FleetError::StrayRank { .. }
        )
    }
}

/// The run folder of `rank` inside the fleet folder.
pub fn rank_dir(fleet: &Path, rank: u32) -> PathBuf {
    fleet.join(format!("rank-{rank:04}"))
}

/// The rank a `rank-0007` folder name stands for.
pub fn rank_of(name: &str) -> Option<u32> {
    name.strip_prefix("rank-")?.parse().ok()
}

/// Where the rendezvous files live.
pub fn meta_dir(fleet: &Path) -> PathBuf {
    fleet.join("fleet")
}

/// A fleet folder: one that holds rendezvous files or rank folders.
pub fn is_fleet(dir: &Path) -> bool {
    meta_dir(dir).is_dir() || rank_dir(dir, 0).is_dir()
}

/// Records how many ranks the fleet has (the merge counts a rank that never started as missing).
pub fn write_ranks(fleet: &Path, ranks: u32) -> Result<(), FleetError> {
    write_json(&meta_dir(fleet).join("ranks.json"), &ranks)
}

/// The fleet's `fleet/` folder, made where missing: the fleet folder's own name and `fleet/`
/// are opened through no link (a shared filesystem is writable by many users).
pub(crate) fn open_meta(fleet: &Path) -> Result<rigel_fs::Dir, FleetError> {
    std::fs::create_dir_all(fleet).map_err(io_err("create", fleet))?;
    Ok(rigel_fs::Dir::open(fleet)?.sub("fleet", true)?)
}

/// `--start-at`: RFC 3339 (`2026-12-01T02:00:00Z`) or seconds since the Unix epoch.
pub fn parse_start_at(text: &str) -> Result<SystemTime, String> {
    if let Ok(secs) = text.trim().parse::<u64>() {
        return Ok(SystemTime::UNIX_EPOCH + Duration::from_secs(secs));
    }
    chrono::DateTime::parse_from_rfc3339(text.trim())
        .map(SystemTime::from)
        .map_err(|e| {
            format!("expected an RFC 3339 time (2026-12-01T02:00:00Z) or Unix seconds: {e}")
        })
}

fn io_err<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> FleetError + 'a {
    move |source| FleetError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, FleetError> {
    let text = std::fs::read_to_string(path).map_err(io_err("read", path))?;
    serde_json::from_str(&text).map_err(|e| FleetError::Invalid {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Writes through a temporary file renamed into place, so a reader on another host never sees
/// half a file.
fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), FleetError> {
    let text = serde_json::to_string(value).map_err(|e| FleetError::Invalid {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    // Every rendezvous file lives in `fleet/`: written beneath its descriptor, through a unique
    // O_EXCL temporary name renamed over the file (a planted link is replaced, never followed).
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(io_err("write", path)(
            std::io::ErrorKind::InvalidInput.into(),
        ));
    };
    let fleet = dir.parent().unwrap_or(Path::new(""));
    Ok(open_meta(fleet)?.write_atomic(name, text.as_bytes())?)
}

#[cfg(test)]
mod tests;
