//! Earlier runs beside a run folder (its siblings under the same parent, `runs/` by default): when
//! they started, with which seed, on which targets. Read for the seed-reuse warning; a sibling that
//! is not a run folder, or cannot be read, is skipped.

use super::error::{PLAN_FILE, RUN_FILE};
use super::folder::RunHeader;
use rigel_plan::RunPlan;
use rigel_results::stats::PastRun;
use std::path::Path;

fn read<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    serde_json::from_str(&rigel_fs::read_no_follow(path, rigel_fs::limits::RUN_FILE_BYTES).ok()?)
        .ok()
}

/// The run folders beside `dir` (not `dir` itself), in no particular order.
pub fn past_runs(dir: &Path) -> Vec<PastRun> {
    let Some(parent) = dir.parent() else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let me = std::fs::canonicalize(dir).ok();
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && std::fs::canonicalize(p).ok() != me)
        .filter_map(|p| {
            let header: RunHeader = read(&p.join(RUN_FILE))?;
            let plan: RunPlan = read(&p.join(PLAN_FILE))?;
            Some(PastRun {
                folder: p.display().to_string(),
                started: header.started,
                seed: plan.run.seed,
                targets: header.targets.into_iter().map(|t| t.path).collect(),
            })
        })
        .collect()
}
