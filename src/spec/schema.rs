//! The spec's tables and keys: reads the merged tree into the typed [`Spec`], reporting unknown keys,
//! wrong kinds and bad values all in one pass.

use super::model::*;
use super::read::Reader;
use super::source::Loc;
use super::tree::{Node, Table, Value};
use crate::expr::{self, Access, Names, Size};
use crate::plan::{Layout, MatrixShape};
use std::time::Duration;

const TOP: &[&str] = &[
    "spec", "vars", "target", "volume", "run", "class", "matrix", "sweep", "expect",
];
const SPEC: &[&str] = &["name", "description", "extends", "partial"];
const TARGET: &[&str] = &["path", "size", "destructive"];
const VOLUME: &[&str] = &["layout", "stripe"];
const RUN: &[&str] = &["duration", "warmup", "direct", "seed", "workers"];
const CLASS: &[&str] = &["size", "access", "mix", "per_stream"];
const SWEEP_PARAMS: &[&str] = &["size", "mix", "access", "per_stream"];

/// Reads a whole spec. `default_name` is used when `[spec] name` is absent (the file's stem).
pub fn read_spec(
    r: &mut Reader,
    root: &Table,
    root_loc: &Loc,
    default_name: &str,
    cores: u64,
) -> Spec {
    r.check_keys(root, "the spec", TOP);
    let names = Names {
        targets: count_targets(root),
        cores,
    };
    let (name, description, partial) = read_info(r, root, default_name);
    let (targets, targets_loc) = read_targets(r, root, root_loc, &names);
    let classes = read_classes(r, root, &names);
    // Classes whose values failed to read are still declared: no cascade of "unknown class" errors.
    let declared: Vec<String> = match root.get("class").map(|n| &n.value) {
        Some(Value::Table(t)) => t.entries.keys().cloned().collect(),
        _ => Vec::new(),
    };
    let matrix = read_matrix(r, root, root_loc, &declared, &names);
    let sweep = read_sweep(r, root, &declared, &names);
    let expect = super::expect::read_expect(r, root, &classes, &sweep, &declared);
    Spec {
        name,
        description,
        partial,
        targets,
        targets_loc,
        volume: read_volume(r, root, root_loc),
        run: read_run(r, root, root_loc),
        classes,
        matrix,
        sweep,
        expect,
    }
}

fn count_targets(root: &Table) -> u64 {
    match root.get("target").map(|n| &n.value) {
        Some(Value::Array(a)) => a.len() as u64,
        _ => 0,
    }
}

fn read_info(r: &mut Reader, root: &Table, default_name: &str) -> (String, String, bool) {
    let Some(t) = r.table(root, "spec") else {
        return (default_name.to_owned(), String::new(), false);
    };
    r.check_keys(t, "[spec]", SPEC);
    let name = t
        .get("name")
        .and_then(|n| r.string(n, "`name`"))
        .unwrap_or_else(|| default_name.to_owned());
    let description = t
        .get("description")
        .and_then(|n| r.string(n, "`description`"))
        .unwrap_or_default();
    let partial = t
        .get("partial")
        .and_then(|n| r.boolean(n, "`partial`"))
        .unwrap_or(false);
    (name, description, partial)
}

pub fn size_of(r: &mut Reader, node: &Node, what: &str) -> Option<Sp<Size>> {
    let bare = |i: i64| u64::try_from(i).ok().map(Size);
    r.parsed(
        node,
        what,
        "\"8KiB\" or \"1MiB\"",
        Some(&bare),
        expr::parse_size,
    )
}

fn duration_of(r: &mut Reader, node: &Node, what: &str) -> Option<Sp<Duration>> {
    let bare = |i: i64| u64::try_from(i).ok().map(Duration::from_secs);
    r.parsed(
        node,
        what,
        "\"60s\" or \"1m30s\"",
        Some(&bare),
        expr::parse_duration,
    )
}

fn read_targets(
    r: &mut Reader,
    root: &Table,
    root_loc: &Loc,
    names: &Names,
) -> (Vec<TargetSpec>, Loc) {
    let _ = names;
    let Some(node) = root.get("target") else {
        return (Vec::new(), root_loc.clone());
    };
    let Value::Array(items) = &node.value else {
        r.push(
            super::diag::SpecError::at(
                &node.loc,
                "`target` must be a list of tables",
                "expected [[target]]",
            )
            .hint("write each target as a [[target]] section with a path"),
        );
        return (Vec::new(), node.loc.clone());
    };
    let mut out = Vec::new();
    for item in items {
        let Value::Table(t) = &item.value else {
            r.push(super::diag::SpecError::at(
                &item.loc,
                "each target must be a table",
                "expected a table with `path`",
            ));
            continue;
        };
        r.check_keys(t, "[[target]]", TARGET);
        let Some(path_node) = t.get("path") else {
            r.push(super::diag::SpecError::at(&item.loc, "a target needs a `path`", "this target")
                .hint("path = \"/dev/nvme1n1\", or a file: path = \"data.bin\" with size = \"4GiB\""));
            continue;
        };
        let Some(path) = r.string(path_node, "`path`") else {
            continue;
        };
        if path.trim().is_empty() {
            r.push(super::diag::SpecError::at(
                &path_node.loc,
                "a target's path is empty",
                "empty path",
            ));
            continue;
        }
        let size = t.get("size").and_then(|n| size_of(r, n, "a target size"));
        let destructive = t
            .get("destructive")
            .and_then(|n| r.boolean(n, "`destructive`"))
            .unwrap_or(false);
        out.push(TargetSpec {
            path: Sp::new(path, path_node.loc.clone()),
            size,
            destructive,
        });
    }
    (out, node.loc.clone())
}

fn read_volume(r: &mut Reader, root: &Table, root_loc: &Loc) -> VolumeSpec {
    let mut v = VolumeSpec {
        layout: Sp::new(Layout::Concat, root_loc.clone()),
        stripe: Sp::new(Size(1 << 20), root_loc.clone()),
    };
    let Some(t) = r.table(root, "volume") else {
        return v;
    };
    r.check_keys(t, "[volume]", VOLUME);
    if let Some(n) = t.get("layout")
        && let Some(s) = r.string(n, "`layout`")
    {
        match s.as_str() {
            "concat" => v.layout = Sp::new(Layout::Concat, n.loc.clone()),
            "raid0" => v.layout = Sp::new(Layout::Raid0, n.loc.clone()),
            _ => r.push(one_of(n, "layout", &s, &["concat", "raid0"])),
        }
    }
    if let Some(s) = t.get("stripe").and_then(|n| size_of(r, n, "a stripe")) {
        v.stripe = s;
    }
    v
}

fn read_run(r: &mut Reader, root: &Table, root_loc: &Loc) -> RunSpec {
    let mut run = RunSpec {
        duration: Sp::new(Duration::from_secs(60), root_loc.clone()),
        warmup: Sp::new(Duration::ZERO, root_loc.clone()),
        direct: true,
        seed: 1,
        workers: None,
    };
    let Some(t) = r.table(root, "run") else {
        return run;
    };
    r.check_keys(t, "[run]", RUN);
    if let Some(d) = t
        .get("duration")
        .and_then(|n| duration_of(r, n, "a duration"))
    {
        run.duration = d;
    }
    if let Some(d) = t.get("warmup").and_then(|n| duration_of(r, n, "a warmup")) {
        run.warmup = d;
    }
    if let Some(b) = t.get("direct").and_then(|n| r.boolean(n, "`direct`")) {
        run.direct = b;
    }
    if let Some(n) = t.get("seed") {
        match n.value {
            Value::Int(i) if i >= 0 => run.seed = i as u64,
            _ => r.push(super::diag::SpecError::at(
                &n.loc,
                "`seed` must be a non-negative integer",
                "expected an integer such as 42",
            )),
        }
    }
    if let Some(n) = t.get("workers") {
        run.workers = match &n.value {
            Value::Int(i) => r
                .expr(n, expr::parse_count(&i.to_string()))
                .map(|c| Sp::new(c, n.loc.clone())),
            Value::Str(s) => r
                .expr(n, expr::parse_count(s))
                .map(|c| Sp::new(c, n.loc.clone())),
            other => {
                r.push(super::diag::SpecError::at(
                    &n.loc,
                    format!("`workers` must be a count, found {}", other.kind()),
                    "expected a count such as 2 or \"cores\"",
                ));
                None
            }
        };
    }
    run
}

pub fn one_of(n: &Node, key: &str, found: &str, options: &[&str]) -> super::diag::SpecError {
    let hint = super::suggest::did_you_mean(found, options.iter().copied())
        .unwrap_or_else(|| format!("`{key}` is one of: {}", options.join(", ")));
    super::diag::SpecError::at(
        &n.loc,
        format!("unknown {key} `{found}`"),
        format!("expected one of {}", options.join(", ")),
    )
    .hint(hint)
}

fn read_classes(r: &mut Reader, root: &Table, names: &Names) -> Vec<ClassSpec> {
    let Some(t) = r.table(root, "class") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, (key_loc, node)) in &t.entries {
        let Value::Table(c) = &node.value else {
            r.push(
                super::diag::SpecError::at(
                    &node.loc,
                    format!("`class.{name}` must be a table"),
                    "expected a [class.NAME] section",
                )
                .hint(format!("write [class.{name}] with size, access and mix")),
            );
            continue;
        };
        r.check_keys(c, &format!("[class.{name}]"), CLASS);
        let size = match c.get("size") {
            Some(n) => size_of(r, n, "an I/O size"),
            None => {
                r.push(
                    super::diag::SpecError::at(
                        key_loc,
                        format!("class `{name}` has no `size`"),
                        "this class",
                    )
                    .hint("add size = \"8KiB\" (or another I/O size)"),
                );
                None
            }
        };
        let access = match c.get("access") {
            Some(n) => access_of(r, n),
            None => Some(Sp::new(Access::Random, key_loc.clone())),
        };
        let mix = match c.get("mix") {
            Some(n) => r.parsed(
                n,
                "a mix",
                "\"read\", \"write\" or \"70% read\"",
                None,
                expr::parse_mix,
            ),
            None => Some(Sp::new(expr::Mix::READ, key_loc.clone())),
        };
        let per_stream = c.get("per_stream").and_then(|n| {
            r.integer(n, "`per_stream`", names)
                .map(|v| Sp::new(v.min(u32::MAX as u64) as u32, n.loc.clone()))
        });
        if let (Some(size), Some(access), Some(mix)) = (size, access, mix) {
            out.push(ClassSpec {
                name: Sp::new(name.clone(), key_loc.clone()),
                size,
                access,
                mix,
                per_stream,
            });
        }
    }
    out
}

pub fn access_of(r: &mut Reader, n: &Node) -> Option<Sp<Access>> {
    let s = r.string(n, "`access`")?;
    match s.trim() {
        "random" | "rand" => Some(Sp::new(Access::Random, n.loc.clone())),
        "sequential" | "seq" => Some(Sp::new(Access::Sequential, n.loc.clone())),
        other => {
            r.push(one_of(n, "access", other, &["random", "sequential"]));
            None
        }
    }
}

fn read_matrix(
    r: &mut Reader,
    root: &Table,
    root_loc: &Loc,
    declared: &[String],
    names: &Names,
) -> MatrixSpec {
    let mut m = MatrixSpec {
        shape: Sp::new(MatrixShape::Basic, root_loc.clone()),
        loads: Vec::new(),
        loc: root_loc.clone(),
    };
    let Some(node) = root.get("matrix") else {
        return m;
    };
    m.loc = node.loc.clone();
    let Some(t) = r.table(root, "matrix") else {
        return m;
    };
    let class_names: Vec<&str> = declared.iter().map(String::as_str).collect();
    for (key, (key_loc, n)) in &t.entries {
        if key == "shape" {
            if let Some(s) = r.string(n, "`shape`") {
                let shapes = ["basic", "detailed", "point", "row", "col", "max"];
                match serde_json::from_value::<MatrixShape>(serde_json::Value::String(s.clone())) {
                    Ok(shape) => m.shape = Sp::new(shape, n.loc.clone()),
                    Err(_) => r.push(one_of(n, "matrix shape", &s, &shapes)),
                }
            }
            continue;
        }
        if !class_names.contains(&key.as_str()) {
            let mut allowed = vec!["shape"];
            allowed.extend(class_names.iter().copied());
            let hint =
                super::suggest::did_you_mean(key, allowed.iter().copied()).unwrap_or_else(|| {
                    format!(
                        "[matrix] takes `shape` and one load sweep per class ({})",
                        class_names.join(", ")
                    )
                });
            r.push(
                super::diag::SpecError::at(
                    key_loc,
                    format!("`{key}` in [matrix] is not a class of this spec"),
                    "no [class] of this name",
                )
                .hint(hint),
            );
            continue;
        }
        let sweep = match &n.value {
            Value::Int(i) => r.expr(
                n,
                expr::parse_sweep(&i.to_string()).and_then(|s| s.eval(names)),
            ),
            Value::Str(s) => r.expr(n, expr::parse_sweep(s).and_then(|s| s.eval(names))),
            other => {
                r.push(super::diag::SpecError::at(
                    &n.loc,
                    format!("a load sweep must be a string, found {}", other.kind()),
                    "expected a sweep such as \"1..=32 x2\"",
                ));
                None
            }
        };
        if let Some(sweep) = sweep {
            m.loads.push((
                Sp::new(key.clone(), key_loc.clone()),
                Sp::new(sweep, n.loc.clone()),
            ));
        }
    }
    m
}

fn read_sweep(r: &mut Reader, root: &Table, declared: &[String], names: &Names) -> Vec<SweepSpec> {
    let Some(t) = r.table(root, "sweep") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, (key_loc, n)) in &t.entries {
        let Some((class, param)) = key.split_once('.') else {
            r.push(super::diag::SpecError::at(key_loc, format!("`{key}` is not a CLASS.PARAMETER key"), "expected e.g. \"small.size\"")
                .hint("a sweep key names a class and one of its parameters: size, mix, access or per_stream"));
            continue;
        };
        if !declared.iter().any(|c| c == class) {
            let hint = super::suggest::did_you_mean(class, declared.iter().map(String::as_str));
            r.push(
                super::diag::SpecError::at(
                    key_loc,
                    format!("`{class}` is not a class of this spec"),
                    "unknown class",
                )
                .hint_opt(hint),
            );
            continue;
        }
        if !SWEEP_PARAMS.contains(&param) {
            r.push(super::one_of_key(key_loc, param));
            continue;
        }
        let Some(text) = (match &n.value {
            Value::Int(i) => Some(i.to_string()),
            _ => r.string(n, "a sweep"),
        }) else {
            continue;
        };
        let values = match param {
            "size" => r
                .expr(n, expr::parse_size_list(&text))
                .map(SweepValues::Size),
            "mix" => r.expr(n, expr::parse_mix_list(&text)).map(SweepValues::Mix),
            "per_stream" => r
                .expr(n, expr::parse_sweep(&text).and_then(|s| s.eval(names)))
                .map(SweepValues::PerStream),
            _ => access_list(r, n, &text).map(SweepValues::Access),
        };
        if let Some(values) = values {
            out.push(SweepSpec {
                class: Sp::new(class.to_owned(), key_loc.clone()),
                values: Sp::new(values, n.loc.clone()),
            });
        }
    }
    out
}

fn access_list(r: &mut Reader, n: &Node, text: &str) -> Option<Vec<Access>> {
    let mut out = Vec::new();
    let mut at = 0;
    for part in text.split(',') {
        let word = part.trim();
        let start = at + (part.len() - part.trim_start().len());
        match word {
            "random" | "rand" => out.push(Access::Random),
            "sequential" | "seq" => out.push(Access::Sequential),
            _ => {
                let loc = r.loc_of(n, start..start + word.len());
                r.push(super::diag::SpecError::at(
                    &loc,
                    format!("unknown access `{word}`"),
                    "expected random or sequential",
                ));
                return None;
            }
        }
        at += part.len() + 1;
    }
    Some(out)
}
