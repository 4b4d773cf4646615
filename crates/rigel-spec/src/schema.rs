//! The spec's tables and keys: reads the merged tree into the typed [`Spec`], reporting unknown keys,
//! wrong kinds and bad values all in one pass.

use super::diag::SpecError;
use super::expect::read_expect;
use super::model::*;
use super::read::{Reader, duration_of, one_of, size_of};
use super::source::Loc;
use super::tree::{Node, Table, Value};
use super::workload::{read_classes, read_matrix, read_sweep};
use rigel_expr::{self as expr, Names, Size};
use std::time::Duration;

use super::keys;

/// Reads a whole spec. `default_name` is used when `[spec] name` is absent (the file's stem).
pub fn read_spec(
    r: &mut Reader,
    root: &Table,
    root_loc: &Loc,
    default_name: &str,
    cores: u64,
) -> Spec {
    r.check_keys(root, "the spec", &keys::tables());
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
    let expect = read_expect(r, root, &classes, &sweep, &declared);
    let search = super::search::read_search(r, root, &classes, &sweep, &declared);
    let answers = super::answers::read_answers(r, root, &classes, &sweep, &declared, &search);
    let precondition = super::conditioning::read_precondition(r, root);
    let drain = super::drain::read_drain(r, root, &declared);
    let steady = super::conditioning::read_steady(r, root, &classes, &sweep, &declared);
    let mut run = read_run(r, root, root_loc);
    run.steady = steady;
    Spec {
        name,
        description,
        partial,
        targets,
        targets_loc,
        volume: read_volume(r, root, root_loc),
        run,
        classes,
        matrix,
        sweep,
        expect,
        answers,
        search,
        precondition,
        drain,
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
    r.check_keys(t, "[spec]", &keys::names(keys::SPEC));
    let name = t
        .get("name")
        .and_then(|n| r.string(n, "`name`").filter(|name| path_safe(r, n, name)))
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

/// The name becomes a folder under `runs/` and ORION's file prefix: one plain path component.
fn path_safe(r: &mut Reader, node: &Node, name: &str) -> bool {
    let bad = name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']);
    if bad {
        r.push(
            SpecError::at(
                &node.loc,
                format!("the spec name {name:?} cannot name a folder"),
                "used as a path",
            )
            .hint("the run folder is runs/NAME-DATE: use letters, digits, `-`, `_` or `.`, no `/`"),
        );
    }
    !bad
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
        r.check_keys(t, "[[target]]", &keys::names(keys::TARGET));
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
        let name = t.get("name").and_then(|n| {
            r.string(n, "a target's `name`")
                .map(|v| Sp::new(v.trim().to_owned(), n.loc.clone()))
        });
        out.push(TargetSpec {
            name,
            path: Sp::new(path, path_node.loc.clone()),
            size,
            destructive,
            named_on_command_line: false,
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
    r.check_keys(t, "[volume]", &keys::names(keys::VOLUME));
    if let Some(n) = t.get("layout")
        && let Some(s) = r.string(n, "`layout`")
    {
        match s.as_str() {
            "concat" => v.layout = Sp::new(Layout::Concat, n.loc.clone()),
            "raid0" => v.layout = Sp::new(Layout::Raid0, n.loc.clone()),
            _ => r.push(one_of(n, "layout", &s, keys::LAYOUTS)),
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
        io_timeout: Sp::new(super::DEFAULT_IO_TIMEOUT, root_loc.clone()),
        direct: true,
        buffers: Buffers::Pages,
        seed: Sp::new(1, root_loc.clone()),
        workers: None,
        steady: None,
        verify: None,
        verify_unit: None,
        journal: None,
        engine: None,
        cpus: None,
        polled: None,
        sqpoll: None,
        zones: None,
        sq_thread_cpu: None,
        sq_thread_idle: None,
    };
    let Some(t) = r.table(root, "run") else {
        return run;
    };
    r.check_keys(t, "[run]", &keys::names(keys::RUN));
    if let Some(d) = t
        .get("duration")
        .and_then(|n| duration_of(r, n, "a duration"))
    {
        run.duration = d;
    }
    if let Some(d) = t.get("warmup").and_then(|n| duration_of(r, n, "a warmup")) {
        run.warmup = d;
    }
    if let Some(d) = t
        .get("io_timeout")
        .and_then(|n| duration_of(r, n, "an I/O timeout"))
    {
        run.io_timeout = d;
    }
    run.verify = t.get("verify").and_then(|n| super::verify::verify_of(r, n));
    run.verify_unit = t
        .get("verify_unit")
        .and_then(|n| super::verify::unit_of(r, n));
    run.journal = t
        .get("journal")
        .and_then(|n| r.boolean(n, "`journal`").map(|b| Sp::new(b, n.loc.clone())));
    run.engine = t.get("engine").and_then(|n| super::read::engine_of(r, n));
    run.cpus = t.get("cpus").and_then(|n| {
        r.parsed(
            n,
            "a CPU list",
            "\"0-3\" or \"node:0\"",
            None,
            expr::parse_cpus,
        )
    });
    run.polled = t
        .get("polled")
        .and_then(|n| r.boolean(n, "`polled`").map(|b| Sp::new(b, n.loc.clone())));
    run.zones = t.get("zones").and_then(|n| {
        let s = r.string(n, "`zones`")?;
        if keys::ZONES.contains(&s.trim()) {
            Some(Sp::new(true, n.loc.clone()))
        } else {
            let e = super::read::one_of(n, "zones", s.trim(), keys::ZONES);
            r.push(e);
            None
        }
    });
    run.sqpoll = t
        .get("sqpoll")
        .and_then(|n| r.boolean(n, "`sqpoll`").map(|b| Sp::new(b, n.loc.clone())));
    if let Some(n) = t.get("sq_thread_cpu") {
        match n.value {
            Value::Int(i) if i >= 0 => run.sq_thread_cpu = Some(Sp::new(i as u64, n.loc.clone())),
            _ => r.push(super::diag::SpecError::at(
                &n.loc,
                "`sq_thread_cpu` must be a CPU number",
                "expected an integer such as 3",
            )),
        }
    }
    run.sq_thread_idle = t
        .get("sq_thread_idle")
        .and_then(|n| duration_of(r, n, "an idle time"));
    if let Some(b) = t.get("direct").and_then(|n| r.boolean(n, "`direct`")) {
        run.direct = b;
    }
    if let Some(n) = t.get("buffers")
        && let Some(s) = r.string(n, "`buffers`")
    {
        match s.as_str() {
            "pages" => run.buffers = Buffers::Pages,
            "huge" => run.buffers = Buffers::Huge,
            _ => r.push(one_of(n, "buffers", &s, keys::BUFFERS)),
        }
    }
    if let Some(n) = t.get("seed") {
        match n.value {
            Value::Int(i) if i >= 0 => run.seed = Sp::new(i as u64, n.loc.clone()),
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
            // "auto" is `cores`: one worker per CPU this process may run on.
            Value::Str(s) if s.trim() == "auto" => r
                .expr(n, expr::parse_count("cores"))
                .map(|c| Sp::new(c, n.loc.clone())),
            Value::Str(s) => r
                .expr(n, expr::parse_count(s))
                .map(|c| Sp::new(c, n.loc.clone())),
            other => {
                r.push(super::diag::SpecError::at(
                    &n.loc,
                    format!("`workers` must be a count, found {}", other.kind()),
                    "expected a count such as 2, \"cores\" or \"auto\"",
                ));
                None
            }
        };
    }
    run
}
