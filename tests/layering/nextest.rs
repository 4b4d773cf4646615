//! `cargo nextest run` (the README's and CI's test command) runs every test in a process of its
//! own, where `serial_test`'s in-process lock keeps nothing apart. So `.config/nextest.toml` names
//! every `#[serial_test::serial]` test in one override that runs each alone (a test group of one
//! thread, every test thread taken). This checks the list is exactly the marked tests.

use std::collections::BTreeSet;
use std::path::Path;

/// The nextest filter clause naming the test `name` in the file `file` of the crate `krate` in
/// `dir`: its binary's id and its module path (files mirror modules; `mod.rs`, `lib.rs` and an
/// integration test folder's `main.rs` name their folder).
fn clause(krate: &str, dir: &Path, file: &Path, name: &str) -> Option<String> {
    let rel = file.strip_prefix(dir).ok()?;
    let mut parts: Vec<String> = rel
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let (binary, skip) = match parts.first().map(String::as_str) {
        Some("src") if krate == "rigel" => (format!("{krate}::bin/{krate}"), 1),
        Some("src") => (krate.to_owned(), 1),
        Some("tests") if parts.len() > 1 => {
            let bin = &parts[1];
            if krate == "rigel" {
                (format!("rigel::{bin}"), 2)
            } else {
                (format!("{krate}::{bin}"), 2)
            }
        }
        _ => return None,
    };
    // A single-file integration test is its own root, as is a folder's main.rs.
    let single = parts.first().is_some_and(|p| p == "tests") && parts.len() == 2;
    parts.drain(..if single { 2 } else { skip });
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts.push(name.to_owned());
    Some(format!("binary_id({binary}) & test(={})", parts.join("::")))
}

/// Every `#[serial_test::serial]` test of the workspace, as nextest filter clauses.
fn serial_tests() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (krate, dir) in super::crates() {
        let mut files = Vec::new();
        super::marks::rs_files(&dir.join("src"), &mut files);
        super::marks::rs_files(&dir.join("tests"), &mut files);
        for file in files {
            for (name, _, mark) in super::marks::tests_in(&file) {
                if mark.as_deref() == Some("serial") {
                    let c = clause(&krate, &dir, &file, &name)
                        .unwrap_or_else(|| panic!("{}: no test binary", file.display()));
                    out.insert(c);
                }
            }
        }
    }
    out
}

#[test]
fn nextest_runs_every_serial_test_alone() {
    let path = super::root().join(".config/nextest.toml");
    let config: toml::Table = super::read(&path)
        .parse()
        .expect(".config/nextest.toml parses");
    let overrides = config["profile"]["default"]["overrides"]
        .as_array()
        .expect("[[profile.default.overrides]]");
    let serial = overrides
        .iter()
        .find(|o| o.get("test-group").and_then(|g| g.as_str()) == Some("serial"))
        .expect("an override with test-group = \"serial\"");
    assert_eq!(
        serial.get("threads-required").and_then(|t| t.as_str()),
        Some("num-test-threads"),
        "the serial tests take every test thread, so nothing runs beside them"
    );
    assert_eq!(
        config["test-groups"]["serial"]["max-threads"].as_integer(),
        Some(1)
    );
    let listed: BTreeSet<String> = serial["filter"]
        .as_str()
        .expect("a filter")
        .split('|')
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty())
        .collect();
    let marked = serial_tests();
    assert!(!marked.is_empty(), "no #[serial_test::serial] test found");
    assert!(
        listed == marked,
        ".config/nextest.toml's serial filter is not the #[serial_test::serial] tests:\n\
         listed, not marked: {:?}\nmarked, not listed: {:?}\nthe filter to paste:\n{}",
        listed.difference(&marked).collect::<Vec<_>>(),
        marked.difference(&listed).collect::<Vec<_>>(),
        marked.iter().cloned().collect::<Vec<_>>().join(" |\n")
    );
}
