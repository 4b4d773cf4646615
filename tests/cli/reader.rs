//! One reader of run folders: a torn and partial folder, a foreign one and a newer one, each given
//! to `rigel report`, `rigel compare` and `rigel history`, get the same answer from all three (the
//! same points read, or the same error line), since all go through `rigel_record::load`.

use super::builder::{Output, repo, rigel};
use std::path::{Path, PathBuf};

/// The checked-in results of a real quick run (5 points), and an empty folder `name` under `root`.
fn fixture(root: &Path, name: &str) -> (serde_json::Value, PathBuf) {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).expect("create the folder");
    let text = std::fs::read_to_string(repo().join("tests/fixtures/results-quick-real-run.json"))
        .expect("the fixture");
    (serde_json::from_str(&text).expect("JSON"), dir)
}

/// The fixture's closed run, as the folder a run leaves before it closes: its header, plan and
/// spec, the first 3 points in `results.jsonl` and a torn half of the 4th.
fn torn_and_partial(root: &Path) -> PathBuf {
    let (mut doc, dir) = fixture(root, "torn");
    let write = |name: &str, text: String| std::fs::write(dir.join(name), text).expect("write");
    write("plan.json", doc["plan"].to_string());
    write(
        "spec.toml",
        doc["spec_toml"].as_str().expect("spec_toml").to_owned(),
    );
    let points = doc["points"].as_array().expect("points").clone();
    let obj = doc.as_object_mut().expect("an object");
    for key in ["finished", "spec_toml", "plan", "points"] {
        obj.remove(key);
    }
    write("run.json", doc.to_string());
    let mut lines: String = points[..3].iter().map(|p| format!("{p}\n")).collect();
    let fourth = points[3].to_string();
    lines.push_str(&fourth[..fourth.len() / 2]);
    write("results.jsonl", lines);
    dir
}

/// A folder with a `results.json` that rigel did not write.
fn foreign(root: &Path) -> PathBuf {
    let dir = root.join("foreign");
    std::fs::create_dir_all(&dir).expect("create the folder");
    std::fs::write(dir.join("results.json"), "{\"hello\": \"world\"}\n").expect("write");
    dir
}

/// The fixture's results with a schema this rigel does not know.
fn newer(root: &Path) -> PathBuf {
    let (mut doc, dir) = fixture(root, "newer");
    doc["schema_version"] = serde_json::json!(99);
    std::fs::write(dir.join("results.json"), doc.to_string()).expect("write");
    dir
}

fn report(dir: &Path) -> Output {
    rigel()
        .arg("report")
        .arg(dir)
        .args(["--format", "json"])
        .run()
}

fn compare(dir: &Path) -> Output {
    rigel().arg("compare").arg(dir).arg(dir).run()
}

/// `rigel history` over a root holding `dir` alone.
fn history(dir: &Path) -> Output {
    rigel()
        .arg("history")
        .arg(dir.parent().expect("a parent"))
        .run()
}

/// The error `rigel report` gives for `dir`, which `compare` and `history` must give too.
#[track_caller]
fn same_error_everywhere(dir: &Path, expected: &str) {
    let out = report(dir).code(1);
    let error = out
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("rigel report: "))
        .unwrap_or_else(|| panic!("no error from report:\n{}", out.stderr))
        .to_owned();
    assert!(error.contains(expected), "{error}");
    compare(dir)
        .code(1)
        .stderr_has(&format!("rigel compare: {error}"));
    let out = history(dir).code(0);
    out.stderr_has(&format!("not read: {error}"));
    out.stderr_has("0 runs of 0 specs");
}

#[test]
#[serial_test::parallel]
fn a_torn_and_partial_folder_reads_the_same_three_points_everywhere() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = torn_and_partial(tmp.path());
    let out = report(&dir).code(0);
    out.stderr_has("results.json is missing: the run did not finish");
    out.stderr_has("3 of 5 planned points finished");
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("report.json")).expect("report.json"),
    )
    .expect("JSON");
    assert_eq!(json["points"].as_array().map(Vec::len), Some(3));
    compare(&dir).code(0).stdout_has("over 3 matched points");
    let out = history(&dir).code(0);
    out.stderr_has("1 run of 1 spec");
    assert!(!out.stderr.contains("not read"), "{}", out.stderr);
}

#[test]
#[serial_test::parallel]
fn a_foreign_folder_gets_the_same_error_everywhere() {
    let tmp = tempfile::tempdir().expect("tempdir");
    same_error_everywhere(&foreign(tmp.path()), "is not a valid rigel file");
}

#[test]
#[serial_test::parallel]
fn a_newer_folder_gets_the_same_error_everywhere() {
    let tmp = tempfile::tempdir().expect("tempdir");
    same_error_everywhere(
        &newer(tmp.path()),
        "has schema version 99, newer than this rigel understands",
    );
}
