//! Reading a spec: the file, the chain of `extends` parents (merged, child over parent), then the
//! `--set` overrides, then `${var}` substitution. The result is one tree with every value located.

use super::diag::SpecError;
use super::source::{Loc, Sources};
use super::suggest::did_you_mean;
use super::tree::{self, Node, Table, Value};
use std::path::{Path, PathBuf};

/// A `--set key=value` override as typed on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Override {
    pub key: String,
    pub value: String,
}

impl std::str::FromStr for Override {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok(Override {
                key: k.trim().to_owned(),
                value: v.to_owned(),
            }),
            _ => Err(format!(
                "expected KEY=VALUE (a variable such as disks=4 or a dotted key such as run.duration=10s), found `{s}`"
            )),
        }
    }
}

/// Loads `path` and its `extends` chain into one merged tree.
pub fn load_file(path: &Path, sources: &mut Sources) -> Result<Table, Vec<SpecError>> {
    let mut chain = Vec::new();
    load_chain(path, None, sources, &mut chain)
}

/// Loads spec text that is not a file (the built-in default); `extends` is resolved from the cwd.
pub fn load_text(name: &str, text: &str, sources: &mut Sources) -> Result<Table, Vec<SpecError>> {
    let id = sources.add(name.to_owned(), None, text.to_owned());
    let table = tree::parse(id, text)?;
    with_parent(table, Path::new("."), sources, &mut Vec::new())
}

fn load_chain(
    path: &Path,
    from: Option<&Loc>,
    sources: &mut Sources,
    chain: &mut Vec<PathBuf>,
) -> Result<Table, Vec<SpecError>> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        let msg = format!("cannot read spec `{}`: {e}", path.display());
        vec![match from {
            Some(loc) => SpecError::at(loc, msg, "this parent spec")
                .hint("`extends` paths are relative to the spec that names them"),
            None => SpecError::whole(msg),
        }]
    })?;
    let id = sources.add(path.display().to_string(), Some(path), text);
    let text = sources.get(id).text.clone();
    let table = tree::parse(id, &text)?;
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    chain.push(canonical);
    let dir = path.parent().unwrap_or(Path::new("."));
    let merged = with_parent(table, dir, sources, chain);
    chain.pop();
    merged
}

/// Merges the parent(s) named in `[spec] extends` under `table`.
fn with_parent(
    table: Table,
    dir: &Path,
    sources: &mut Sources,
    chain: &mut Vec<PathBuf>,
) -> Result<Table, Vec<SpecError>> {
    let Some(extends) = table
        .get("spec")
        .and_then(|s| match &s.value {
            Value::Table(t) => t.get("extends"),
            _ => None,
        })
        .cloned()
    else {
        return Ok(table);
    };
    let parents: Vec<Node> = match &extends.value {
        Value::Str(_) => vec![extends.clone()],
        Value::Array(items) => items.clone(),
        other => {
            return Err(vec![SpecError::at(
                &extends.loc,
                format!(
                    "`extends` must be a path or a list of paths, found {}",
                    other.kind()
                ),
                "expected a string such as \"base.toml\"",
            )]);
        }
    };
    let mut base = Table::default();
    for parent in parents {
        let Value::Str(rel) = &parent.value else {
            return Err(vec![SpecError::at(
                &parent.loc,
                "`extends` entries must be paths",
                "expected a string",
            )]);
        };
        let path = dir.join(rel);
        let canonical = path.canonicalize().unwrap_or_else(|_| path.clone());
        if let Some(pos) = chain.iter().position(|p| *p == canonical) {
            let names: Vec<String> = chain[pos..]
                .iter()
                .chain(std::iter::once(&canonical))
                .map(|p| {
                    p.file_name().map_or_else(
                        || p.display().to_string(),
                        |n| n.to_string_lossy().into_owned(),
                    )
                })
                .collect();
            return Err(vec![
                SpecError::at(
                    &parent.loc,
                    format!("`extends` cycle: {}", names.join(" → ")),
                    "this brings the chain back to a spec already being loaded",
                )
                .hint("a spec may not extend itself, directly or through its parents"),
            ]);
        }
        let mut loaded = load_chain(&path, Some(&parent.loc), sources, chain)?;
        // Being a partial base is not inherited: the child is a spec of its own.
        if let Some((
            _,
            Node {
                value: Value::Table(spec),
                ..
            },
        )) = loaded.entries.get_mut("spec")
        {
            spec.entries.shift_remove("partial");
        }
        base = tree::merge(base, loaded);
    }
    Ok(tree::merge(base, table))
}

/// Applies `--set` overrides: a plain name sets a `[vars]` entry, a dotted key sets that key
/// (`run.duration`, `class.small.size`, `target.0.path`).
pub fn apply_overrides(
    table: &mut Table,
    overrides: &[Override],
    sources: &mut Sources,
) -> Result<(), Vec<SpecError>> {
    let mut errors = Vec::new();
    for o in overrides {
        let id = sources.add(format!("--set {}", o.key), None, o.value.clone());
        let node = tree::set_value(id, &o.value);
        let key_src = sources.add("--set".to_owned(), None, format!("{}={}", o.key, o.value));
        let key_loc = Loc::new(key_src, 0..o.key.len());
        let path: Vec<&str> = if o.key.contains('.') {
            o.key.split('.').collect()
        } else {
            let vars: Vec<String> = match table.get("vars").map(|n| &n.value) {
                Some(Value::Table(t)) => t.entries.keys().cloned().collect(),
                _ => Vec::new(),
            };
            if !vars.iter().any(|v| v == &o.key) {
                errors.push(
                    SpecError::at(
                        &key_loc,
                        format!("`{}` is not a variable of this spec", o.key),
                        "unknown variable",
                    )
                    .hint_opt(
                        did_you_mean(&o.key, vars.iter().map(String::as_str)).or_else(|| {
                            Some(
                                "use a dotted key to set any value, e.g. --set run.duration=10s"
                                    .to_owned(),
                            )
                        }),
                    ),
                );
                continue;
            }
            vec!["vars", o.key.as_str()]
        };
        if let Err(e) = set_path(table, &path, node, &key_loc) {
            errors.push(e);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn set_path(table: &mut Table, path: &[&str], node: Node, key_loc: &Loc) -> Result<(), SpecError> {
    let (first, rest) = path.split_first().expect("a key has at least one part");
    if rest.is_empty() {
        table
            .entries
            .insert((*first).to_owned(), (key_loc.clone(), node));
        return Ok(());
    }
    let entry = table.entries.entry((*first).to_owned()).or_insert_with(|| {
        let empty = Node::new(Value::Table(Table::default()), key_loc.clone());
        (key_loc.clone(), empty)
    });
    set_in_node(&mut entry.1, rest, node, key_loc)
}

fn set_in_node(at: &mut Node, path: &[&str], node: Node, key_loc: &Loc) -> Result<(), SpecError> {
    match &mut at.value {
        Value::Table(t) => set_path(t, path, node, key_loc),
        Value::Array(items) => {
            let index = path[0].parse::<usize>().ok().filter(|i| *i < items.len());
            let Some(i) = index else {
                return Err(SpecError::at(
                    key_loc,
                    format!("`{}` is not an index of this list", path[0]),
                    "no such entry",
                )
                .hint(format!(
                    "lists are indexed from 0; this one has {} entries",
                    items.len()
                )));
            };
            if path.len() == 1 {
                items[i] = node;
                Ok(())
            } else {
                set_in_node(&mut items[i], &path[1..], node, key_loc)
            }
        }
        other => Err(SpecError::at(
            key_loc,
            format!("cannot set a key inside {}", other.kind()),
            "not a table",
        )),
    }
}
