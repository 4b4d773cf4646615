//! A user's own template file or folder, rendered with the built-in templates' context under
//! `user_loader`'s bounds; every output keeps its relative path.

use super::env::base_environment;
use super::user_loader;
use crate::ReportError;
use minijinja::Value;
use std::path::{Path, PathBuf};

const TEMPLATE_SUFFIXES: [&str; 3] = [".j2", ".jinja2", ".jinja"];

/// A user's template file or folder. In a folder every file renders except those under a name
/// starting with `_` (partials and macros for `{% include %}` / `{% import %}`); the output keeps the
/// relative path, drops a `.j2`/`.jinja` suffix, and may itself use `{{ }}` (`{{ orion.prefix }}.txt`).
pub(crate) fn render_user(path: &Path, ctx: &Value) -> Result<Vec<(PathBuf, String)>, ReportError> {
    let meta = std::fs::symlink_metadata(path).map_err(|source| ReportError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    // The folders above it are the user's choice; the template (or its folder) itself must be
    // no link: one planted where a template is expected (to /etc/shadow) would be rendered into
    // a readable report. Inside it, links are refused by the loader.
    if meta.file_type().is_symlink() {
        return Err(ReportError::TemplatePath {
            path: path.to_path_buf(),
            reason: user_loader::SYMLINK_REFUSED.into(),
        });
    }
    let path = &std::path::absolute(path).map_err(|source| ReportError::Read {
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
