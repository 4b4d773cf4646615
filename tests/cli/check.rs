//! `rigel check`: every shipped spec checks clean; every broken spec in tests/broken/ exits 2 with a
//! diagnostic naming its line, never a panic (snapshots of the rendered diagnostics).

use super::builder::{repo, rigel, shipped_specs};

#[test]
#[serial_test::parallel]
fn every_shipped_spec_checks_clean() {
    let specs = shipped_specs();
    assert!(specs.len() >= 9, "found {specs:?}");
    rigel().arg("check").args(&specs).run().code(0);
}

#[test]
#[serial_test::parallel]
fn broken_specs_are_diagnosed_with_their_line() {
    insta::glob!("../broken", "*.toml", |path| {
        let name = path
            .file_name()
            .expect("a file name")
            .to_string_lossy()
            .into_owned();
        let out = rigel().current_broken(&name).run();
        assert_eq!(out.code, 2, "{name}: exit code\n{}", out.stderr);
        assert!(
            !out.stderr.contains("panicked"),
            "{name} panicked:\n{}",
            out.stderr
        );
        let at = expected_at(path, &name);
        assert!(
            out.stderr.contains(&at),
            "{name}: the diagnostic should point at {at}:\n{}",
            out.stderr
        );
        insta::assert_snapshot!(out.stderr);
    });
}

/// Each broken spec says where its mistake is in a first-line comment: `# line: N` (in itself) or
/// `# line: FILE:N` (in a file it extends). Returns the `FILE:N:` a diagnostic must show.
fn expected_at(path: &std::path::Path, name: &str) -> String {
    let text = std::fs::read_to_string(path).expect("readable fixture");
    let at = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("# line: "))
        .expect("a first line `# line: N`")
        .trim();
    if at.contains(':') {
        format!("{at}:")
    } else {
        format!("{name}:{at}:")
    }
}

trait BrokenExt {
    fn current_broken(self, name: &str) -> Self;
}

impl BrokenExt for super::builder::Rigel {
    /// `rigel check NAME` run inside tests/broken, so diagnostics show the bare file name.
    fn current_broken(self, name: &str) -> Self {
        self.cwd(repo().join("tests/broken")).args(["check", name])
    }
}

#[test]
#[serial_test::parallel]
fn a_missing_spec_has_no_stray_line_before_its_diagnostic() {
    let out = rigel().args(["check", "nosuch.toml"]).run().code(2);
    let first = out.stderr.lines().find(|l| !l.trim().is_empty());
    assert!(
        first.is_some_and(|l| l.contains("cannot read spec `nosuch.toml`")),
        "the diagnostic comes first:\n{}",
        out.stderr
    );
}
