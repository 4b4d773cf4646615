//! What can go wrong while loading a run folder or rendering reports; each error names the file.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Fs(#[from] rigel_fs::FsError),
    /// The PDF could not be made (a chart usvg cannot read, the writer's own failure).
    #[error("PDF report: {0}")]
    Pdf(#[from] rigel_pdf::PdfError),
    /// The run folder could not be read (`rigel_record::load`: not a run, unreadable, broken, newer).
    #[error(transparent)]
    Record(#[from] rigel_record::RecordError),
    /// A template failed to parse or render: `name` is the template file, `line` where it failed.
    #[error("template {name}{}: {message}", line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Template {
        name: String,
        line: Option<usize>,
        message: String,
    },
    #[error("template path {path}: {reason}")]
    TemplatePath { path: PathBuf, reason: String },
    #[error("results histogram of {what} cannot be decoded: {reason}")]
    Histogram { what: String, reason: String },
    #[error("cannot serialize the results document: {0}")]
    Json(#[from] serde_json::Error),
    /// An error a user template's child renderer reported (its own message, any other kind).
    #[error("{0}")]
    Isolated(String),
}

impl ReportError {
    /// A template error with `better` as its message, when there is one.
    pub(crate) fn explained(mut self, better: Option<String>) -> Self {
        if let (ReportError::Template { message, .. }, Some(better)) = (&mut self, better) {
            *message = better;
        }
        self
    }

    /// Wraps a minijinja error with the template file and line it names (or `fallback` when it names none).
    pub(crate) fn template(err: &minijinja::Error, fallback: &str) -> Self {
        let mut message = err.detail().map_or_else(
            || err.kind().to_string(),
            |d| format!("{}: {d}", err.kind()),
        );
        // Errors raised inside a filter keep their cause; show it, since it says what was wrong.
        let mut source = std::error::Error::source(err);
        while let Some(cause) = source {
            message.push_str(&format!(": {cause}"));
            source = cause.source();
        }
        ReportError::Template {
            name: err.name().unwrap_or(fallback).to_string(),
            line: err.line(),
            message,
        }
    }
}
