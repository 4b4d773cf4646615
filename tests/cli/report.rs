//! `rigel report`: re-renders a run folder (here the checked-in results of a real `rigel run`) in
//! every format, with a user template, and refuses what it cannot read.

use super::builder::{repo, rigel};
use std::path::Path;

use super::scenario::{Scenario, Spec};

/// A run folder holding the fixture's `results.json`.
fn run_folder(dir: &Path) -> std::path::PathBuf {
    let folder = dir.join("run");
    std::fs::create_dir_all(&folder).expect("create the run folder");
    std::fs::copy(
        repo().join("tests/fixtures/results-quick-real-run.json"),
        folder.join("results.json"),
    )
    .expect("copy the fixture");
    folder
}

#[test]
#[serial_test::parallel]
fn report_renders_every_format_into_out() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let folder = run_folder(tmp.path());
    let out = tmp.path().join("out");
    let run = rigel()
        .arg("report")
        .arg(&folder)
        .args([
            "--format", "orion", "--format", "markdown", "--format", "html", "--format", "json",
            "--out",
        ])
        .arg(&out)
        .run()
        .code(0);
    for name in [
        "quick_20261130_0052_summary.txt",
        "quick_20261130_0052_iops.csv",
        "quick_20261130_0052_hist.txt",
        "report.md",
        "chart-iops.svg",
        "report.html",
        "report.json",
    ] {
        assert!(
            out.join(name).is_file(),
            "{name} missing; stdout:\n{}",
            run.stdout
        );
    }
    let iops = std::fs::read_to_string(out.join("quick_20261130_0052_iops.csv")).expect("iops.csv");
    assert_eq!(
        iops,
        "Large/Small,      1,      4,     16\n          0,  16120,  37053,  53180\n          1\n          2\n"
    );
    let doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("report.json")).expect("report.json"),
    )
    .expect("JSON");
    assert_eq!(doc["plan"]["name"], "quick");
}

#[test]
#[serial_test::parallel]
fn report_11_1_dialect_and_testname() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let folder = run_folder(tmp.path());
    rigel()
        .arg("report")
        .arg(&folder)
        .args([
            "--format",
            "orion",
            "--dialect",
            "11.1",
            "--testname",
            "vm1",
        ])
        .run()
        .code(0);
    let summary =
        std::fs::read_to_string(folder.join("vm1_20261130_0052_summary.txt")).expect("summary");
    assert!(
        summary.starts_with("ORION VERSION 11.1.0.7.0\n\n"),
        "ORION's version line exactly: {summary}"
    );
    assert!(summary.contains("\nTest: vm1\n"));
    assert!(
        summary.ends_with("Minimum Small Latency=0.06 @ Small=1 and Large=0\n"),
        "{summary}"
    );
    assert!(
        !folder.join("vm1_20261130_0052_hist.txt").exists(),
        "11.1 had no _hist.txt"
    );
}

#[test]
#[serial_test::parallel]
fn report_with_a_broken_user_template_names_its_line() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let folder = run_folder(tmp.path());
    let tpl = tmp.path().join("mine.md");
    std::fs::write(&tpl, "# {{ run.name }}\n\n{{ headline.max_iops.vaule }}\n")
        .expect("write template");
    let out = rigel()
        .arg("report")
        .arg(&folder)
        .arg("--template")
        .arg(&tpl)
        .run()
        .code(1);
    assert!(
        out.stderr.contains(
            "template mine.md, line 3: undefined variable `headline.max_iops.vaule` \
             (`headline.max_iops` has no `vaule`); did you mean `value`?"
        ),
        "the variable and the nearest name: {}",
        out.stderr
    );
    std::fs::write(
        &tpl,
        "# {{ run.name }}: {{ headline.max_iops.value | thousands }} IOPS\n",
    )
    .expect("write");
    rigel()
        .arg("report")
        .arg(&folder)
        .arg("--template")
        .arg(&tpl)
        .run()
        .code(0);
    assert_eq!(
        std::fs::read_to_string(folder.join("mine.md")).expect("mine.md"),
        "# quick: 53,180 IOPS\n"
    );
}

#[test]
#[serial_test::parallel]
fn report_refuses_a_newer_schema_and_a_non_run() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let folder = run_folder(tmp.path());
    let path = folder.join("results.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("JSON");
    doc["schema_version"] = serde_json::json!(99);
    std::fs::write(&path, doc.to_string()).expect("write");
    let out = rigel().arg("report").arg(&folder).run().code(1);
    out.stderr_has("schema version 99, newer than this rigel understands");
    let out = rigel().arg("report").arg(tmp.path()).run().code(1);
    out.stderr_has("is not a rigel run folder");
}

// ---- history series (from its own file) ----
// `rigel history` keys a series by what was run (issue 42): runs that share a name but not a plan
// are not compared with each other, and a run still in progress is "not compared" rather than
// "no regression … of 0".

#[test]
#[serial_test::parallel]
fn one_name_two_shapes_are_two_series_and_a_run_in_progress_is_not_compared() {
    let tmp = Scenario::new();
    let target = tmp.file("t.bin", 16 << 20);
    let spec = |levels: &str| {
        Spec::named("x")
            .destructive_target(&target)
            .set("run.duration", "1s")
            .set("run.warmup", "0s")
            .set("class.small.size", "8KiB")
            .set("matrix.small", levels)
    };
    let one = tmp.spec("one.toml", &spec("1"));
    let two = tmp.spec("two.toml", &spec("1, 2"));
    for (spec, out) in [(&one, "runs/a"), (&two, "runs/b"), (&one, "runs/c")] {
        tmp.run(spec, out, &["--allow-destructive"]).code(0);
    }
    // A copy of the last run without its results.json: a run still in progress.
    let partial = tmp.join("runs/d");
    std::fs::create_dir_all(&partial).unwrap();
    for e in std::fs::read_dir(tmp.join("runs/c")).unwrap().flatten() {
        let name = e.file_name();
        if name != "results.json" && e.path().is_file() {
            std::fs::copy(e.path(), partial.join(&name)).unwrap();
        }
    }
    let runs = tmp.join("runs");
    rigel().arg("history").arg(&runs).run().code(0);
    let html = std::fs::read_to_string(runs.join("index.html")).expect("index.html");
    // a and c are one series, compared; b, of another shape, is a first run of its own.
    assert_eq!(html.matches("first run").count(), 2, "{html}");
    assert_eq!(
        html.matches("<figure id=\"trend-").count(),
        1,
        "one trend: a and c"
    );
    assert!(html.contains("in progress: not compared"), "{html}");
    assert!(!html.contains("inconclusive of 0"), "{html}");
}
