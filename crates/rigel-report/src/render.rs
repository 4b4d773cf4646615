//! Rendering to files: the outputs the exporters produce (`export.rs`) written into the output
//! folder, every name kept inside it.

use super::export::{Files, render_shared_to_bytes, render_to_bytes};
use super::{ReportError, ReportOptions};
use rigel_fs::{Dir, FsError};
use rigel_results::ResultsDoc;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Renders the requested outputs into `opts.out_dir` and returns the paths written.
pub fn render(doc: &ResultsDoc, opts: &ReportOptions) -> Result<Vec<PathBuf>, ReportError> {
    write_files(render_to_bytes(doc, opts)?, opts)
}

/// [`render`] of a shared document, which templates then read without a copy.
pub fn render_shared(
    doc: &Arc<ResultsDoc>,
    opts: &ReportOptions,
) -> Result<Vec<PathBuf>, ReportError> {
    write_files(render_shared_to_bytes(doc, opts)?, opts)
}

fn write_files(files: Files, opts: &ReportOptions) -> Result<Vec<PathBuf>, ReportError> {
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
    let out = Dir::create_fresh(&opts.out_dir)
        .map(|(dir, _)| dir)
        .or_else(|e| match e {
            // An existing folder (the run folder itself, say) is fine when it is the user's own.
            FsError::NotEmpty { .. } => Dir::open_owned(&opts.out_dir),
            e => Err(e),
        })?;
    if opts.exclusive {
        return write_exclusive(&out, files);
    }
    let mut written = Vec::with_capacity(files.len());
    for (rel, text) in files {
        // Atomic, beneath the folder's descriptor: a link planted under a report's name is
        // replaced, never written through.
        out.write_atomic(&rel, &text)?;
        written.push(out.join(rel));
    }
    Ok(written)
}

/// Writes every file new (`O_EXCL`): where a name is taken (another run's files, in the same
/// minute), all of them get the first free `.N` before their last `_` (`ec2_20250101_1200.2_summary.txt`).
fn write_exclusive(out: &Dir, files: Files) -> Result<Vec<PathBuf>, ReportError> {
    for n in 1..1000u32 {
        let names: Vec<PathBuf> = files.iter().map(|(rel, _)| numbered(rel, n)).collect();
        if names.iter().any(|name| out.exists(name)) {
            continue;
        }
        let mut written = Vec::with_capacity(files.len());
        for (name, (_, text)) in names.iter().zip(&files) {
            match out.write_new(name, text) {
                Ok(()) => written.push(name.clone()),
                // Taken since the look above (a run beside this one): undo and try the next.
                Err(e) if e.raw_os_error() == Some(libc_eexist()) => break,
                Err(e) => return Err(e.into()),
            }
        }
        if written.len() == files.len() {
            return Ok(written.into_iter().map(|w| out.join(w)).collect());
        }
        for w in written {
            let _ = out.remove_file(w);
        }
    }
    Err(ReportError::Write {
        path: out.path().to_path_buf(),
        source: std::io::ErrorKind::AlreadyExists.into(),
    })
}

fn libc_eexist() -> i32 {
    std::io::Error::from(std::io::ErrorKind::AlreadyExists)
        .raw_os_error()
        .unwrap_or(17)
}

/// `rel` with `.n` before its last `_` (or its extension); `n` 1 is `rel` itself.
fn numbered(rel: &Path, n: u32) -> PathBuf {
    if n == 1 {
        return rel.to_path_buf();
    }
    let name = rel
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let at = name
        .rfind('_')
        .or_else(|| name.rfind('.'))
        .unwrap_or(name.len());
    rel.with_file_name(format!("{}.{n}{}", &name[..at], &name[at..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_names_keep_orions_kind_suffix() {
        let p = Path::new("ec2_20250101_1200_summary.txt");
        assert_eq!(numbered(p, 1), p);
        assert_eq!(numbered(p, 2), Path::new("ec2_20250101_1200.2_summary.txt"));
        assert_eq!(
            numbered(Path::new("report.md"), 3),
            Path::new("report.3.md")
        );
    }
}
