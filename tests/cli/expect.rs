//! `[expect]` on real runs (tmpfs files, the real executor): requirements below and above what a
//! first run measured pass (exit 0) and fail (exit 3), with the results written either way and the
//! verdicts in the terminal table and the reports.

use super::builder::{results, rigel};
use super::scenario::Scenario;
use rigel_testkit::LoopDevice;
use serde_json::Value;
use std::path::{Path, PathBuf};

const WORKLOAD: &str = r#"
[class.small]
size = "4KiB"
mix = "read"

[class.large]
size = "128KiB"
mix = "read"

[matrix]
small = "1, 4"
large = "1"
"#;

/// A spec over a 32 MiB file that rigel creates in `dir`, with `expect` as its `[expect]` body.
/// Half-second points: tmpfs reads at full speed burn a core for the whole window (three runs of
/// three points), and half a second is still thousands of reads, whose best IOPS and p99 the
/// requirements judge with margins of twenty and fifty times.
fn spec(dir: &Path, name: &str, expect: &str) -> PathBuf {
    let text = format!(
        "[spec]\nname = \"{name}\"\n\n[[target]]\npath = \"{}/data.bin\"\nsize = \"32MiB\"\n\n\
         [run]\nduration = \"500ms\"\nwarmup = \"100ms\"\n{WORKLOAD}\n[expect]\n{expect}\n",
        dir.display()
    );
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).expect("spec written");
    path
}

/// What the first run measured: small's best IOPS, its p99 at small=1 (ns), large's MB/s.
struct Measured {
    best_iops: f64,
    p99_at_1: u64,
    large_mbps: f64,
}

fn measured(doc: &Value) -> Measured {
    let mut m = Measured {
        best_iops: 0.0,
        p99_at_1: 0,
        large_mbps: 0.0,
    };
    for p in doc["points"].as_array().expect("points") {
        let loads: Vec<(String, u64)> = p["point"]["classes"]
            .as_array()
            .expect("classes")
            .iter()
            .map(|c| {
                (
                    c["class"].as_str().unwrap_or("").to_owned(),
                    c["load"].as_u64().unwrap_or(0),
                )
            })
            .collect();
        for c in p["classes"].as_array().expect("class results") {
            let total = &c["total"];
            match c["class"].as_str() {
                Some("small") => {
                    m.best_iops = m.best_iops.max(total["iops"].as_f64().expect("iops"));
                    if loads.contains(&("small".to_owned(), 1)) {
                        m.p99_at_1 = total["latency"]["p99_ns"].as_u64().expect("p99");
                    }
                }
                _ => m.large_mbps = total["mbps"].as_f64().expect("mbps"),
            }
        }
    }
    assert!(m.best_iops > 0.0 && m.p99_at_1 > 0 && m.large_mbps > 0.0);
    m
}

fn run(spec: &Path, out: &Path) -> super::Output {
    rigel().arg("run").arg(spec).arg("--out").arg(out).run()
}

#[test]
#[serial_test::parallel]
fn requirements_below_and_above_a_real_run_pass_and_fail() {
    let tmp = Scenario::new();
    let first = run(&spec(tmp.path(), "first", ""), &tmp.path().join("first")).code(0);
    assert!(!first.stdout.contains("requirements:"), "{}", first.stdout);
    let m = measured(&results(&tmp.path().join("first")));

    // Well on the safe side of what the storage did a moment ago (by a factor of twenty, and 50 ms
    // of latency: other tests share the cores), a second run passes.
    let easy = format!(
        "\"small.iops\" = \">= {:.0}\"\n\"small.latency.p99 @ small=1\" = \"<= {}ns\"\n\
         \"large.mbps @ all\" = \">= {:.3}MiB/s\"\nerrors = \"== 0\"\n",
        m.best_iops / 20.0,
        m.p99_at_1 * 10 + 50_000_000,
        m.large_mbps / 20.0
    );
    let out = run(&spec(tmp.path(), "easy", &easy), &tmp.path().join("easy")).code(0);
    out.stdout_has("requirements: 4 of 4 met");
    out.stdout_has("PASS  small.iops");
    // The best point of small, whichever load it was.
    out.stdout_has(" large=0");

    // Far beyond it (and beyond what a busy machine could blur: at least 10M IOPS, at most 1us):
    // the run still completes and writes its results, then exits 3.
    let hard = format!(
        "\"small.iops\" = \">= {:.0}\"\n\"small.latency.p99 @ small=1\" = \"<= {}ns\"\nerrors = \"== 0\"\n",
        (m.best_iops * 10.0).max(1e7),
        (m.p99_at_1 / 50).min(1000)
    );
    let hard_dir = tmp.path().join("hard");
    let out = run(&spec(tmp.path(), "hard", &hard), &hard_dir).code(3);
    out.stdout_has("requirements: 1 of 3 met");
    out.stdout_has("FAIL  small.iops");
    out.stdout_has("FAIL  small.latency.p99 @ small=1");
    out.stdout_has("PASS  errors");
    assert_eq!(
        results(&hard_dir)["points"].as_array().map(Vec::len),
        Some(3)
    );
    let report = std::fs::read_to_string(hard_dir.join("report.md")).expect("report.md");
    assert!(
        report.contains("**2 of 3 requirements are not met.**"),
        "{report}"
    );
    assert!(report.contains("| **FAIL** | `small.iops`"), "{report}");
    let html = std::fs::read_to_string(hard_dir.join("report.html")).expect("report.html");
    assert!(html.contains("2 of 3 requirements are not met"));
    // `rigel report` judges them again from the folder alone.
    let out = rigel()
        .arg("report")
        .arg(&hard_dir)
        .args(["--format", "json"])
        .run()
        .code(0);
    out.stderr_has("requirements: 1 of 3 met");
    out.stderr_has("FAIL  small.iops");
}

/// Resuming a finished run measures nothing and judges the plan's requirements again: with limits
/// 1% either side of the recorded figures, each verdict is exact.
#[test]
#[serial_test::parallel]
fn limits_just_either_side_of_the_measured_values() {
    let tmp = Scenario::new();
    let dir = tmp.path().join("run");
    run(&spec(tmp.path(), "t", ""), &dir).code(0);
    let m = measured(&results(&dir));
    // Each requirement as the plan stores it: key, operator, unit of the limit, limit.
    type Stated = (&'static str, &'static str, &'static str, f64);
    let judge = |expect: &[Stated]| {
        let plan_path = dir.join("plan.json");
        let text = std::fs::read_to_string(&plan_path).expect("plan.json");
        let mut plan: Value = serde_json::from_str(&text).expect("plan parses");
        plan["expect"] = expect
            .iter()
            .map(|(key, op, unit, value)| {
                // Times are whole nanoseconds.
                let value = match *unit {
                    "nanos" => serde_json::json!(*value as u64),
                    _ => serde_json::json!(value),
                };
                serde_json::json!({"key": key, "comparison": {"op": op, "value": {"unit": unit, "value": value}}})
            })
            .collect();
        std::fs::write(&plan_path, plan.to_string()).expect("plan written");
        rigel().arg("run").arg("--resume").arg(&dir).run()
    };
    let p99 = m.p99_at_1 as f64;
    let mbps_in_bytes = m.large_mbps * 1048576.0;
    let just_below: [Stated; 3] = [
        ("small.iops", ">=", "number", m.best_iops * 0.99),
        (
            "small.latency.p99 @ small=1",
            "<=",
            "nanos",
            (p99 * 1.01).ceil(),
        ),
        ("large.mbps", ">=", "bytes_per_sec", mbps_in_bytes * 0.99),
    ];
    let out = judge(&just_below).code(0);
    out.stdout_has("requirements: 3 of 3 met");
    out.stdout_has("+1.0%");
    let just_above: [Stated; 3] = [
        ("small.iops", ">=", "number", m.best_iops * 1.01),
        (
            "small.latency.p99 @ small=1",
            "<=",
            "nanos",
            (p99 * 0.99).floor(),
        ),
        ("large.mbps", ">=", "bytes_per_sec", mbps_in_bytes * 0.99),
    ];
    let out = judge(&just_above).code(3);
    out.stdout_has("requirements: 1 of 3 met");
    out.stdout_has("-1.0%");
    out.stdout_has("PASS  large.mbps");
}

/// Reads from a block device (always allowed): requirements met exit 0, one impossible exits 3.
#[test]
#[serial_test::parallel]
fn requirements_on_a_loop_device() {
    let lo = LoopDevice::new(64 << 20);
    let tmp = Scenario::new();
    let write = |name: &str, expect: &str| {
        let text = format!(
            "[[target]]\npath = \"{}\"\n\n[run]\nduration = \"1s\"\n\n\
             [class.small]\nsize = \"4KiB\"\n\n[matrix]\nsmall = \"2\"\n\n[expect]\n{expect}",
            lo.dev()
        );
        let path = tmp.path().join(format!("{name}.toml"));
        std::fs::write(&path, text).expect("spec written");
        path
    };
    let met = write(
        "met",
        "\"small.iops\" = \">= 10\"\n\"small.latency.p50 @ small=2\" = \"<= 1s\"\nerrors = \"== 0\"\n",
    );
    let out = run(&met, &tmp.path().join("met")).code(0);
    out.stdout_has("requirements: 3 of 3 met");
    let missed = write(
        "missed",
        "\"small.iops\" = \">= 10\"\n\"small.latency.max @ all\" = \"<= 1ns\"\n",
    );
    let out = run(&missed, &tmp.path().join("missed")).code(3);
    out.stdout_has("requirements: 1 of 2 met");
    out.stdout_has("FAIL  small.latency.max @ all");
}

/// Requirements set on the command line are checked like those in the file, underlined in `--set`.
#[test]
#[serial_test::parallel]
fn requirements_from_the_command_line() {
    let tmp = tempfile::tempdir().expect("a temp dir");
    let path = spec(tmp.path(), "t", "");
    let out = rigel()
        .arg("check")
        .arg(&path)
        .args(["--set", "expect.small.latency.p999=<= 1ms"])
        .run()
        .code(2);
    out.stderr_has("--set:1:22");
    out.stderr_has("did you mean `p99.9`?");
    let out = rigel()
        .arg("plan")
        .arg(&path)
        .args(["--json", "--set", "expect.small.latency.p99=<= 1ms"])
        .run()
        .code(0);
    let plan: Value = serde_json::from_str(&out.stdout).expect("plan JSON");
    assert_eq!(plan["expect"][0]["key"], "small.latency.p99");
}
