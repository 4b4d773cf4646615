//! Rendering to files: the outputs the exporters produce (`export.rs`) written into the output
//! folder, every name kept inside it.

use super::export::{render_shared_to_strings, render_to_strings};
use super::{ReportError, ReportOptions};
use rigel_results::ResultsDoc;
use std::path::PathBuf;
use std::sync::Arc;

/// Renders the requested outputs into `opts.out_dir` and returns the paths written.
pub fn render(doc: &ResultsDoc, opts: &ReportOptions) -> Result<Vec<PathBuf>, ReportError> {
    write_files(render_to_strings(doc, opts)?, opts)
}

/// [`render`] of a shared document, which templates then read without a copy.
pub fn render_shared(
    doc: &Arc<ResultsDoc>,
    opts: &ReportOptions,
) -> Result<Vec<PathBuf>, ReportError> {
    write_files(render_shared_to_strings(doc, opts)?, opts)
}

fn write_files(
    files: Vec<(PathBuf, String)>,
    opts: &ReportOptions,
) -> Result<Vec<PathBuf>, ReportError> {
    // Names come from templates and test names: keep every file inside the output folder.
    if let Some((rel, _)) = files.iter().find(|(rel, _)| {
        rel.components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
    }) {
        return Err(ReportError::TemplatePath {
            path: rel.clone(),
            reason: "an output name must stay inside the output folder (no `..`, no absolute path)"
                .into(),
        });
    }
    let mut written = Vec::with_capacity(files.len());
    for (rel, text) in files {
        let path = opts.out_dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| ReportError::Write {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        std::fs::write(&path, text).map_err(|source| ReportError::Write {
            path: path.clone(),
            source,
        })?;
        written.push(path);
    }
    Ok(written)
}
