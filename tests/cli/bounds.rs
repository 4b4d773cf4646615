//! What rigel holds and how long it takes stay bounded by what was measured, not by what a spec or
//! a folder claims: a 5,000-level grid ends on Ctrl-C at once, and the readers refuse sizes and
//! figures that cannot be (issue 33, items 5 and 6).

use super::builder::rigel;
use super::scenario::{Scenario, Spec};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Two classes × 5,000 levels of 10 ms points (ORION's basic shape: 9,998 points) on a test file
/// rigel creates.
fn grid_spec(dir: &Path) -> PathBuf {
    let spec = Spec::named("grid")
        .target(dir.join("data.bin"), &[("size", "16MiB")])
        .set("run.duration", "10ms")
        .set("class.small.size", "4KiB")
        .set("class.large.size", "64KiB")
        .set("matrix.shape", "basic")
        .set("matrix.small", "1..5000")
        .set("matrix.large", "1..5000");
    let path = dir.join("grid.toml");
    std::fs::write(&path, spec.text()).expect("spec written");
    path
}

/// Ctrl-C on a 5,000-level grid: the run stops at once and its results are written within a
/// second; the ORION grids then cost the points that ran, not 5,000 × 5,000 cells each looked up
/// over every point (103-111 s before). The exit bound is loose for a debug build on a loaded
/// host; the grids' own cost is in benches.
#[test]
#[serial_test::serial]
fn ctrl_c_on_a_5000_level_grid_ends_the_run_at_once() {
    let tmp = Scenario::new();
    let out = tmp.path().join("run");
    let child = rigel()
        .arg("run")
        .arg(grid_spec(tmp.path()))
        .arg("--out")
        .arg(&out)
        .spawn();
    let jsonl = out.join("results.jsonl");
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&jsonl).map_or(0, |t| t.lines().count()) < 20
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    super::faults::signal(&child, "-INT");
    let signalled = Instant::now();
    while !out.join("results.json").exists() && signalled.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let written = signalled.elapsed();
    let done = child.wait_with_output().expect("rigel exits");
    let ended = signalled.elapsed();
    assert_eq!(
        done.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    // The release build writes them within 0.02-0.13 s and exits within 0.7 s under a load
    // average of 14 (benches/README.md, "Bounds"); this debug build serializes the 9,998-point
    // plan into results.json ten times slower, and took 2.05 s under such load. Its exit, after
    // the reports of the points that ran, took 22 s at a load of 18 on 2 cores: the bound is a
    // minute, still below the 103 s the grids cost a release build before (ten times that here).
    assert!(
        written < Duration::from_secs(5),
        "results written {written:?} after SIGINT"
    );
    assert!(
        ended < Duration::from_secs(60),
        "rigel exited {ended:?} after SIGINT"
    );
    let iops = std::fs::read_dir(&out)
        .expect("run folder")
        .filter_map(|e| e.ok())
        .find(|e| e.file_name().to_string_lossy().ends_with("_iops.csv"))
        .expect("the ORION iops grid is written");
    let text = std::fs::read_to_string(iops.path()).expect("iops.csv");
    assert!(text.lines().count() > 5_000, "a row per large level");
}

/// A spec of `classes` classes of 8 KiB random reads all running at one point (`shape = "point"`),
/// each named with `pad` more characters.
fn one_point_of(dir: &Path, classes: usize, pad: usize, duration: &str) -> PathBuf {
    let name = |i: usize| format!("c{i}_{}", "x".repeat(pad));
    let mut spec = Spec::named("many")
        .target(dir.join("m.bin"), &[("size", "16MiB")])
        .set("run.duration", duration);
    for i in 0..classes {
        spec = spec.at(&["class", &name(i), "size"], "8KiB");
    }
    spec = spec.set("matrix.shape", "point");
    for i in 0..classes {
        spec = spec.at(&["matrix", &name(i)], "1");
    }
    let path = dir.join(format!("one-point-{classes}.toml"));
    std::fs::write(&path, spec.text()).expect("spec written");
    path
}

/// 10,000 classes at one point would hold 23 GB of latency histograms (the run was OOM-killed at
/// 21.5 GB): `check` refuses it at the matrix, naming the memory and the limit, in seconds; 1,000
/// classes (2.3 GB) pass.
#[test]
#[serial_test::parallel]
fn ten_thousand_classes_at_one_point_are_refused_by_check() {
    let tmp = Scenario::new();
    let start = Instant::now();
    let out = rigel()
        .arg("check")
        .arg(one_point_of(tmp.path(), 10_000, 0, "1s"))
        .run()
        .code(2);
    assert!(start.elapsed() < Duration::from_secs(60));
    // Words apart: the diagnostic wraps its lines.
    out.stderr_has("21.5 GiB of latency histograms")
        .stderr_has("10000 classes running at once")
        .stderr_has("(4 GiB)");
    rigel()
        .arg("check")
        .arg(one_point_of(tmp.path(), 1_000, 0, "1s"))
        .run()
        .code(0);
}

/// A point of 600 classes with long names makes a plan-table cell of 84,000 characters: `format!`'s
/// width (a u16) panicked past 65,535; the table is padded by hand.
#[test]
#[serial_test::parallel]
fn a_plan_table_column_wider_than_65535_characters_is_written() {
    let tmp = Scenario::new();
    let out = rigel()
        .arg("plan")
        .arg(one_point_of(tmp.path(), 600, 120, "10ms"))
        .run()
        .code(0);
    let widest = out.stdout.lines().map(|l| l.chars().count()).max();
    assert!(widest > Some(65_535), "{widest:?}");
    out.stdout_has("c599_x");
}

// ---- overhead (from its own file) ----
// What a point costs beyond its measured window, through the real binary on tmpfs: the gap
// between one point's window and the next (ring, buffers, threads, the start barrier, the drain,
// the durable record). Issue 14 bounds it at 10 ms; this test allows ten times that, which a
// loaded shared machine does not break, and `benches/run.sh` measures the real figure.

const POINTS: usize = 50;
const WINDOW_MS: f64 = 50.0;
/// Ten times the 10 ms bound.
const LIMIT_MS: f64 = 100.0;

#[test]
#[serial_test::parallel]
fn a_point_costs_little_beyond_its_window() {
    let tmp = Scenario::new();
    let spec = Spec::named("overhead")
        .target(tmp.join("data.bin"), &[("size", "16MiB")])
        .set("run.duration", "50ms")
        .set("run.warmup", "0s")
        .set("class.small.size", "4KiB")
        .set("class.small.mix", "read")
        .set("matrix.shape", "row")
        .set("matrix.small", format!("1..={POINTS}"));
    let doc = tmp.run_spec(&spec).results();
    let points = doc["points"].as_array().expect("points");
    assert_eq!(points.len(), POINTS);
    let window = |p: &Value, k: &str| p["window"][k].as_u64().expect("window") as f64 / 1e6;
    let first = window(&points[0], "start_ns");
    let last = window(&points[POINTS - 1], "start_ns");
    // Every point's window, then what it costs before the next window starts.
    let per_point = (last - first) / (POINTS - 1) as f64;
    let overhead = per_point - WINDOW_MS;
    eprintln!("per-point overhead: {overhead:.1} ms (window {WINDOW_MS} ms)");
    assert!(
        overhead <= LIMIT_MS,
        "each point took {per_point:.1} ms for a {WINDOW_MS} ms window: {overhead:.1} ms of \
         overhead, more than {LIMIT_MS} ms"
    );
    assert!(overhead >= 0.0, "windows overlap: {overhead:.1} ms");
}
