//! Rendering to files: the outputs the exporters produce (`export.rs`) written into the output
//! folder, and the loader of a user's own template file or folder.

use super::env::base_environment;
use super::export::{render_shared_to_strings, render_to_strings};
use super::user_loader;
use super::{ReportError, ReportOptions};
use minijinja::{Environment, Value};
use rigel_results::ResultsDoc;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(super) fn render_one(
    env: &Environment,
    name: &str,
    ctx: &Value,
) -> Result<String, ReportError> {
    env.get_template(name)
        .and_then(|t| t.render(ctx))
        .map_err(|e| {
            ReportError::template(&e, name).explained(super::undefined::explain(env, &e, ctx))
        })
}

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

const TEMPLATE_SUFFIXES: [&str; 3] = [".j2", ".jinja2", ".jinja"];

/// A user's template file or folder. In a folder every file renders except those under a name
/// starting with `_` (partials and macros for `{% include %}` / `{% import %}`); the output keeps the
/// relative path, drops a `.j2`/`.jinja` suffix, and may itself use `{{ }}` (`{{ orion.prefix }}.txt`).
pub(super) fn render_user(path: &Path, ctx: &Value) -> Result<Vec<(PathBuf, String)>, ReportError> {
    let meta = std::fs::metadata(path).map_err(|source| ReportError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    // The path given is the user's own choice, link or not; inside it, links are refused.
    let path = &std::fs::canonicalize(path).map_err(|source| ReportError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let (root, names) = if meta.is_dir() {
        let mut names = Vec::new();
        collect_templates(path, path, &mut names)?;
        names.sort();
        (path.to_path_buf(), names)
    } else {
        let root = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        (root, vec![name])
    };
    if names.is_empty() {
        return Err(ReportError::TemplatePath {
            path: path.to_path_buf(),
            reason: "holds no template files".into(),
        });
    }
    let mut env = base_environment();
    env.set_loader(move |name| user_loader::load(&root, name));
    env.set_fuel(Some(user_loader::FUEL));
    let mut out = Vec::new();
    for name in names {
        let text = user_loader::render_bounded(&env, &name, ctx)?;
        let mut target = name.clone();
        for suffix in TEMPLATE_SUFFIXES {
            if let Some(stripped) = target.strip_suffix(suffix) {
                target = stripped.to_string();
                break;
            }
        }
        if target.contains("{{") {
            target = env
                .render_str(&target, ctx)
                .map_err(|e| ReportError::template(&e, &name))?;
        }
        out.push((PathBuf::from(target), text));
    }
    Ok(out)
}

fn collect_templates(root: &Path, dir: &Path, names: &mut Vec<String>) -> Result<(), ReportError> {
    let entries = std::fs::read_dir(dir).map_err(|source| ReportError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    for entry in entries {
        let entry = entry.map_err(|source| ReportError::Read {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = entry.path();
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if file_name.starts_with('_') || file_name.starts_with('.') {
            continue;
        }
        let kind = entry.file_type().map_err(|source| ReportError::Read {
            path: path.clone(),
            source,
        })?;
        if kind.is_symlink() {
            return Err(ReportError::TemplatePath {
                path,
                reason: user_loader::SYMLINK_REFUSED.into(),
            });
        }
        if kind.is_dir() {
            collect_templates(root, &path, names)?;
        } else if let Ok(rel) = path.strip_prefix(root) {
            names.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    Ok(())
}
