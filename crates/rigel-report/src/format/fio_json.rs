//! placeholder
use crate::ReportError;
use rigel_results::ResultsDoc;
pub fn document(_doc: &ResultsDoc) -> Result<String, ReportError> { Ok(String::new()) }
