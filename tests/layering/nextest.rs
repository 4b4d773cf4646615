//! `cargo nextest run` (the README's and CI's test command) runs every test in a process of its
//! own, where `serial_test`'s in-process lock keeps nothing apart. So `.config/nextest.toml` names
//! every `#[serial_test::serial]` test in one of two overrides that keep every other test away:
//! the sleepy tests (a few at a time) and the alone ones (every test thread taken). This checks the
//! two lists are exactly the marked tests and that their order keeps the others out.

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

/// The override whose `test-group` is `group`, and its filter's clauses.
fn block<'a>(overrides: &'a [toml::Value], group: &str) -> (&'a toml::Value, BTreeSet<String>) {
    let o = overrides
        .iter()
        .find(|o| o.get("test-group").and_then(|g| g.as_str()) == Some(group))
        .unwrap_or_else(|| panic!("an override with test-group = \"{group}\""));
    let listed = o["filter"]
        .as_str()
        .expect("a filter")
        .split('|')
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty())
        .collect();
    (o, listed)
}

fn priority(o: &toml::Value) -> i64 {
    o.get("priority")
        .and_then(toml::Value::as_integer)
        .unwrap_or(0)
}

/// The marked tests run in two blocks with nothing else beside them: the sleepy ones (a device
/// slowed by a sleep or a throttle) a few at a time, first; then the alone ones, each taking every
/// test thread. What keeps the rest away from the sleepy ones is nextest's order: the first alone
/// test waits for every thread, and nothing after it starts before it, so the alone block must
/// come right after the sleepy one, before every other override (but one that only orders sleepy
/// tests among themselves).
#[test]
fn nextest_runs_every_serial_test_alone() {
    let path = super::root().join(".config/nextest.toml");
    let config: toml::Table = super::read(&path)
        .parse()
        .expect(".config/nextest.toml parses");
    let overrides = config["profile"]["default"]["overrides"]
        .as_array()
        .expect("[[profile.default.overrides]]");
    let threads = config["profile"]["default"]["test-threads"]
        .as_integer()
        .expect("a fixed test-threads");
    let max = |group: &str| config["test-groups"][group]["max-threads"].as_integer();

    let (alone, alone_listed) = block(overrides, "serial");
    assert_eq!(
        alone.get("threads-required").and_then(|t| t.as_str()),
        Some("num-test-threads"),
        "an alone test takes every test thread, so nothing runs beside it"
    );
    assert_eq!(max("serial"), Some(1));
    assert!(
        !alone_listed.is_empty(),
        "no alone test: nothing would hold the other tests back until the sleepy ones end"
    );

    let (sleepy, sleepy_listed) = block(overrides, "sleepy");
    let each = sleepy
        .get("threads-required")
        .and_then(toml::Value::as_integer)
        .expect("a sleepy test takes a fixed number of threads");
    let at_once = max("sleepy").expect("the sleepy group's max-threads");
    assert!(
        each >= 1 && at_once >= 1 && each * at_once <= threads,
        "{at_once} sleepy tests of {each} threads each do not fit in {threads} test threads"
    );
    assert!(
        priority(sleepy) > priority(alone),
        "the sleepy tests start first, the alone ones after them"
    );
    for o in overrides {
        if std::ptr::eq(o, sleepy) || std::ptr::eq(o, alone) {
            continue;
        }
        // An order within the sleepy block (the longest first): only sleepy tests, only a priority.
        let clauses: BTreeSet<String> = o["filter"]
            .as_str()
            .unwrap_or_default()
            .split('|')
            .map(|c| c.trim().to_owned())
            .filter(|c| !c.is_empty())
            .collect();
        let keys: Vec<&str> = o
            .as_table()
            .map_or(Vec::new(), |t| t.keys().map(String::as_str).collect());
        let orders_sleepy = clauses.is_subset(&sleepy_listed)
            && !clauses.is_empty()
            && keys.iter().all(|k| matches!(*k, "filter" | "priority"));
        assert!(
            priority(o) < priority(alone) || orders_sleepy && priority(o) > priority(alone),
            "an override of priority {} starts its tests beside the sleepy ones: {o}",
            priority(o)
        );
    }

    let both: Vec<_> = sleepy_listed.intersection(&alone_listed).collect();
    assert!(both.is_empty(), "listed both sleepy and alone: {both:?}");
    let listed: BTreeSet<String> = sleepy_listed.union(&alone_listed).cloned().collect();
    let marked = serial_tests();
    assert!(!marked.is_empty(), "no #[serial_test::serial] test found");
    let new: Vec<_> = marked.difference(&listed).cloned().collect();
    assert!(
        listed == marked,
        ".config/nextest.toml's sleepy and alone filters are not the #[serial_test::serial] \
         tests:\nlisted, not marked: {:?}\nmarked, not listed: {:?}\nadd each new one to the \
         alone filter (or the sleepy one if its device waits on a sleep or a throttle, not on a \
         CPU):\n{}",
        listed.difference(&marked).collect::<Vec<_>>(),
        new,
        new.join(" |\n")
    );
}
