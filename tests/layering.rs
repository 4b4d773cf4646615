//! The pipeline's layering, checked on the source: no module imports a later stage (through
//! `use crate::…` or a `crate::x::` path anywhere in code), and no two files of one module import
//! each other in a cycle. Runs under `cargo test`, so CI fails on the first violation.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The stages in import order: a module may import its own stage and earlier ones only.
///
/// `results`, the results model (the HDR recorders, the point and target records), sits before
/// `target` and `exec`, which fill it; `stats`, which reads it (summaries, the one view every report
/// reads through), comes after them, as the data flows. `runner` (the run loop: open, execute,
/// record, render) comes after every stage it drives. `orion` comes after `report`: it is a second
/// front end (ORION's command line), turning options into a spec and report settings, used only by
/// `cli`.
const STAGES: &[&str] = &[
    "expr", "spec", "plan", "results", "target", "exec", "stats", "expect", "compare", "record",
    "report", "runner", "fleet", "orion", "cli",
];

/// Modules whose files still import each other in a cycle, and why it stays for now.
const CYCLES_ALLOWED: &[(&str, &str)] = &[
    (
        "target",
        "guard ↔ in_use: the refusal reasons live in guard.rs, rewritten by the write-guard work this \
         session; move them to a file of their own once it has landed",
    ),
    (
        "cli",
        "fleet ↔ run: the fleet command shares run's judge/options and run dispatches to fleet; \
         to untangle when fleet's resume is reconciled",
    ),
    (
        "report",
        "export ↔ render: export calls render_one/render_user, render calls render_to_strings; \
         the file writer should move into export",
    ),
];

/// Helpers every stage may use; they import no stage themselves.
const LEAVES: &[&str] = &["units"];

#[derive(Debug)]
struct Import {
    file: PathBuf,
    line: usize,
    /// Path segments after `crate::` (or after the `super::` chain resolved to the crate root).
    path: Vec<String>,
}

#[test]
fn no_module_imports_a_later_stage() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut problems = Vec::new();
    let mut modules = BTreeSet::new();
    for file in rust_files(&src) {
        let rel = file.strip_prefix(&src).expect("under src");
        let Some(own) = top_module(rel) else { continue };
        modules.insert(own.clone());
        for import in imports(&file, rel) {
            let Some(target) = import.path.first() else {
                continue;
            };
            if *target == own || !is_module(&src, target) {
                continue;
            }
            if let Some(why) = forbidden(&own, target) {
                problems.push(format!(
                    "{}:{}: `{own}` imports `crate::{}`: {why}",
                    import.file.display(),
                    import.line,
                    import.path.join("::")
                ));
            }
        }
    }
    for m in &modules {
        if !STAGES.contains(&m.as_str()) && !LEAVES.contains(&m.as_str()) {
            problems.push(format!(
                "src/{m}: a module in no stage; add it to STAGES (or LEAVES) in tests/layering.rs"
            ));
        }
    }
    assert!(problems.is_empty(), "layering:\n{}", problems.join("\n"));
}

#[test]
fn no_files_of_one_module_import_each_other_in_a_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graphs: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in rust_files(&src) {
        let rel = file.strip_prefix(&src).expect("under src");
        let parts: Vec<String> = rel
            .with_extension("")
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        // Files directly under src/M/ (M/x.rs); M/mod.rs only re-exports.
        let [module, sub] = parts.as_slice() else {
            continue;
        };
        let siblings = graphs.entry(module.clone()).or_default();
        let edges = siblings.entry(sub.clone()).or_default();
        let text = code_lines(&file);
        for (_, line) in &text {
            for rest in after_all(line, "super::")
                .into_iter()
                .chain(after_all(line, &format!("crate::{module}::")))
            {
                for name in first_segments(rest) {
                    if name != *sub && src.join(module).join(format!("{name}.rs")).is_file() {
                        edges.insert(name);
                    }
                }
            }
        }
    }
    let mut problems = Vec::new();
    for (module, graph) in &graphs {
        if CYCLES_ALLOWED.iter().any(|(m, _)| m == module) {
            continue;
        }
        if let Some(cycle) = find_cycle(graph) {
            problems.push(format!("src/{module}: {}", cycle.join(" → ")));
        }
    }
    assert!(
        problems.is_empty(),
        "import cycles between files:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_checker_sees_grouped_paths_and_super_chains() {
    assert_eq!(
        first_segments("{plan::RunPlan, stats::{A, B}, self};"),
        vec!["plan", "stats"]
    );
    assert_eq!(first_segments("report::Dialect>,"), vec!["report"]);
    assert!(forbidden("exec", "report").is_some());
    assert_eq!(forbidden("report", "exec"), None);
    assert!(forbidden("units", "plan").is_some());
    assert_eq!(forbidden("plan", "units"), None);
    let graph: BTreeMap<String, BTreeSet<String>> =
        [("a", vec!["b"]), ("b", vec!["c"]), ("c", vec!["a"])]
            .into_iter()
            .map(|(k, v)| (k.into(), v.into_iter().map(String::from).collect()))
            .collect();
    assert!(find_cycle(&graph).is_some());
}

/// Why `own` may not import `target` (None when it may).
fn forbidden(own: &str, target: &str) -> Option<String> {
    let rank = |m: &str| STAGES.iter().position(|s| *s == m);
    if LEAVES.contains(&target) {
        return None;
    }
    if LEAVES.contains(&own) {
        return Some("a leaf helper imports no pipeline stage".into());
    }
    match (rank(own), rank(target)) {
        (Some(a), Some(b)) if b > a => Some(format!(
            "`{target}` is a later stage (order: {})",
            STAGES.join(" → ")
        )),
        _ => None,
    }
}

fn is_module(src: &Path, name: &str) -> bool {
    src.join(name).is_dir() || src.join(format!("{name}.rs")).is_file()
}

/// The top-level module a file belongs to (None for lib.rs and main.rs).
fn top_module(rel: &Path) -> Option<String> {
    let first = rel.iter().next()?.to_string_lossy().into_owned();
    match first.strip_suffix(".rs") {
        Some("lib" | "main") => None,
        Some(m) => Some(m.to_owned()),
        None => Some(first),
    }
}

/// Every path a file names through `crate::` (grouped `use crate::{a, b}` included) or through a
/// `super::` chain that climbs to the crate root.
fn imports(file: &Path, rel: &Path) -> Vec<Import> {
    // Module depth of the file: src/a/b.rs is a::b (2), src/a/mod.rs is a (1).
    let mut depth = rel.iter().count();
    if rel.file_name().is_some_and(|n| n == "mod.rs") {
        depth -= 1;
    }
    let climb = "super::".repeat(depth);
    let mut out = Vec::new();
    for (line_no, line) in code_lines(file) {
        let mut rests = after_all(&line, "crate::");
        if depth > 0 {
            rests.extend(after_all(&line, &climb));
        }
        for rest in rests {
            for seg in first_segments(rest) {
                out.push(Import {
                    file: Path::new("src").join(rel),
                    line: line_no,
                    path: vec![seg, rest_path(rest)],
                });
            }
        }
    }
    out
}

/// What follows the first segment, for the message (`plan::Layout` → `Layout`).
fn rest_path(rest: &str) -> String {
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':' || c == '{'))
        .unwrap_or(rest.len());
    rest[..end]
        .split_once("::")
        .map_or(String::new(), |(_, r)| r.to_owned())
}

/// The first segment of a path, or of each item of a `{a::x, b}` group.
fn first_segments(rest: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    if let Some(group) = rest.strip_prefix('{') {
        let mut out = Vec::new();
        let mut level = 0;
        let mut start = 0;
        for (i, c) in group.char_indices() {
            match c {
                '{' => level += 1,
                '}' if level == 0 => {
                    out.push(ident(&group[start..i]));
                    break;
                }
                '}' => level -= 1,
                ',' if level == 0 => {
                    out.push(ident(&group[start..i]));
                    start = i + 1;
                }
                _ => {}
            }
        }
        out.retain(|s| !s.is_empty() && s != "self");
        out
    } else {
        let s = ident(rest);
        if s.is_empty() { Vec::new() } else { vec![s] }
    }
}

/// Each text following an occurrence of `needle` that starts a path (not the tail of a longer one).
fn after_all<'a>(line: &'a str, needle: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = line[from..].find(needle) {
        let at = from + i;
        let before = line[..at].chars().next_back();
        let starts_path = !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
        if starts_path {
            out.push(&line[at + needle.len()..]);
        }
        from = at + needle.len();
    }
    out
}

/// A file's lines with `//` comments cut off; a multi-line `use crate::{…}` group is joined into
/// its first line so that every item is seen.
fn code_lines(file: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(file).expect("a readable source file");
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open_group = false;
    for (i, raw) in text.lines().enumerate() {
        let code = raw.split("//").next().unwrap_or("").to_owned();
        if open_group {
            let last = out.last_mut().expect("a group's first line");
            last.1.push_str(code.trim());
            open_group = !code.contains('}');
            continue;
        }
        open_group = code.contains("crate::{") && !code.contains('}');
        out.push((i + 1, code));
    }
    out
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).expect("a readable folder") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// A cycle in a directed graph, as the names along it (first repeated at the end).
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|s| s == n) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(n.to_owned());
            return Some(cycle);
        }
        if done.contains(n) {
            return None;
        }
        stack.push(n.to_owned());
        for next in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(next, graph, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(n.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}
