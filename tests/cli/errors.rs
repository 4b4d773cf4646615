//! Errors that say what is wrong, one test per message (a template's undefined variable is in
//! report.rs, a missing spec's diagnostic in check.rs).

use super::builder::{repo, rigel};
use super::scenario::Spec;
use std::path::Path;

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
