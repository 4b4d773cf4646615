//! `rigel check`: every shipped spec checks clean; every broken spec in tests/broken/ exits 2 with a
//! diagnostic naming its line, never a panic (snapshots of the rendered diagnostics).

use super::builder::{repo, rigel, shipped_specs};
use serde_json::Value;

use super::scenario::Spec;
use std::path::Path;

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

// ---- schema (from its own file) ----
// The spec JSON Schema: `rigel schema` is the checked-in file, every shipped spec validates
// against it (with a JSON Schema validator, as an editor would), and a key typo does not.

const FILE: &str = "schema/rigel-spec.schema.json";

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join(FILE)).expect("the checked-in schema");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::draft202012::new(&schema).expect("a valid draft 2020-12 schema")
}

/// A spec as the validator sees it: TOML turned into JSON, as taplo does.
fn as_json(toml_text: &str) -> Value {
    toml::from_str(toml_text).expect("the spec is TOML")
}

fn errors(v: &jsonschema::Validator, toml_text: &str) -> Vec<String> {
    v.iter_errors(&as_json(toml_text))
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
#[serial_test::parallel]
fn rigel_schema_prints_the_checked_in_file() {
    let out = rigel().arg("schema").run().code(0);
    let on_disk = std::fs::read_to_string(repo().join(FILE)).unwrap();
    assert!(
        out.stdout == on_disk,
        "{FILE} is stale: run `cargo run -- schema > {FILE}`"
    );
}

#[test]
#[serial_test::parallel]
fn every_shipped_spec_validates() {
    let v = validator();
    let mut checked = 0;
    for path in shipped_specs() {
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            errors(&v, &text),
            Vec::<String>::new(),
            "{}",
            path.display()
        );
        checked += 1;
    }
    assert!(checked >= 9);
}

#[test]
#[serial_test::parallel]
fn a_spec_with_a_schema_line_validates_and_a_key_typo_does_not() {
    let v = validator();
    let good = "#:schema ../schema/rigel-spec.schema.json\n[[target]]\npath = \"/dev/sdb\"\n\n[run]\nduration = \"10s\"\n\n[class.small]\nsize = \"8KiB\"\naccess = \"random\"\n\n[matrix]\nshape = \"basic\"\nsmall = \"1..=8 x2\"\n";
    assert_eq!(errors(&v, good), Vec::<String>::new());
    let typo = good.replace("duration", "duraton");
    let found = errors(&v, &typo);
    assert!(
        found
            .iter()
            .any(|e| e.contains("duraton") && e.contains("/run")),
        "{found:?}"
    );
    let bad_value = good.replace("\"random\"", "\"randon\"");
    assert!(!errors(&v, &bad_value).is_empty(), "an unknown access word");
    let top_typo = good.replace("[matrix]", "[matrx]");
    assert!(!errors(&v, &top_typo).is_empty(), "an unknown table");
}

// ---- errors (from its own file) ----
// Errors that say what is wrong, one test per message (a template's undefined variable is in
// report.rs, a missing spec's diagnostic in check.rs).

/// A one-point read spec over `target` (no size: the target must exist).
fn spec(dir: &Path, target: &str) -> std::path::PathBuf {
    let spec = Spec::default()
        .target(target, &[])
        .set("run.duration", "1s")
        .set("class.s.size", "4KiB")
        .set("matrix.s", "1");
    let path = dir.join("t.toml");
    std::fs::write(&path, spec.text()).expect("spec written");
    path
}

/// `rigel run SPEC` into a run folder under `dir`; a target error exits 1.
fn run_fails(dir: &Path, spec: &Path) -> super::Output {
    rigel()
        .args(["run", "--out"])
        .arg(dir.join("run"))
        .arg(spec)
        .run()
        .code(1)
}

#[test]
#[serial_test::parallel]
fn a_directory_as_a_target_is_a_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("adir");
    std::fs::create_dir(&target).unwrap();
    let out = run_fails(tmp.path(), &spec(tmp.path(), &target.display().to_string()));
    out.stderr_has("adir: is a directory");
    assert!(!out.stderr.contains("O_DIRECT"), "{}", out.stderr);
}

#[test]
#[serial_test::parallel]
fn a_missing_device_does_not_exist() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run_fails(tmp.path(), &spec(tmp.path(), "/dev/rigel-no-such-disk"));
    out.stderr_has("/dev/rigel-no-such-disk: no such device: the path does not exist");
    assert!(!out.stderr.contains("declare its size"), "{}", out.stderr);
}

#[test]
#[serial_test::parallel]
fn compare_with_a_missing_run_says_it_does_not_exist() {
    let base = repo().join("tests/fixtures/results-basic.json");
    let out = rigel()
        .arg("compare")
        .arg(&base)
        .arg("runs/no-such-run")
        .run()
        .code(1);
    out.stderr_has("`runs/no-such-run` does not exist");
}

#[test]
#[serial_test::parallel]
fn check_and_plan_warn_about_a_missing_target_without_a_size() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nosuch.bin");
    let spec = spec(tmp.path(), &missing.display().to_string());
    for cmd in ["check", "plan"] {
        let out = rigel().arg(cmd).arg(&spec).run().code(0);
        assert!(
            out.stderr.contains(&format!(
                "warning: target `{}` does not exist, and the spec declares no size",
                missing.display()
            )),
            "{cmd}: {}",
            out.stderr
        );
    }
    std::fs::write(&missing, vec![0u8; 1 << 20]).unwrap();
    let out = rigel().arg("check").arg(&spec).run().code(0);
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
}
