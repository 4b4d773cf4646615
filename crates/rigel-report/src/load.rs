//! Reading a run folder back for reports: `results.json` when the run closed, else the document that
//! `record` rebuilds from `run.json`, `plan.json` and `results.jsonl` (an interrupted or running run).
//! A document from a newer schema is refused before its shape can confuse the parser.

use super::ReportError;
use rigel_plan::SCHEMA_VERSION;
use rigel_record::{self as record, RESULTS_FILE, RUN_FILE};
use rigel_results::ResultsDoc;
use std::path::Path;

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

fn read_value(path: &Path) -> Result<serde_json::Value, ReportError> {
    let text = rigel_fs::read_no_follow(path, rigel_fs::limits::RUN_FILE_BYTES)?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| ReportError::BadJson {
            path: path.to_path_buf(),
            line: e.line().max(1),
            message: e.to_string(),
        })?;
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
    Ok(value)
}

pub fn load_run_folder_status(dir: &Path) -> Result<RunFolder, ReportError> {
    let results = dir.join(RESULTS_FILE);
    let mut notes = Vec::new();
    // Straight into the model when it reads (twice as fast as through a `Value`, which
    // `rigel history` feels over hundreds of folders); through a `Value` only to explain a failure
    // (a newer schema, the line of a syntax error).
    // Through no link, bounded, and never a FIFO or a device (refused here, not waited on).
    let text = match rigel_fs::read_no_follow(&results, rigel_fs::limits::RUN_FILE_BYTES) {
        Err(e @ rigel_fs::FsError::NotAFile { .. }) => return Err(e.into()),
        read => read.ok(),
    };
    let direct = text
        .and_then(|text| serde_json::from_str::<ResultsDoc>(&text).ok())
        .filter(|d| d.schema_version() <= SCHEMA_VERSION);
    // Figures that cannot be (negative rates, min > max, a point twice or not the plan's).
    let checked = |doc: ResultsDoc| {
        rigel_results::check::doc(&doc).map_err(|e| ReportError::BadJson {
            path: results.clone(),
            line: 1,
            message: e.to_string(),
        })?;
        Ok::<_, ReportError>(doc)
    };
    let doc: ResultsDoc = if let Some(doc) = direct {
        checked(doc)?
    } else if results.is_file() {
        let value = read_value(&results)?;
        let doc: ResultsDoc = serde_json::from_value(value).map_err(|e| ReportError::BadJson {
            path: results.clone(),
            line: 1,
            message: e.to_string(),
        })?;
        checked(doc)?
    } else {
        let header = dir.join(RUN_FILE);
        if header.is_file() {
            read_value(&header)?;
        }
        let doc = record::load(dir)?;
        notes.push(format!(
            "{} is missing: the run did not finish (interrupted, or still running); \
             rebuilt from the points it recorded",
            results.display()
        ));
        doc
    };
    if doc.points().len() < doc.plan().points.len() {
        notes.push(format!(
            "{} of {} planned points finished; the reports show those",
            doc.points().len(),
            doc.plan().points.len()
        ));
    }
    let complete = notes.is_empty() && !doc.finished().is_empty();
    Ok(RunFolder {
        doc,
        complete,
        notes,
    })
}
