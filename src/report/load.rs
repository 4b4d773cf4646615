//! Reading a run folder back: `results.json` when the run closed, else the document rebuilt from
//! `plan.json` and `results.jsonl` (an interrupted or running run), refusing documents from a newer
//! schema than this rigel knows.

use super::ReportError;
use crate::plan::{RunPlan, SCHEMA_VERSION};
use crate::stats::{HostInfo, PointResult, ResultsDoc, TargetInfo};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A loaded run folder and what the caller should tell the user about it.
#[derive(Clone, Debug)]
pub struct RunFolder {
    pub doc: ResultsDoc,
    /// Every planned point finished and the run was closed.
    pub complete: bool,
    /// Why the document is not whole, in words for the terminal (empty when complete).
    pub notes: Vec<String>,
}

/// Loads the results document of a run folder (see [`load_run_folder_status`] for the notes).
pub fn load_run_folder(dir: &Path) -> Result<ResultsDoc, ReportError> {
    load_run_folder_status(dir).map(|f| f.doc)
}

fn read(path: &Path) -> Result<String, ReportError> {
    std::fs::read_to_string(path).map_err(|source| ReportError::Read {
        path: path.to_path_buf(),
        source,
    })
}

fn bad_json(path: &Path, line: usize, e: &serde_json::Error) -> ReportError {
    ReportError::BadJson {
        path: path.to_path_buf(),
        line: line.max(1),
        message: e.to_string(),
    }
}

/// Rejects a document whose `schema_version` is newer than ours, before its shape can confuse serde.
fn check_schema(path: &Path, value: &serde_json::Value) -> Result<(), ReportError> {
    if let Some(found) = value
        .get("schema_version")
        .and_then(serde_json::Value::as_u64)
    {
        if found > u64::from(SCHEMA_VERSION) {
            return Err(ReportError::NewerSchema {
                path: path.to_path_buf(),
                found: u32::try_from(found).unwrap_or(u32::MAX),
                supported: SCHEMA_VERSION,
            });
        }
    }
    Ok(())
}

pub fn load_run_folder_status(dir: &Path) -> Result<RunFolder, ReportError> {
    let results = dir.join("results.json");
    if results.is_file() {
        let text = read(&results)?;
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| bad_json(&results, e.line(), &e))?;
        check_schema(&results, &value)?;
        let doc: ResultsDoc =
            serde_json::from_str(&text).map_err(|e| bad_json(&results, e.line(), &e))?;
        let mut notes = Vec::new();
        if doc.points.len() < doc.plan.points.len() {
            notes.push(format!(
                "{}: {} of {} planned points finished; the reports show those",
                results.display(),
                doc.points.len(),
                doc.plan.points.len()
            ));
        }
        let complete = notes.is_empty() && !doc.finished.is_empty();
        return Ok(RunFolder {
            doc,
            complete,
            notes,
        });
    }
    let plan_path = dir.join("plan.json");
    if !plan_path.is_file() {
        return Err(ReportError::NotARunFolder {
            path: dir.to_path_buf(),
        });
    }
    rebuild(dir, &plan_path)
}

/// A `results.jsonl` line that opens the run instead of recording a point (optional).
#[derive(Deserialize, Default)]
#[serde(default)]
struct Header {
    rigel_version: String,
    command: Vec<String>,
    started: String,
    host: HostInfo,
    targets: Vec<TargetInfo>,
}

fn load_plan(path: &Path) -> Result<RunPlan, ReportError> {
    let text = read(path)?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad_json(path, e.line(), &e))?;
    check_schema(path, &value)?;
    // `plan.json` may hold the plan itself or wrap it with a schema version.
    let plan_value = match value.get("plan") {
        Some(inner) if inner.is_object() => inner.clone(),
        _ => value,
    };
    serde_json::from_value(plan_value).map_err(|e| bad_json(path, e.line(), &e))
}

fn rebuild(dir: &Path, plan_path: &Path) -> Result<RunFolder, ReportError> {
    let plan = load_plan(plan_path)?;
    let jsonl: PathBuf = dir.join("results.jsonl");
    let mut notes = vec![format!(
        "{} is missing: the run did not finish; rebuilt from plan.json and results.jsonl",
        dir.join("results.json").display()
    )];
    let mut header = Header::default();
    let mut points: Vec<PointResult> = Vec::new();
    if jsonl.is_file() {
        let text = read(&jsonl)?;
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let value: serde_json::Value = match serde_json::from_str(line) {
                Ok(v) => v,
                // A run killed while writing leaves a torn last line: the points before it stand.
                Err(_) if i + 1 == lines.len() => {
                    notes.push(format!(
                        "{}: line {} is cut short and was skipped",
                        jsonl.display(),
                        i + 1
                    ));
                    continue;
                }
                Err(e) => return Err(bad_json(&jsonl, i + 1, &e)),
            };
            check_schema(&jsonl, &value)?;
            if value.get("point").is_some() {
                let p = serde_json::from_value(value).map_err(|e| bad_json(&jsonl, i + 1, &e))?;
                // A resumed run may repeat a point; the later line wins.
                match points
                    .iter_mut()
                    .find(|q: &&mut PointResult| q.point.id == p_id(&p))
                {
                    Some(q) => *q = p,
                    None => points.push(p),
                }
            } else if value.get("schema_version").is_some() {
                header = serde_json::from_value(value).map_err(|e| bad_json(&jsonl, i + 1, &e))?;
            }
        }
    } else {
        notes.push(format!("{} is missing: no point finished", jsonl.display()));
    }
    notes.push(format!(
        "{} of {} planned points finished",
        points.len(),
        plan.points.len()
    ));
    let started = if header.started.is_empty() {
        points
            .first()
            .map(|p| p.started.clone())
            .unwrap_or_default()
    } else {
        header.started
    };
    let spec_toml = std::fs::read_to_string(dir.join("spec.toml")).unwrap_or_default();
    let doc = ResultsDoc {
        schema_version: SCHEMA_VERSION,
        rigel_version: header.rigel_version,
        command: header.command,
        started,
        finished: String::new(),
        host: header.host,
        targets: header.targets,
        spec_toml,
        plan,
        points,
    };
    Ok(RunFolder {
        doc,
        complete: false,
        notes,
    })
}

fn p_id(p: &PointResult) -> u32 {
    p.point.id
}
