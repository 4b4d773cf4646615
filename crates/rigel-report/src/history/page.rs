//! The history's pages: `index.html` rendered from `templates/html/history.html` with rigel's
//! filters, and every file written beneath the root's descriptor.

use super::model::{RunRow, Unread};
use crate::ReportError;
use crate::template::base_environment;
use rigel_fs::Dir;
use serde::Serialize;
use std::path::{Path, PathBuf};

const TEMPLATE: &str = include_str!("../../templates/html/history.html");
const STYLE: &str = include_str!("../../templates/html/style.css");

/// A spec's trend chart.
#[derive(Serialize)]
pub struct SpecChart {
    pub spec: String,
    pub runs: usize,
    pub svg: String,
}

#[derive(Serialize)]
struct Context<'a> {
    root: String,
    rows: &'a [RunRow],
    charts: &'a [SpecChart],
    /// Specs among the runs (a spec with one run has no trend chart).
    specs: usize,
    unread: &'a [Unread],
    rigel: &'static str,
}

pub fn index(
    root: &Path,
    rows: &[RunRow],
    charts: &[SpecChart],
    specs: usize,
    unread: &[Unread],
) -> Result<String, ReportError> {
    let mut env = base_environment();
    env.add_template("html/history.html", TEMPLATE)
        .map_err(|e| ReportError::template(&e, "html/history.html"))?;
    env.add_template("html/style.css", STYLE)
        .map_err(|e| ReportError::template(&e, "html/style.css"))?;
    let ctx = Context {
        root: root.display().to_string(),
        rows,
        charts,
        specs,
        unread,
        rigel: env!("CARGO_PKG_VERSION"),
    };
    env.get_template("html/history.html")
        .and_then(|t| t.render(&ctx))
        .map_err(|e| ReportError::template(&e, "html/history.html"))
}

/// Writes `files` (paths relative to `out`) atomically beneath `out`'s descriptor.
pub fn write(out: &Path, files: Vec<(PathBuf, Vec<u8>)>) -> Result<Vec<PathBuf>, ReportError> {
    let dir = Dir::open_owned(out)?;
    let mut written = Vec::with_capacity(files.len());
    for (rel, bytes) in files {
        let (sub, name) = match (rel.parent(), rel.file_name()) {
            (Some(p), Some(n)) if !p.as_os_str().is_empty() => {
                (Some(p.to_path_buf()), n.to_owned())
            }
            _ => (None, rel.as_os_str().to_owned()),
        };
        match sub {
            Some(p) => dir.sub(&p, true)?.write_atomic(&name, &bytes)?,
            None => dir.write_atomic(&name, &bytes)?,
        }
        written.push(dir.join(&rel));
    }
    Ok(written)
}
