//! The run folder under faults: a torn last line, two rigels on one folder, failed points retried
//! by `--resume`, and the exit codes of what cannot be done (real runs on tmpfs files).

use super::builder::{results, rigel};
use super::scenario::{Scenario, Spec};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A spec of `points` 500 ms points over a 16 MiB test file rigel creates in `dir`.
fn spec(dir: &Path, points: usize) -> PathBuf {
    let loads: Vec<String> = (1..=points).map(|n| n.to_string()).collect();
    let spec = Spec::named("r")
        .target(dir.join("data.bin"), &[("size", "16MiB")])
        .set("run.duration", "500ms")
        .set("class.io.size", "4KiB")
        .set("matrix.io", loads.join(", "));
    let path = dir.join("r.toml");
    std::fs::write(&path, spec.text()).expect("spec written");
    path
}

fn full_run(tmp: &Path, points: usize) -> PathBuf {
    let out = tmp.join("run");
    rigel()
        .arg("run")
        .arg(spec(tmp, points))
        .arg("--out")
        .arg(&out)
        .run()
        .code(0);
    out
}

pub(super) fn jsonl(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line of results.jsonl is a whole point"))
        .collect()
}

fn states(doc: &Value) -> Vec<(u64, String)> {
    doc["points"]
        .as_array()
        .expect("points")
        .iter()
        .map(|p| {
            (
                p["point"]["id"].as_u64().expect("id"),
                p["status"]["state"].as_str().expect("state").to_owned(),
            )
        })
        .collect()
}

#[test]
#[serial_test::parallel]
fn a_torn_last_line_is_cut_and_resume_completes() {
    let tmp = Scenario::new();
    let out = full_run(tmp.path(), 3);
    // A crash while point 3 was being appended: half its line, no newline, no results.json.
    let text = std::fs::read_to_string(out.join("results.jsonl")).expect("jsonl");
    let lines: Vec<&str> = text.lines().collect();
    // Point 1 carries a figure whose decimal form the default float parser reads one ulp off (CI
    // saw it): a resumed run must keep the finished point's figures to the last bit.
    let mut first: Value = serde_json::from_str(lines[0]).expect("point 1");
    let tricky = 0.12295800000000007_f64;
    first["cpu"]["user_s"] = tricky.into();
    let first = serde_json::to_string(&first).expect("point 1 written");
    assert!(first.contains("0.12295800000000007"), "{first}");
    let torn = format!("{first}\n{}\n{}", lines[1], &lines[2][..lines[2].len() / 2]);
    std::fs::write(out.join("results.jsonl"), torn).expect("torn");
    std::fs::remove_file(out.join("results.json")).expect("no results.json");
    let resumed = rigel().arg("run").arg("--resume").arg(&out).run().code(0);
    assert!(
        resumed.stderr.contains("torn last line"),
        "the cut is reported: {}",
        resumed.stderr
    );
    let points = jsonl(&out);
    assert_eq!(points.len(), 3);
    let doc = results(&out);
    assert_eq!(
        states(&doc),
        vec![(1, "ok".into()), (2, "ok".into()), (3, "ok".into())]
    );
    let kept = doc["points"][0]["cpu"]["user_s"].as_f64().expect("user_s");
    assert_eq!(kept.to_bits(), tricky.to_bits(), "{kept:?} for {tricky:?}");
    // And the folder reads again as a whole.
    rigel().arg("report").arg(&out).run().code(0);
}

#[test]
#[serial_test::parallel]
fn a_second_rigel_on_a_folder_is_refused_naming_the_first() {
    let tmp = Scenario::new();
    let out = tmp.path().join("run");
    let spec = spec(tmp.path(), 6);
    let first = rigel().arg("run").arg(&spec).arg("--out").arg(&out).spawn();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !out.join("plan.json").exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = format!("pid {}", first.id());
    let again = rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(&out)
        .run()
        .code(1);
    again.stderr_has(&pid);
    let resume = rigel().arg("run").arg("--resume").arg(&out).run().code(1);
    resume.stderr_has(&pid);
    let done = first.wait_with_output().expect("the first run ends");
    assert_eq!(done.status.code(), Some(0));
    let ids: Vec<u64> = jsonl(&out)
        .iter()
        .map(|p| p["point"]["id"].as_u64().expect("id"))
        .collect();
    assert_eq!(ids, vec![1, 2, 3, 4, 5, 6], "no point duplicated or lost");
}

/// Marks point `id` in results.jsonl as failed by an I/O error, as a run stopped by one leaves it.
pub(super) fn fail_point(out: &Path, id: u64) {
    let mut points = jsonl(out);
    let p = points
        .iter_mut()
        .find(|p| p["point"]["id"] == id)
        .expect("the point");
    p["status"] = serde_json::json!({"state": "failed", "error": {
        "target": "data.bin", "offset": 4096, "errno": 5, "message": "Input/output error"}});
    let text: String = points
        .iter()
        .map(|p| format!("{}\n", serde_json::to_string(p).expect("json")))
        .collect();
    std::fs::write(out.join("results.jsonl"), text).expect("jsonl");
}

#[test]
#[serial_test::parallel]
fn resume_retries_a_failed_point_or_keeps_it_with_skip_failed() {
    let tmp = Scenario::new();
    let out = full_run(tmp.path(), 2);
    fail_point(&out, 2);
    let kept = rigel()
        .args(["run", "--skip-failed", "--resume"])
        .arg(&out)
        .run()
        .code(1);
    kept.stderr_has("kept (--skip-failed)");
    assert_eq!(
        states(&results(&out)),
        vec![(1, "ok".into()), (2, "failed".into())]
    );
    let retried = rigel().arg("run").arg("--resume").arg(&out).run().code(0);
    retried.stderr_has("run again");
    assert_eq!(
        states(&results(&out)),
        vec![(1, "ok".into()), (2, "ok".into())]
    );
    // results.jsonl keeps the history: the failed attempt, then the retry.
    let history: Vec<String> = jsonl(&out)
        .iter()
        .map(|p| format!("{}{}", p["point"]["id"], p["status"]["state"]))
        .collect();
    assert_eq!(history, vec!["1\"ok\"", "2\"failed\"", "2\"ok\""]);
}

#[test]
#[serial_test::parallel]
fn resume_refuses_set_and_a_spec() {
    let tmp = Scenario::new();
    let out = tmp.path().join("run");
    let set = rigel()
        .args(["run", "--set", "run.duration=1s", "--resume"])
        .arg(&out)
        .run()
        .code(2);
    set.stderr_has("--set");
    rigel()
        .arg("run")
        .arg(spec(tmp.path(), 1))
        .arg("--resume")
        .arg(&out)
        .run()
        .code(2);
}

#[test]
#[serial_test::parallel]
fn a_report_that_cannot_be_written_is_exit_1() {
    let tmp = Scenario::new();
    let out = full_run(tmp.path(), 1);
    std::fs::remove_file(out.join("results.json")).expect("no results.json");
    // A directory where the Markdown report goes: writing it fails as on a full disk.
    let report = out.join("report.md");
    let _ = std::fs::remove_file(&report);
    std::fs::create_dir(&report).expect("a directory in the way");
    let r = rigel().arg("run").arg("--resume").arg(&out).run().code(1);
    r.stderr_has("a report failed");
    assert!(out.join("results.json").exists(), "the results are safe");
}

#[test]
#[serial_test::parallel]
fn a_second_rigel_on_a_test_file_being_filled_or_written_is_refused() {
    let tmp = Scenario::new();
    let spec = Spec::named("w")
        .target(tmp.join("data.bin"), &[("size", "256MiB")])
        .set("run.duration", "2s")
        .set("class.w.size", "4KiB")
        .set("class.w.mix", "write")
        .set("matrix.w", "1");
    let spec = tmp.spec("w.toml", &spec);
    let first = rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(tmp.path().join("a"))
        .spawn();
    let data = tmp.path().join("data.bin");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !data.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    // Filling or writing, the first holds the file: the second neither fills nor loads it.
    let second = rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(tmp.path().join("b"))
        .run()
        .code(1);
    assert!(
        second.stderr.contains(&format!("pid {}", first.id())),
        "{}",
        second.stderr
    );
    let done = first.wait_with_output().expect("the first run ends");
    assert_eq!(done.status.code(), Some(0));
}

fn lines_in(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("results.jsonl")).map_or(0, |t| t.lines().count())
}

fn wait_for_lines(dir: &Path, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while lines_in(dir) < n && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(lines_in(dir) >= n, "{n} points finished in time");
}

#[test]
#[serial_test::parallel]
fn a_resume_killed_by_sigkill_leaves_a_folder_that_reads_its_newest_points() {
    let tmp = Scenario::new();
    let out = tmp.path().join("run");
    let spec = spec(tmp.path(), 12);
    // The first run is interrupted after 2 points: its results.json holds those.
    let first = rigel().arg("run").arg(&spec).arg("--out").arg(&out).spawn();
    wait_for_lines(&out, 2);
    super::faults::signal(&first, "-INT");
    let done = first.wait_with_output().expect("rigel exits");
    assert_eq!(done.status.code(), Some(130));
    let older = results(&out)["points"].as_array().expect("points").len();
    // The resume is killed (no chance to write results.json) after it added 3 more.
    let resume = rigel().arg("run").arg("--resume").arg(&out).spawn();
    wait_for_lines(&out, older + 3);
    super::faults::signal(&resume, "-KILL");
    resume.wait_with_output().expect("rigel is gone");
    let on_disk = jsonl(&out).len();
    assert!(on_disk > older, "{on_disk} points on disk, {older} before");
    let report = rigel()
        .arg("report")
        .arg(&out)
        .arg("--format")
        .arg("markdown")
        .run()
        .code(0);
    report.stderr_has(&format!("{on_disk} of 12 planned points finished"));
}

#[test]
#[serial_test::parallel]
fn a_whole_last_line_that_does_not_parse_is_an_error_not_a_torn_tail() {
    let tmp = Scenario::new();
    let out = full_run(tmp.path(), 2);
    let text = std::fs::read_to_string(out.join("results.jsonl")).expect("jsonl");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    // The last point's figures damaged inside a whole, newline-terminated line.
    lines[1] = lines[1].replacen("\"ios\":", "\"ios\":x", 1);
    std::fs::write(out.join("results.jsonl"), lines.join("\n") + "\n").expect("damaged");
    std::fs::remove_file(out.join("results.json")).expect("no results.json");
    let resumed = rigel().arg("run").arg("--resume").arg(&out).run().code(1);
    resumed.stderr_has("results.jsonl");
    resumed.stderr_has("line 2");
    assert!(!resumed.stderr.contains("torn"), "{}", resumed.stderr);
    // The damaged point is still there: nothing was cut.
    let after = std::fs::read_to_string(out.join("results.jsonl")).expect("jsonl");
    assert_eq!(after.lines().count(), 2);
    rigel()
        .arg("report")
        .arg(&out)
        .run()
        .code(1)
        .stderr_has("line 2");
}
