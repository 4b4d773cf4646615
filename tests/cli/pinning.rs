//! `[run] cpus`: a pinned run records the CPUs its workers ran on (the executor's own reading of
//! each worker's CPU, not the list asked) and what pinned them, and its report says so; CPUs rigel
//! may not run on stop the run before it makes a folder.

use super::builder::rigel;
use std::path::Path;

fn spec(dir: &Path, cpus: &str) -> std::path::PathBuf {
    let path = dir.join("pinned.toml");
    std::fs::write(
        &path,
        format!(
            "[[target]]\npath = \"{}\"\nsize = \"8MiB\"\n\n[run]\nduration = \"300ms\"\n\
             workers = 2\ncpus = \"{cpus}\"\n\n[class.small]\nsize = \"4KiB\"\n\n\
             [matrix]\nshape = \"point\"\nsmall = \"2\"\n",
            dir.join("data.bin").display()
        ),
    )
    .expect("spec written");
    path
}

#[test]
#[serial_test::parallel]
fn a_pinned_run_records_the_cpus_its_workers_ran_on() {
    let tmp = tempfile::tempdir_in("/dev/shm").expect("tmp on tmpfs");
    let out = tmp.path().join("run");
    let r = rigel()
        .arg("run")
        .arg(spec(tmp.path(), "1"))
        .arg("--out")
        .arg(&out)
        .run();
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let text = std::fs::read_to_string(out.join("results.json")).expect("results.json");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    let placement = &doc["points"][0]["placement"];
    assert_eq!(placement["pinned_by"], "cpus = \"1\"", "{placement}");
    assert_eq!(
        placement["worker_cpus"],
        serde_json::json!([1, 1]),
        "both workers ran on CPU 1: {placement}"
    );
    r.stdout_has("placement: workers on CPUs 1 (cpus = \"1\")");
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(
        report.contains("- **Placement:** workers on CPUs 1 (cpus = \"1\")"),
        "{report}"
    );
}

#[test]
#[serial_test::parallel]
fn cpus_rigel_may_not_run_on_stop_the_run_before_it_starts() {
    let tmp = tempfile::tempdir_in("/dev/shm").expect("tmp on tmpfs");
    let out = tmp.path().join("run");
    let r = rigel()
        .arg("run")
        .arg(spec(tmp.path(), "8000"))
        .arg("--out")
        .arg(&out)
        .run();
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    r.stderr_has("cpus = \"8000\": CPU 8000 is not one rigel may run on here (allowed: ");
    assert!(!out.exists(), "no run folder for a run that cannot start");
}
