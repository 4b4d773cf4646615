//! Reading a spec: the file, the chain of `extends` parents (merged, child over parent), then the
//! `--set` overrides, then `${var}` substitution. The result is one tree with every value located.

use super::diag::SpecError;
use super::library::{self, Library, Origin};
use super::source::{Loc, Sources, read_spec_file};
use super::tree::{self, Node, Table, Value};
use rigel_expr::suggest::did_you_mean;
use std::collections::HashMap;
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

/// Where relative `extends` paths of a spec are resolved.
#[derive(Clone, Debug)]
pub enum Base {
    /// A folder on disk (the spec file's own, or the current directory for text).
    Dir(PathBuf),
    /// A built-in spec's name: relative parents are other built-ins.
    Builtin(&'static str),
}

/// Loads specs and their `extends` parents, each file once however often it is reached.
pub struct Loader<'a> {
    sources: &'a mut Sources,
    library: Library,
    /// The specs being loaded, child first: a parent already here is a cycle.
    chain: Vec<Origin>,
    /// Each spec merged with its own parents, by canonical origin: a diamond loads files once.
    done: HashMap<Origin, Table>,
    /// Every spec read (files, built-ins, text), as diagnostics name them, in the order first read.
    pub origins: Vec<String>,
}

impl<'a> Loader<'a> {
    pub fn new(sources: &'a mut Sources, library: Library) -> Self {
        Loader {
            sources,
            library,
            chain: Vec::new(),
            done: HashMap::new(),
            origins: Vec::new(),
        }
    }

    /// Loads a spec file or a built-in and its `extends` parents into one merged tree.
    pub fn origin(&mut self, origin: &Origin) -> Result<Table, Vec<SpecError>> {
        self.load(origin, None)
    }

    /// Loads spec text that is not a file (standard input, generated); `extends` is resolved from
    /// the current directory.
    pub fn text(&mut self, name: &str, text: &str) -> Result<Table, Vec<SpecError>> {
        let id = self.sources.add(name.to_owned(), None, text.to_owned());
        self.origins.push(name.to_owned());
        let table = tree::parse(id, text)?;
        self.with_parent(table, &Base::Dir(PathBuf::from(".")))
    }

    fn load(&mut self, origin: &Origin, from: Option<&Loc>) -> Result<Table, Vec<SpecError>> {
        let key = canonical(origin);
        if let Some(table) = self.done.get(&key) {
            return Ok(table.clone());
        }
        let (text, path, base) = match origin {
            Origin::File(path) => {
                let text = read_spec_file(path).map_err(|e| {
                    let msg = format!("cannot read spec `{}`: {e}", path.display());
                    vec![match from {
                        Some(loc) => SpecError::at(loc, msg, "this parent spec")
                            .hint("`extends` paths are relative to the spec that names them"),
                        None => SpecError::whole(msg),
                    }]
                })?;
                let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
                (text, Some(path.as_path()), Base::Dir(dir))
            }
            Origin::Builtin(name) => {
                let text = library::builtin(name).unwrap_or_default().to_owned();
                (text, None, Base::Builtin(name))
            }
        };
        let id = self.sources.add(origin.display(), path, text);
        self.origins.push(origin.display());
        let text = self.sources.get(id).text.clone();
        let table = tree::parse(id, &text)?;
        self.chain.push(key.clone());
        let merged = self.with_parent(table, &base);
        self.chain.pop();
        let merged = merged?;
        self.done.insert(key, merged.clone());
        Ok(merged)
    }

    /// Merges the parent(s) named in `[spec] extends` under `table`.
    fn with_parent(&mut self, table: Table, base: &Base) -> Result<Table, Vec<SpecError>> {
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
        let mut merged = Table::default();
        for parent in parents {
            let Value::Str(rel) = &parent.value else {
                return Err(vec![SpecError::at(
                    &parent.loc,
                    "`extends` entries must be paths",
                    "expected a string",
                )]);
            };
            let origin = self.resolve(base, rel, &parent.loc)?;
            let key = canonical(&origin);
            if let Some(pos) = self.chain.iter().position(|p| *p == key) {
                let names: Vec<String> = self.chain[pos..]
                    .iter()
                    .chain(std::iter::once(&key))
                    .map(short_name)
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
            let mut loaded = self.load(&origin, Some(&parent.loc))?;
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
            merged = tree::merge(merged, loaded);
        }
        Ok(tree::merge(merged, table))
    }

    /// A parent as written in `extends`: a library name (`acme/oltp-base`), or a path relative to
    /// the spec that names it (`base.toml`, `../shared/base.toml`).
    fn resolve(&self, base: &Base, written: &str, loc: &Loc) -> Result<Origin, Vec<SpecError>> {
        if library::is_name(written) {
            return self.library.find(written).map_err(|miss| {
                vec![
                    SpecError::at(loc, miss.message(), "no such spec")
                        .hint(format!("{}; a path to a file ends in `.toml`", miss.hint())),
                ]
            });
        }
        match base {
            Base::Dir(dir) => Ok(Origin::File(dir.join(written))),
            Base::Builtin(from) => library::builtin_relative(from, written)
                .map(Origin::Builtin)
                .ok_or_else(|| {
                    vec![
                        SpecError::at(loc, format!("no built-in spec `{written}`"), "no such spec")
                            .hint("a built-in spec extends other built-in specs only"),
                    ]
                }),
        }
    }
}

/// The identity of a spec: a file's canonical path (so `./a.toml` and `a.toml` are one file).
fn canonical(origin: &Origin) -> Origin {
    match origin {
        Origin::File(p) => Origin::File(p.canonicalize().unwrap_or_else(|_| p.clone())),
        b @ Origin::Builtin(_) => b.clone(),
    }
}

fn short_name(origin: &Origin) -> String {
    match origin {
        Origin::File(p) => p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
        Origin::Builtin(n) => format!("builtin:{n}"),
    }
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
            dotted_path(&o.key)
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

/// A `--set` key's path: parts split at dots outside double quotes (`sweep."io.size"`), quotes
/// dropped. A `[sweep]` key is itself `CLASS.PARAMETER`, so `sweep.io.size` names the key `io.size`.
fn dotted_path(key: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, c) in key.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '.' if !quoted => {
                parts.push(key[start..i].trim_matches('"'));
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(key[start..].trim_matches('"'));
    if parts.len() > 2 && parts[0] == "sweep" {
        let class_at = key.find('.').map_or(0, |i| i + 1);
        return vec!["sweep", key[class_at..].trim_matches('"')];
    }
    parts
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
