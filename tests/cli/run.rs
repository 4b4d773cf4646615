//! `rigel run` doing real I/O through the real executor on files in tmpfs (O_DIRECT works there):
//! the run folder, Little's law (about the load) on every point, interruption and resume, and
//! the write guard.

use super::builder::{results, rigel};
use super::scenario::Scenario;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// A spec over a 64 MiB test file that rigel creates in `dir`, in 1 s points.
fn write_spec(dir: &Path, body: &str) -> std::path::PathBuf {
    write_spec_of(dir, "1s", body)
}

/// [`write_spec`] with points of `duration` (after 200 ms of warmup).
fn write_spec_of(dir: &Path, duration: &str, body: &str) -> std::path::PathBuf {
    let spec = format!(
        r#"[spec]
name = "t"

[[target]]
path = "{}/data.bin"
size = "64MiB"

[run]
duration = "{duration}"
warmup = "200ms"

{body}"#,
        dir.display()
    );
    let path = dir.join("t.toml");
    std::fs::write(&path, spec).expect("spec written");
    path
}

const TWO_CLASSES: &str = r#"
[class.small]
size = "4KiB"
mix = "read"

[class.large]
size = "256KiB"
mix = "read"

[matrix]
small = "1, 8"
large = "2"
"#;

#[test]
#[serial_test::serial]
fn a_run_writes_its_folder_and_every_point_obeys_littles_law() {
    let tmp = Scenario::new();
    // Half-second points, as littles_law.rs's: thousands of I/Os a point on tmpfs, and this test
    // runs alone (three points of 1 s took 3.8 s of the suite's serial block).
    let spec = write_spec_of(tmp.path(), "500ms", TWO_CLASSES);
    let out_dir = tmp.path().join("run");
    let out = rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(&out_dir)
        .run()
        .code(0);
    out.stdout_has("Maximum Small IOPS=");
    // ORION's latency line exactly as ORION prints it: nothing after `Large=N` (scripts parse it).
    let latency = out
        .stdout
        .lines()
        .find(|l| l.starts_with("Minimum Small Latency="))
        .expect("the latency line");
    let (value, at) = latency["Minimum Small Latency=".len()..]
        .split_once(" usecs @ Small=")
        .expect(latency);
    assert!(value.parse::<f64>().is_ok() && value.split('.').nth(1).map(str::len) == Some(3));
    let (small, large) = at.split_once(" and Large=").expect(latency);
    assert!(
        small.parse::<u32>().is_ok() && large.parse::<u32>().is_ok(),
        "{latency}"
    );
    for f in ["spec.toml", "plan.json", "results.jsonl", "results.json"] {
        assert!(out_dir.join(f).exists(), "{f} missing");
    }
    let doc = results(&out_dir);
    let points = doc["points"].as_array().expect("points");
    assert_eq!(points.len(), 3);
    for p in points {
        assert_eq!(p["status"]["state"], "ok");
        for c in p["classes"].as_array().expect("classes") {
            let outstanding = c["outstanding"].as_f64().expect("outstanding");
            let iops = c["total"]["iops"].as_f64().expect("iops");
            let mean_s = c["total"]["latency"]["mean_ns"].as_f64().expect("mean") / 1e9;
            let little = iops * mean_s;
            // About the outstanding count (the depth held, to 2%: `littles_law.rs`); these short
            // points on a loaded host may lose a few ms of a window to a worker without a CPU.
            assert!(
                little <= 1.05 * outstanding && little >= 0.5 * outstanding,
                "point {}: IOPS × mean latency = {little:.3}, outstanding {outstanding}",
                p["point"]["id"]
            );
        }
    }
    let lines = std::fs::read_to_string(out_dir.join("results.jsonl")).expect("jsonl");
    assert_eq!(lines.lines().count(), 3);
}

#[test]
#[serial_test::serial]
fn sigint_keeps_finished_points_and_resume_completes_the_run() {
    let tmp = Scenario::new();
    let spec = write_spec(
        tmp.path(),
        "[class.io]\nsize = \"4KiB\"\n\n[matrix]\nio = \"1, 2\"\n",
    );
    let out_dir = tmp.path().join("run");
    let child = rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(&out_dir)
        .spawn();
    let jsonl = out_dir.join("results.jsonl");
    let finished = |n: usize| std::fs::read_to_string(&jsonl).is_ok_and(|t| t.lines().count() >= n);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !finished(1) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY-free signal: kill(1) is the plainest way to send SIGINT to the child.
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let out = child.wait_with_output().expect("rigel exits");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("--resume"), "says how to resume: {stderr}");
    let before: Vec<Value> = std::fs::read_to_string(&jsonl)
        .expect("jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a whole point per line"))
        .collect();
    // Interrupted 0.3 s into the second point's 1.2 s: the first kept, the second not.
    assert!(
        before.len() == 1,
        "{} points before the interrupt",
        before.len()
    );

    rigel()
        .arg("run")
        .arg("--resume")
        .arg(&out_dir)
        .run()
        .code(0);
    let doc = results(&out_dir);
    let ids: Vec<u64> = doc["points"]
        .as_array()
        .expect("points")
        .iter()
        .map(|p| p["point"]["id"].as_u64().expect("id"))
        .collect();
    assert_eq!(ids, vec![1, 2]);
    for p in &before {
        let id = p["point"]["id"].as_u64().expect("id") as usize;
        assert_eq!(&doc["points"][id - 1], p, "point {id} kept as it was");
    }
}

#[test]
#[serial_test::parallel]
fn writing_a_file_rigel_did_not_create_needs_consent() {
    let tmp = Scenario::new();
    let data = tmp.path().join("data.bin");
    std::fs::write(&data, vec![7u8; 1 << 20]).expect("a foreign file");
    let spec = write_spec(
        tmp.path(),
        "[class.w]\nsize = \"4KiB\"\nmix = \"write\"\n\n[matrix]\nw = \"1\"\n",
    );
    let out = rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(tmp.path().join("run"))
        .run();
    assert_ne!(out.code, 0);
    assert!(
        out.stderr.contains("data.bin"),
        "names the target: {}",
        out.stderr
    );
    assert!(
        std::fs::read(&data)
            .expect("still there")
            .iter()
            .all(|&b| b == 7),
        "the file was not written"
    );
}
