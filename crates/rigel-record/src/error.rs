//! What reading or writing a run folder can fail with, and the names of the folder's files.

use rigel_plan::SCHEMA_VERSION;
use std::path::{Path, PathBuf};

pub const SPEC_FILE: &str = "spec.toml";
pub const PLAN_FILE: &str = "plan.json";
pub const RUN_FILE: &str = "run.json";
pub const POINTS_FILE: &str = "results.jsonl";
pub const RESULTS_FILE: &str = "results.json";

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot {action} `{path}`: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{path}` is not a valid rigel file: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error(
        "`{path}` has schema version {found}, newer than this rigel understands ({SCHEMA_VERSION}): upgrade rigel to read it"
    )]
    NewerSchema { path: PathBuf, found: u32 },
    #[error("`{dir}` is not a rigel run folder (no {PLAN_FILE} or {RUN_FILE})")]
    NotARun { dir: PathBuf },
    #[error("`{dir}` already holds a run; pick another --out, or finish it with --resume")]
    AlreadyARun { dir: PathBuf },
    #[error("`{dir}` is in use by another rigel{holder}; wait for it to end, or stop it")]
    Busy { dir: PathBuf, holder: String },
    #[error(transparent)]
    Fs(#[from] rigel_fs::FsError),
}

pub(crate) fn io<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> RecordError + 'a {
    move |source| RecordError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}
