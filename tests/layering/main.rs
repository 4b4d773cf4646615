//! The walls between the pipeline's stages, checked on every `cargo test`:
//!
//! - every crate depends only on the workspace crates the graph allows it (written once, with why,
//!   in the root Cargo.toml's `[workspace.metadata.rigel.edges.*]`), the graph is a DAG, and no
//!   edge is listed that no manifest declares; Cargo itself refuses an import of a crate that is
//!   not a dependency;
//! - every declared dependency (normal, dev or build; workspace crate or not) is named by code;
//! - no `include_str!`/`include_bytes!` reaches outside its crate's folder;
//! - clap appears only in the binary, `unsafe` only in the executor (`#![forbid(unsafe_code)]` on
//!   every other crate, and the workspace's unsafe lints on all) and there only in its engines;
//! - no two modules of one crate import each other in a cycle, read with `syn` as the compiler reads
//!   them (grouped imports, `super::` chains, strings and comments included).

mod fs_rules;
mod manifests;
mod marks;
mod modules;
mod nextest;
mod unsafe_code;
mod uses;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every crate of the workspace: its name and its folder.
fn crates() -> Vec<(String, PathBuf)> {
    let mut out = vec![("rigel".to_owned(), root())];
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .expect("crates/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    for dir in dirs {
        let name = dir
            .file_name()
            .expect("a folder name")
            .to_string_lossy()
            .into_owned();
        out.push((name, dir));
    }
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn graph() -> manifests::Graph {
    manifests::graph(&read(&root().join("Cargo.toml")))
}

fn manifest(name: &str, dir: &Path) -> manifests::Manifest {
    manifests::Manifest::parse(name, &read(&dir.join("Cargo.toml")))
}

#[test]
fn every_crate_depends_only_on_its_allowed_edges() {
    let graph = graph();
    let mut problems = Vec::new();
    for (name, dir) in crates() {
        let manifest = manifest(&name, &dir);
        problems.extend(manifest.problems(&graph));
        problems.extend(manifest.stale_edges(&graph));
    }
    for krate in graph.edges.keys() {
        if !crates().iter().any(|(n, _)| n == krate) {
            problems.push(format!(
                "[workspace.metadata.rigel.edges.{krate}]: no such crate; remove its table"
            ));
        }
    }
    assert!(problems.is_empty(), "layering:\n{}", problems.join("\n"));
}

#[test]
fn the_allowed_edges_form_a_dag() {
    let graph = graph();
    let mut problems = Vec::new();
    for (krate, deps) in &graph.edges {
        for dep in deps.keys() {
            if !graph.edges.contains_key(dep) {
                problems.push(format!(
                    "[workspace.metadata.rigel.edges.{krate}] {dep}: not a crate of the graph"
                ));
            }
            if dep == krate {
                problems.push(format!("{krate} is listed as depending on itself"));
            }
        }
    }
    for cycle in modules::strongly_connected(&graph.edges) {
        let names: Vec<&str> = cycle.iter().map(String::as_str).collect();
        problems.push(format!(
            "the allowed edges form a cycle among {}: data flows one way",
            names.join(", ")
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// What a crate's code uses: `.0` its library or binary and build script, which
/// `[dependencies]` and `[build-dependencies]` serve; `.1` its tests, benches and examples, which
/// `[dev-dependencies]` serve beside `.0`.
fn uses_of(dir: &Path) -> (uses::Uses, uses::Uses) {
    let of = |folders: &[&str]| {
        let paths: Vec<PathBuf> = folders.iter().map(|f| dir.join(f)).collect();
        uses::Uses::of(&paths, dir)
    };
    (
        of(&["src", "build.rs"]),
        of(&["tests", "benches", "examples"]),
    )
}

#[test]
fn every_declared_dependency_is_used() {
    let mut problems = Vec::new();
    let mut named_only_seen = std::collections::BTreeSet::new();
    for (name, dir) in crates() {
        let manifest = manifest(&name, &dir);
        let (code, tests) = uses_of(&dir);
        for (section, key) in &manifest.keys {
            let lib = uses::lib_name(key);
            let used = code.roots.contains(&lib)
                || (section == "dev-dependencies" && tests.roots.contains(&lib));
            if used {
                continue;
            }
            if uses::NAMED_ONLY
                .iter()
                .any(|(c, d, _)| *c == name && *d == key)
            {
                named_only_seen.insert((name.clone(), key.clone()));
                continue;
            }
            problems.push(format!(
                "{name}: [{section}] {key} is declared but no code of the crate names it; remove \
                 it (or list it in tests/layering/uses.rs NAMED_ONLY with why)"
            ));
        }
    }
    for (c, d, _) in uses::NAMED_ONLY {
        if !named_only_seen.contains(&(c.to_string(), d.to_string())) {
            problems.push(format!(
                "tests/layering/uses.rs NAMED_ONLY: {c} → {d} is used by code now, or no longer \
                 declared: remove the entry"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "unused dependencies:\n{}",
        problems.join("\n")
    );
}

/// Whether `path` lies in the crate folder `dir` and in no other crate nested in it (the root
/// crate's folder holds `crates/`).
fn inside_crate(path: &Path, dir: &Path) -> bool {
    path.starts_with(dir)
        && path
            .ancestors()
            .skip(1)
            .take_while(|a| *a != dir)
            .all(|a| !a.join("Cargo.toml").is_file())
}

#[test]
fn no_include_leaves_its_crate() {
    let mut problems = Vec::new();
    let mut leaving_seen = std::collections::BTreeSet::new();
    for (name, dir) in crates() {
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        let (code, tests) = uses_of(&dir);
        for include in code.includes.into_iter().chain(tests.includes) {
            let at = format!(
                "{}:{}",
                include
                    .file
                    .strip_prefix(root())
                    .unwrap_or(&include.file)
                    .display(),
                include.line
            );
            // Followed through links: a folder linked from elsewhere is not the crate's own.
            let target = include
                .target
                .map(|t| std::fs::canonicalize(&t).unwrap_or(t));
            match target {
                Some(target) if inside_crate(&target, &dir) => {}
                _ if uses::LEAVING_ALLOWED.iter().any(|(c, _)| *c == name) => {
                    leaving_seen.insert(name.clone());
                }
                Some(target) => problems.push(format!(
                    "{at}: includes {}, not {name}'s own file (outside its folder, or in another \
                     crate's): the crate would not build from its own folder (`cargo package`); \
                     move the file into the crate",
                    target.strip_prefix(root()).unwrap_or(&target).display()
                )),
                None => problems.push(format!(
                    "{at}: an include whose path the test cannot follow; write a literal path (or \
                     `concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/…\")`)"
                )),
            }
        }
    }
    for (c, _) in uses::LEAVING_ALLOWED {
        if !leaving_seen.contains(*c) {
            problems.push(format!(
                "tests/layering/uses.rs LEAVING_ALLOWED: {c} includes nothing outside its folder \
                 now: remove the entry"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn unsafe_code_is_forbidden_outside_the_executor() {
    let lints = manifests::workspace_lints(&read(&root().join("Cargo.toml")));
    let mut problems: Vec<String> = ["unsafe_op_in_unsafe_fn", "undocumented_unsafe_blocks"]
        .into_iter()
        .filter(|l| !lints.iter().any(|have| have == l))
        .map(|l| format!("Cargo.toml: [workspace.lints] lacks `{l}`"))
        .collect();
    for (name, dir) in crates() {
        let root_file = if name == "rigel" {
            "src/main.rs"
        } else {
            "src/lib.rs"
        };
        let text = read(&dir.join(root_file));
        let forbids = text.contains("#![forbid(unsafe_code)]");
        if name == "rigel-exec" {
            if forbids {
                problems
                    .push("rigel-exec forbids unsafe: it is the one crate that needs it".into());
            }
        } else if !forbids {
            problems.push(format!(
                "{name}/{root_file}: no `#![forbid(unsafe_code)]` (unsafe belongs in rigel-exec)"
            ));
        }
    }
    assert!(problems.is_empty(), "unsafe:\n{}", problems.join("\n"));
}

#[test]
fn the_executors_unsafe_lives_only_in_its_engines() {
    let src = root().join("crates/rigel-exec/src");
    let mut problems = Vec::new();
    let mut allowed_seen = Vec::new();
    for (rel, text) in unsafe_code::outside_home(&src) {
        let lines = unsafe_code::unsafe_lines(&text);
        if lines.is_empty() {
            continue;
        }
        if unsafe_code::ALLOWED.iter().any(|(f, _)| *f == rel) {
            allowed_seen.push(rel);
            continue;
        }
        for line in lines {
            problems.push(format!(
                "crates/rigel-exec/src/{rel}:{line}: `unsafe` outside src/{}/: put the operation \
                 behind a safe API in the engines (or `engines::sys`)",
                unsafe_code::UNSAFE_HOME
            ));
        }
    }
    for (f, _) in unsafe_code::ALLOWED {
        if !allowed_seen.iter().any(|s| s == f) {
            problems.push(format!(
                "tests/layering/unsafe_code.rs ALLOWED: {f} holds no `unsafe` now: remove the entry"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_two_modules_of_a_crate_import_each_other_in_a_cycle() {
    let mut problems = Vec::new();
    for (name, dir) in crates() {
        let files = modules::source_files(&dir.join("src"));
        for cycle in modules::cycles(&files) {
            if modules::ALLOWED
                .iter()
                .any(|(c, m, _)| *c == name && cycle.module == *m)
            {
                continue;
            }
            problems.push(format!("{name}: {cycle}"));
        }
    }
    assert!(
        problems.is_empty(),
        "import cycles between modules:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_allowed_cycles_still_exist() {
    // An entry of ALLOWED whose cycle is gone would hide the next one: remove it.
    for (name, module, why) in modules::ALLOWED {
        let (_, dir) = crates()
            .into_iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("ALLOWED names a crate that does not exist: {name}"));
        let files = modules::source_files(&dir.join("src"));
        assert!(
            modules::cycles(&files).iter().any(|c| c.module == *module),
            "{name} `{module}` ({why}) has no cycle any more: remove it from ALLOWED"
        );
    }
}

/// Issue 43: files others may have written are read through rigel-fs (no link, no FIFO, bounded).
#[test]
fn untrusted_files_are_read_only_through_rigel_fs() {
    let mut problems = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (name, dir) in crates() {
        if !fs_rules::READERS.contains(&name.as_str()) {
            continue;
        }
        let src = dir.join("src");
        let files = modules::source_files(&src);
        for (file, pattern, line) in fs_rules::uses_of(&files, &src, &fs_rules::READ_PATTERNS) {
            let allowed = fs_rules::READS_ALLOWED
                .iter()
                .any(|(c, f, p, _)| *c == name && *f == file && *p == pattern);
            if allowed {
                seen.insert((name.clone(), file, pattern));
            } else {
                problems.push(format!(
                    "{name}/src/{file}:{line}: `{pattern}` reads by path, following links and \
                     waiting on a FIFO; use rigel_fs::read_no_follow / open_no_follow / \
                     Dir::read_at_most (or list it in tests/layering/fs_rules.rs with why)"
                ));
            }
        }
    }
    for (c, f, p, _) in fs_rules::READS_ALLOWED {
        if !seen.contains(&(c.to_string(), f.to_string(), *p)) {
            problems.push(format!("{c}/src/{f}: `{p}` is allowed but no longer used"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn nothing_is_written_by_a_path_outside_rigel_fs() {
    let mut problems = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (name, dir) in crates() {
        if name == "rigel-fs" || name == "rigel-testkit" {
            continue;
        }
        let src = dir.join("src");
        for (file, pattern, line) in fs_rules::uses(&modules::source_files(&src), &src) {
            let allowed = fs_rules::ALLOWED
                .iter()
                .any(|(c, f, p, _)| *c == name && *f == file && *p == pattern);
            if allowed {
                seen.insert((name.clone(), file, pattern));
            } else {
                problems.push(format!(
                    "{name}/src/{file}:{line}: `{pattern}` follows links and writes by path; \
                     use rigel_fs::Dir (or list it in tests/layering/fs_rules.rs with why)"
                ));
            }
        }
    }
    // An allowance whose use is gone would hide the next one: remove it.
    for (c, f, p, _) in fs_rules::ALLOWED {
        if !seen.contains(&(c.to_string(), f.to_string(), *p)) {
            problems.push(format!("{c}/src/{f}: `{p}` is allowed but no longer used"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
