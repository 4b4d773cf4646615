//! Every test in a test binary that runs timing-sensitive tests one at a time carries a mark.
//!
//! `serial_test`'s `#[serial]` keeps serial tests apart from each other and from `#[parallel]`
//! ones, but a test with neither mark runs beside a serial test and can break its timing. So in
//! every binary (a crate's unit tests, or one integration-test folder) that holds a `#[serial]`
//! test, every `#[test]` says `serial` or `parallel`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// The test functions of one file: (name, line, its mark if any).
pub(super) fn tests_in(path: &Path) -> Vec<(String, usize, Option<String>)> {
    let text = std::fs::read_to_string(path).expect("a source file");
    let Ok(file) = syn::parse_file(&text) else {
        return Vec::new();
    };
    let mut v = Tests(Vec::new());
    v.visit_file(&file);
    v.0
}

struct Tests(Vec<(String, usize, Option<String>)>);

impl<'ast> Visit<'ast> for Tests {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let last = |a: &syn::Attribute| {
            a.path()
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default()
        };
        if f.attrs.iter().any(|a| last(a) == "test") {
            let mark = f
                .attrs
                .iter()
                .map(last)
                .find(|n| n == "serial" || n == "parallel");
            let line = f.sig.ident.span().start().line;
            self.0.push((f.sig.ident.to_string(), line, mark));
        }
        syn::visit::visit_item_fn(self, f);
    }
}

pub(super) fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Test binaries by name: each crate's `src/` (its unit tests) and each folder or file under a
/// `tests/` folder (one integration-test binary each).
fn binaries() -> BTreeMap<String, Vec<PathBuf>> {
    let mut out: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for (name, dir) in super::crates() {
        let mut files = Vec::new();
        rs_files(&dir.join("src"), &mut files);
        out.insert(format!("{name} (unit tests)"), files);
        let Ok(entries) = std::fs::read_dir(dir.join("tests")) else {
            continue;
        };
        for e in entries.filter_map(Result::ok) {
            let p = e.path();
            let mut files = Vec::new();
            if p.is_dir() {
                rs_files(&p, &mut files);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p.clone());
            }
            let bin = p.file_stem().unwrap_or_default().to_string_lossy();
            out.insert(format!("{name} tests/{bin}"), files);
        }
    }
    out
}

#[test]
fn every_test_beside_a_serial_one_is_marked() {
    let mut unmarked = Vec::new();
    for (bin, files) in binaries() {
        let tests: Vec<_> = files
            .iter()
            .flat_map(|f| tests_in(f).into_iter().map(move |t| (f.clone(), t)))
            .collect();
        if !tests.iter().any(|(_, t)| t.2.as_deref() == Some("serial")) {
            continue;
        }
        for (file, (name, line, mark)) in &tests {
            if mark.is_none() {
                let rel = file.strip_prefix(super::root()).unwrap_or(file);
                unmarked.push(format!("{bin}: {}:{line} `{name}`", rel.display()));
            }
        }
    }
    assert!(
        unmarked.is_empty(),
        "these tests share a binary with #[serial_test::serial] tests but carry no mark, so they \
         run beside them; add #[serial_test::serial] if timing-sensitive, else \
         #[serial_test::parallel]:\n{}",
        unmarked.join("\n")
    );
}
