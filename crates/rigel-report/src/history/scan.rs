//! Finding the run folders under a root (what `rigel_record::is_run_folder` calls one; nothing
//! below one is searched, and links are not followed). What orders them, the spec's name and the
//! start time, is read by the record's reader (`rigel_record::head`).

use crate::ReportError;
use std::path::{Path, PathBuf};

/// How deep below the root run folders are looked for (`runs/host/spec/run-3`).
const MAX_DEPTH: usize = 6;

pub fn run_folders(root: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let mut out = Vec::new();
    walk(root, 0, &mut out).map_err(|source| ReportError::Read {
        path: root.to_path_buf(),
        source,
    })?;
    out.sort();
    Ok(out)
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if rigel_record::is_run_folder(dir) {
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
