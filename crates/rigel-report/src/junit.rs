//! `junit.xml`: the `[expect]` verdicts for CI test reporters (`--format junit`, `rigel run
//! --junit FILE`); the XML itself is `expect::junit`'s.

use super::ReportError;
use rigel_results::ResultsDoc;
use std::path::Path;

/// The file `--format junit` writes into the output folder.
pub const JUNIT_FILE: &str = "junit.xml";

/// The JUnit XML of the verdicts judged on `doc`; `name` is the file it goes to (for errors).
pub fn junit_text(doc: &ResultsDoc, name: &Path) -> Result<String, ReportError> {
    let verdicts = rigel_judge::expect::evaluate(doc);
    rigel_judge::expect::junit(doc, &verdicts).map_err(|source| ReportError::Write {
        path: name.to_path_buf(),
        source,
    })
}

/// Writes the JUnit XML of `doc`'s verdicts to `path` (any folder, e.g. where CI collects it).
pub fn write_junit(doc: &ResultsDoc, path: &Path) -> Result<(), ReportError> {
    let xml = junit_text(doc, path)?;
    std::fs::write(path, xml).map_err(|source| ReportError::Write {
        path: path.to_path_buf(),
        source,
    })
}
