//! Finding the run folders under a root (a folder holding `results.json`, or `run.json` with
//! `plan.json`; nothing below one is searched, and links are not followed) and reading what orders
//! them: the spec's name and the start time, from the small files beside the results.

use crate::ReportError;
use rigel_record::{PLAN_FILE, RESULTS_FILE, RUN_FILE};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// How deep below the root run folders are looked for (`runs/host/spec/run-3`).
const MAX_DEPTH: usize = 6;

/// A run folder's spec and start.
pub struct Head {
    pub dir: PathBuf,
    pub spec: String,
    pub started: String,
}

pub fn run_folders(root: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let mut out = Vec::new();
    walk(root, 0, &mut out).map_err(|source| ReportError::Read {
        path: root.to_path_buf(),
        source,
    })?;
    out.sort();
    Ok(out)
}

fn is_run(dir: &Path) -> bool {
    dir.join(RESULTS_FILE).is_file()
        || (dir.join(RUN_FILE).is_file() && dir.join(PLAN_FILE).is_file())
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if is_run(dir) {
        out.push(dir.to_path_buf());
        return Ok(());
    }
    if depth >= MAX_DEPTH {
        return Ok(());
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        // The root must be readable; a folder below it that is not is passed over.
        Err(e) if depth == 0 => return Err(e),
        Err(_) => return Ok(()),
    };
    for e in entries.flatten() {
        // `file_type` does not follow links: a linked folder is not entered.
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            walk(&e.path(), depth + 1, out)?;
        }
    }
    Ok(())
}

#[derive(Deserialize)]
struct LightHeader {
    #[serde(default)]
    started: String,
    #[serde(default)]
    provenance: Option<LightProvenance>,
}

#[derive(Deserialize)]
struct LightProvenance {
    spec: LightName,
}

#[derive(Deserialize)]
struct LightName {
    name: String,
}

#[derive(Deserialize)]
struct LightResults {
    #[serde(default)]
    started: String,
    plan: LightName,
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, ReportError> {
    // Through no link (a results.json linked out of the tree is not quoted), never a FIFO, bounded.
    let text = rigel_fs::read_no_follow(path, rigel_fs::limits::RUN_FILE_BYTES)?;
    serde_json::from_str(&text).map_err(|e| ReportError::BadJson {
        path: path.to_path_buf(),
        line: e.line().max(1),
        message: e.to_string(),
    })
}

/// The folder's spec and start: from `run.json` (and `plan.json`'s name when the run predates
/// provenance), or from `results.json` alone (a fleet's merged folder).
pub fn head(dir: &Path) -> Result<Head, ReportError> {
    let run = dir.join(RUN_FILE);
    if run.is_file() {
        let h: LightHeader = read_json(&run)?;
        let spec = match h.provenance {
            Some(p) => p.spec.name,
            None => read_json::<LightName>(&dir.join(PLAN_FILE))?.name,
        };
        return Ok(Head {
            dir: dir.to_path_buf(),
            spec,
            started: h.started,
        });
    }
    let r: LightResults = read_json(&dir.join(RESULTS_FILE))?;
    Ok(Head {
        dir: dir.to_path_buf(),
        spec: r.plan.name,
        started: r.started,
    })
}
