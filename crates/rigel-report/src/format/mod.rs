//! The formats written without a template: the results document as JSON, the `[expect]` verdicts
//! as JUnit XML, and HdrHistogram interval logs (`hlog`). ORION's CSVs are templates (`orion/`).

pub mod fio_json;
pub(crate) mod hlog;
pub(crate) mod junit;
mod rows_csv;

pub use junit::{JUNIT_FILE, junit_text, write_junit};
pub(crate) use rows_csv::{ROWS_CSV, rows_csv};

// `hlog` names the crate's error as its parent's.
use crate::ReportError;

use rigel_results::ResultsDoc;
use std::path::PathBuf;

/// `report.json`: the results document itself, as `results.json` holds it (verdicts and answers).
pub fn json(doc: &ResultsDoc) -> Result<(PathBuf, String), ReportError> {
    let verdicts = rigel_judge::expect::evaluate(doc);
    let answers = rigel_judge::answers::evaluate(doc);
    let file = rigel_record::ResultsFile::new(doc, &verdicts, &answers);
    let mut text = serde_json::to_string_pretty(&file)?;
    text.push('\n');
    Ok(("report.json".into(), text))
}
