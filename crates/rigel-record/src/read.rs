//! Reading a run folder back: the one reader that `rigel report`, `history`, `compare`, the fleet's
//! merge and `--resume` all go through, so that a torn, partial or foreign folder gets the same
//! answer from each. `results.json` when the run closed; else the document rebuilt from `run.json`,
//! `plan.json` and `results.jsonl` (an interrupted or running run). A file from a newer schema is
//! refused before its shape can confuse the parser.

use super::error::{PLAN_FILE, POINTS_FILE, RESULTS_FILE, RUN_FILE, RecordError, SPEC_FILE};
use super::points;
use rigel_fs::limits::RUN_FILE_BYTES;
use rigel_plan::{RunPlan, SCHEMA_VERSION};
use rigel_results::{PointResult, ResultsDoc, RunHeader};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A run folder read back, and what to tell the user about it.
#[derive(Clone, Debug)]
pub struct LoadedRun {
    pub doc: ResultsDoc,
    /// Every planned point finished and the run was closed.
    pub complete: bool,
    /// Why the document is not whole, in words for the terminal (empty when complete).
    pub notes: Vec<String>,
}

/// What a run folder records before it is closed: its header, spec, plan and finished points.
pub struct Recorded {
    pub header: RunHeader,
    pub spec_toml: String,
    pub plan: RunPlan,
    /// The latest record of each point, in the order they finished (a torn last line skipped).
    pub points: Vec<PointResult>,
}

/// Loads a run folder: `results.json` when present, else the document rebuilt from what the run
/// recorded (an interrupted run; `finished` is then empty), with notes saying how whole it is.
pub fn load(dir: &Path) -> Result<LoadedRun, RecordError> {
    let results = dir.join(RESULTS_FILE);
    let mut notes = Vec::new();
    // Whatever its type: a link, a FIFO or a device in its place is refused by the read, saying so.
    let doc = if results.symlink_metadata().is_ok() {
        load_results_file(&results)?
    } else {
        let r = load_recorded(dir)?;
        notes.push(format!(
            "{} is missing: the run did not finish (interrupted, or still running); \
             rebuilt from the points it recorded",
            results.display()
        ));
        ResultsDoc::new(r.header, r.spec_toml, r.plan, r.points, String::new())
    };
    if doc.points().len() < doc.plan().points.len() {
        notes.push(format!(
            "{} of {} planned points finished; the reports show those",
            doc.points().len(),
            doc.plan().points.len()
        ));
    }
    let complete = notes.is_empty() && !doc.finished().is_empty();
    Ok(LoadedRun {
        doc,
        complete,
        notes,
    })
}

/// Reads a `results.json` (a closed folder's, or one named alone: `rigel compare` takes a file),
/// refusing a newer schema and figures that cannot be (negative rates, min > max, a point twice or
/// not the plan's).
pub fn load_results_file(path: &Path) -> Result<ResultsDoc, RecordError> {
    let doc: ResultsDoc = read_versioned(path, ResultsDoc::schema_version)?;
    rigel_results::check::doc(&doc).map_err(|e| RecordError::Invalid {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    Ok(doc)
}

/// What an unclosed folder holds, its points checked against its plan: the document `load`
/// rebuilds, and what `--resume` continues.
pub fn load_recorded(dir: &Path) -> Result<Recorded, RecordError> {
    let (header, spec_toml, plan) = load_parts(dir)?;
    let points = finished_points(dir)?;
    plan_holds(dir, &plan, &points)?;
    Ok(Recorded {
        header,
        spec_toml,
        plan,
        points,
    })
}

/// Reads the header, spec and plan of a folder (to resume it, to merge a fleet's rank, to verify
/// its journal); refuses a folder without them.
pub fn load_parts(dir: &Path) -> Result<(RunHeader, String, RunPlan), RecordError> {
    if !is_recording(dir) {
        return Err(RecordError::NotARun {
            dir: dir.to_path_buf(),
        });
    }
    let header: RunHeader = read_versioned(&dir.join(RUN_FILE), |h: &RunHeader| h.schema_version)?;
    let spec_path = dir.join(SPEC_FILE);
    let spec = rigel_fs::read_no_follow(&spec_path, RUN_FILE_BYTES)?;
    Ok((header, spec, read_json(&dir.join(PLAN_FILE))?))
}

/// The points of `results.jsonl` are the plan's (`plan.json`): a point the plan does not hold, or
/// holds otherwise, is refused naming both files.
fn plan_holds(dir: &Path, plan: &RunPlan, points: &[PointResult]) -> Result<(), RecordError> {
    rigel_results::check::against_plan(plan, points).map_err(|e| RecordError::Invalid {
        path: dir.join(POINTS_FILE),
        message: format!("{e} (against `{}`)", dir.join(PLAN_FILE).display()),
    })
}

/// The latest record of each point in `results.jsonl`, in the order they finished; a torn
/// (unterminated or unparsable) last line from a crash is skipped.
pub fn finished_points(dir: &Path) -> Result<Vec<PointResult>, RecordError> {
    let path = dir.join(POINTS_FILE);
    let file = match rigel_fs::open_no_follow(&path) {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::NOENT.raw_os_error()) => {
            return Ok(Vec::new());
        }
        Err(e) => return Err(e.into()),
    };
    let lines = points::read_lines(std::io::BufReader::with_capacity(1 << 20, file))
        .map_err(|e| points::read_error(&path, e))?;
    Ok(points::latest(lines.points))
}

/// Whether `dir` is a run folder: closed (`results.json`) or recording (`run.json` and `plan.json`).
pub fn is_run_folder(dir: &Path) -> bool {
    dir.join(RESULTS_FILE).is_file() || is_recording(dir)
}

fn is_recording(dir: &Path) -> bool {
    dir.join(RUN_FILE).is_file() && dir.join(PLAN_FILE).is_file()
}

/// A run folder's spec name and start, read from its small files alone: what orders hundreds of
/// folders (`rigel history`) before any is loaded.
pub struct RunHead {
    pub dir: PathBuf,
    pub spec: String,
    pub started: String,
}

/// The folder's spec and start: from `run.json` (and `plan.json`'s name when the run predates
/// provenance), or from `results.json` alone (a fleet's merged folder). A folder whose small files
/// do not read is loaded whole, so that its error is [`load`]'s, as every other command says it.
pub fn head(dir: &Path) -> Result<RunHead, RecordError> {
    light_head(dir).or_else(|_| {
        let run = load(dir)?;
        Ok(RunHead {
            dir: dir.to_path_buf(),
            spec: run.doc.plan().name.clone(),
            started: run.doc.started().to_owned(),
        })
    })
}

fn light_head(dir: &Path) -> Result<RunHead, RecordError> {
    #[derive(Deserialize)]
    struct Header {
        #[serde(default)]
        started: String,
        #[serde(default)]
        provenance: Option<Provenance>,
    }
    #[derive(Deserialize)]
    struct Provenance {
        spec: Named,
    }
    #[derive(Deserialize)]
    struct Named {
        name: String,
    }
    #[derive(Deserialize)]
    struct Results {
        #[serde(default)]
        started: String,
        plan: Named,
    }
    let run = dir.join(RUN_FILE);
    let (spec, started) = if run.is_file() {
        let h: Header = read_json(&run)?;
        let spec = match h.provenance {
            Some(p) => p.spec.name,
            None => read_json::<Named>(&dir.join(PLAN_FILE))?.name,
        };
        (spec, h.started)
    } else {
        let r: Results = read_json(&dir.join(RESULTS_FILE))?;
        (r.plan.name, r.started)
    };
    Ok(RunHead {
        dir: dir.to_path_buf(),
        spec,
        started,
    })
}

/// Reads a JSON file of a versioned shape: straight into the model when it reads (twice as fast as
/// through a `Value`, which `rigel history` feels over hundreds of folders); through a `Value` only
/// to explain a failure, so that a newer schema is named as such rather than as a shape error.
fn read_versioned<T: serde::de::DeserializeOwned>(
    path: &Path,
    version: impl Fn(&T) -> u32,
) -> Result<T, RecordError> {
    // Through no link, bounded, and never a FIFO or a device (refused here, not waited on).
    let bytes = rigel_fs::read_no_follow(path, RUN_FILE_BYTES)?.into_bytes();
    let typed = serde_json::from_slice::<T>(&bytes);
    let found = match &typed {
        Ok(value) => u64::from(version(value)),
        Err(_) => serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .and_then(|v| v.get("schema_version")?.as_u64())
            .unwrap_or(0),
    };
    // Versions count from 1: a 0 is no rigel's file (a forged or hand-made one).
    if typed.is_ok() && found == 0 {
        return Err(RecordError::Invalid {
            path: path.to_path_buf(),
            message: "schema_version 0: rigel's versions start at 1".into(),
        });
    }
    if found > u64::from(SCHEMA_VERSION) {
        return Err(RecordError::NewerSchema {
            path: path.to_path_buf(),
            found: u32::try_from(found).unwrap_or(u32::MAX),
        });
    }
    typed.map_err(|e| invalid(path, &e))
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, RecordError> {
    let bytes = rigel_fs::read_no_follow(path, RUN_FILE_BYTES)?.into_bytes();
    serde_json::from_slice(&bytes).map_err(|e| invalid(path, &e))
}

fn invalid(path: &Path, e: &serde_json::Error) -> RecordError {
    RecordError::Invalid {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}
