//! The walls between the pipeline's stages, checked on every `cargo test`:
//!
//! - every crate depends only on crates of earlier stages (the order is written once, in the root
//!   Cargo.toml's `[workspace.metadata.rigel] stages`); Cargo itself refuses an import of a crate
//!   that is not a dependency, and refuses a cycle of dependencies;
//! - clap appears only in the binary, `unsafe` only in the executor (`#![forbid(unsafe_code)]` on
//!   every other crate, and the workspace's unsafe lints on all);
//! - no two modules of one crate import each other in a cycle, read with `syn` as the compiler reads
//!   them (grouped imports, `super::` chains, strings and comments included).

mod fs_rules;
mod manifests;
mod marks;
mod modules;
mod nextest;

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

#[test]
fn every_crate_depends_only_on_earlier_stages() {
    let stages = manifests::stages(&read(&root().join("Cargo.toml")));
    let mut problems = Vec::new();
    for (name, dir) in crates() {
        let manifest = manifests::Manifest::parse(&name, &read(&dir.join("Cargo.toml")));
        problems.extend(manifest.problems(&stages));
    }
    assert!(problems.is_empty(), "layering:\n{}", problems.join("\n"));
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
