//! `[search]` on a target of known capacity (tests/support/faultfs.rs, read with O_DIRECT: one read
//! served at a time, 2 ms each, so at most 500 IOPS, less the FUSE round trip): an open-loop rate
//! search with a response-median target finds the capacity within the asked precision, and a
//! closed-loop load search finds the load at which I/Os start to queue; on a target whose latency
//! falls as the load grows (a wake-up cost after idling), the search reports the contradiction, gives no answer and
//! exits 5. They need root and /dev/fuse (`.ci/run` has both) and fail, saying why, without them.

use super::builder::{ahead_of_the_host, rigel};
use super::faults::faultfs::{self, FaultFs, Faults};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// Runs `spec` (the class `io` of 4 KiB random reads on `target`, then `rest`) and returns the
/// results document.
fn run(dir: &Path, name: &str, target: &Path, class: &str, rest: &str) -> Value {
    run_coded(dir, name, target, class, rest).0
}

/// [`run`], with rigel's exit code and its terminal output.
fn run_coded(
    dir: &Path,
    name: &str,
    target: &Path,
    class: &str,
    rest: &str,
) -> (Value, i32, String) {
    let text = format!(
        "[spec]\nname = \"{name}\"\n\n[[target]]\npath = \"{}\"\n\n\
         [class.io]\nsize = \"4KiB\"\n{class}\n\n{rest}\n",
        target.display()
    );
    let spec = dir.join(format!("{name}.toml"));
    std::fs::write(&spec, text).expect("spec written");
    let out = dir.join(name);
    let r = rigel().arg("run").arg(&spec).arg("--out").arg(&out).run();
    let text = std::fs::read_to_string(out.join("results.json"))
        .unwrap_or_else(|e| panic!("results.json: {e}\n{}\n{}", r.stdout, r.stderr));
    eprintln!("{}", r.stdout);
    let doc = serde_json::from_str(&text).expect("results.json parses");
    (doc, r.code, format!("{}{}", r.stdout, r.stderr))
}

/// Panics, saying why, where a FUSE file cannot be mounted (not root, no /dev/fuse).
fn mount() -> FaultFs {
    mount_serving_in(Duration::from_millis(2))
}

/// One place serving every I/O in `service`.
fn mount_serving_in(service: Duration) -> FaultFs {
    faultfs::require();
    ahead_of_the_host();
    FaultFs::mount(Faults::new(16 << 20).service_time(service, Some(1))).expect("mount")
}

#[test]
#[serial_test::serial]
fn a_rate_search_finds_the_capacity_within_its_precision() {
    let fs = mount();
    let tmp = tempfile::tempdir().expect("tmp");
    // The capacity as this machine delivers it (FUSE round trip included): a closed loop well
    // above the 2 places.
    let closed = run(
        tmp.path(),
        "capacity",
        fs.file(),
        "",
        "[run]\nduration = \"1s\"\n\n[matrix]\nshape = \"point\"\nio = \"8\"",
    );
    let capacity = closed["points"][0]["classes"][0]["total"]["iops"]
        .as_f64()
        .expect("iops");
    assert!(
        (50.0..=505.0).contains(&capacity),
        "one place of 2 ms gives at most 500 IOPS, measured {capacity}"
    );
    // Uniform arrivals and a fixed service time queue nothing below capacity; above it the
    // backlog grows every second, so a median of 20 ms (10 service times) fails just past it: at
    // 4% over capacity the median I/O of the 0.5 to 1.5 s window was due 1 s in and waits
    // 1 s x 0.04 = 40 ms. The median, not the p99: the p99 of a trial is its few slowest reads,
    // and one stall of the FUSE server (its threads share 2 CPUs with the other tests) failed a
    // trial at half the capacity (CI: p99 68 ms at 213 IOPS, 416 delivered). A precision of 10%,
    // not 5%, and `high` at 600 (still past the built capacity), not 1,000: three trials fewer.
    // 1 s trials (2 s before): the reads a host delays past a trial's end are in flight, not
    // missed, so a trial at `low` keeps its rate (they failed it when the rate counted them).
    // A cap of 8 in flight, not 64: this target serves one read at a time, so with 64 out each
    // read's service time is 64 reads long (141 ms) and a trial past capacity booked most of its
    // wait for a slot as rigel's own lag (send lag p50 52 ms, p99 137 ms of a 297 ms response at
    // 600 asked of 448), so every failing trial was "spoiled" and run three times (12 trials, 18 s);
    // at 8 the wait is queueing (lag p99 13 ms of 390 ms), and the search ends in 6 trials.
    let doc = run(
        tmp.path(),
        "search",
        fs.file(),
        "rate = \"200 iops\"",
        "[run]\nduration = \"1s\"\nwarmup = \"500ms\"\n\n[matrix]\nshape = \"point\"\nio = \"8\"\n\n\
         [search]\ntarget = \"io.read.latency.p50 <= 20ms\"\nlow = \"200 iops\"\n\
         high = \"600 iops\"\nprecision = \"10%\"\nmax_trials = 12",
    );
    let s = &doc["search"];
    eprintln!("capacity {capacity:.0} IOPS; search {s}");
    let answer = s["answer"].as_f64().expect("an answer");
    let failed_at = s["failed_at"].as_f64().expect("a failing trial");
    assert_eq!(s["finished"], true);
    assert!(
        failed_at - answer <= 0.1 * answer,
        "bracket {answer}..{failed_at} wider than 10%"
    );
    // The open loop's own capacity: what the trial at `high` (far past it) achieved, on the
    // same path in the same minute. It can differ from the closed loop's measured a minute before:
    // this target's capacity drifts from minute to minute on a loaded host (open and closed
    // loops alternated on it gave 428/426, 316/316, 372/316 and 368/407 IOPS; the paced worker
    // keeps its whole cap in flight).
    let saturated = doc["points"]
        .as_array()
        .expect("points")
        .iter()
        .find(|p| p["point"]["id"] == 2)
        .map(|p| p["classes"][0]["total"]["iops"].as_f64().expect("iops"))
        .expect("the trial at high");
    eprintln!("open-loop capacity {saturated:.0} IOPS");
    assert!(saturated <= 505.0, "open-loop capacity {saturated}");
    // The bracket above is the precision; the answer can never pass the capacity the target was
    // built with (500 IOPS), and sits near what it delivered. How near depends on the host: the
    // target serves each read on a fresh thread after a sleep, so what it delivers drifts by a
    // quarter from one trial to the next while others build (measured 250 to 450 IOPS here), and
    // its service time jitters, so a queue forms below capacity. With a p99 target, clean-clone
    // CI runs found 241 IOPS against 384 to 396 delivered and 206 against 416 to 436 (stalls
    // failed trials served in full); the median rides over them. An answer left at `low` (200)
    // still fails wherever it delivers over 400. `low` at 200, not 100: a search reads a fail at
    // twice `low` or more with a median as flat as at `low` as a figure that does not follow the
    // load (a contradiction, no answer), and a loaded host's trial at its momentary capacity fails
    // so (344.5 of 350 IOPS achieved, the rate missed, median 2.32 ms against 2.44 ms at 100).
    assert!(
        answer <= 505.0,
        "answer {answer} IOPS above the built capacity"
    );
    let (lo, hi) = (capacity.min(saturated), capacity.max(saturated));
    assert!(
        answer >= 0.5 * lo && answer <= 1.2 * hi,
        "answer {answer} IOPS against a delivered capacity of {lo:.0} to {hi:.0}"
    );
    // Every trial is a point of the results, judged as recorded.
    let trials = s["trials"].as_array().expect("trials");
    assert_eq!(
        trials.len(),
        doc["points"].as_array().expect("points").len()
    );
    assert!(trials.len() <= 12);
    assert!(s["summary"].as_str().expect("summary").starts_with("max "));
}

#[test]
#[serial_test::serial]
fn a_load_search_finds_where_the_queue_starts() {
    // 8 ms, not 2: on a loaded 2-core host the FUSE server's threads wait for a CPU, which moved
    // the median of one I/O at a time by 1.6 ms between the calibration and the search; half a
    // service time of margin must exceed that.
    let fs = mount_serving_in(Duration::from_millis(8));
    let tmp = tempfile::tempdir().expect("tmp");
    // A closed loop of L I/Os on one place of 8 ms: one in flight waits only its service time and
    // the round trip (the median of one I/O at a time, measured); at 2 or more, each waits a
    // whole service time behind another. Half a service time above the calibrated median, the
    // highest load that passes is 1, the lowest that fails 2. Half-second points: a median of
    // some 60 reads, which one stall of the FUSE server does not move.
    let one = run(
        tmp.path(),
        "one",
        fs.file(),
        "",
        "[run]\nduration = \"500ms\"\n\n[matrix]\nshape = \"point\"\nio = \"1\"",
    );
    // The median: a loaded host's scheduling noise moves a p99 by more than a service time.
    let p50 = one["points"][0]["classes"][0]["total"]["latency"]["p50_ns"]
        .as_f64()
        .expect("p50");
    let limit_us = (p50 / 1e3 + 4000.0).round();
    let doc = run(
        tmp.path(),
        "load",
        fs.file(),
        "",
        &format!(
            "[run]\nduration = \"500ms\"\n\n[matrix]\nshape = \"point\"\nio = \"1\"\n\n\
             [search]\ntarget = \"io.read.latency.p50 <= {limit_us}us\"\nlow = 1\nhigh = 16\n\
             precision = 1"
        ),
    );
    let s = &doc["search"];
    eprintln!("search {s}");
    assert_eq!(s["knob"], "load");
    assert_eq!(s["answer"].as_f64(), Some(1.0), "{s}");
    assert_eq!(s["failed_at"].as_f64(), Some(2.0), "{s}");
}

#[test]
#[serial_test::serial]
fn a_search_over_a_latency_that_falls_with_the_load_reports_the_contradiction() {
    faultfs::require();
    // The FUSE server's threads ahead of the host's builds: a starved server serves late.
    ahead_of_the_host();
    // Reads served in 1 ms, plus 40 ms for one that arrives more than 30 ms after the last was
    // served (a device waking from a power state): at 10 IOPS (a read every 100 ms) every read
    // pays the wake-up; at 250 IOPS (every 4 ms, 3 ms idle) none does but after a 27 ms hold of
    // the host. A median of 10 ms fails at `low` and holds at `high`, every time: the old
    // bisection stopped at the fail at `low` ("fails already"), confident, with no trial above
    // it. (Woken after 5 ms idle, a loaded host's 2 ms delays woke half the reads at 250 IOPS: a
    // median of 14.9 ms at a load of 12 on 2 cores; after 15 ms, a 20 ms wake-up, beside a build, a
    // 250 IOPS trial was sometimes woken.)
    let fs = FaultFs::mount(
        Faults::new(16 << 20)
            .service_time(Duration::from_millis(1), None)
            .wake_after_idle(Duration::from_millis(30), Duration::from_millis(40)),
    )
    .expect("mount");
    let tmp = tempfile::tempdir().expect("tmp");
    let (doc, code, out) = run_coded(
        tmp.path(),
        "falls",
        fs.file(),
        "rate = \"10 iops\"",
        "[run]\nduration = \"1s\"\nwarmup = \"200ms\"\n\n[matrix]\nshape = \"point\"\nio = \"16\"\n\n\
         [search]\ntarget = \"io.read.latency.p50 <= 10ms\"\nlow = \"10 iops\"\n\
         high = \"250 iops\"\nprecision = \"5%\"\nmax_trials = 8",
    );
    let s = &doc["search"];
    eprintln!("search {s}");
    let trials = s["trials"].as_array().expect("trials");
    let verdicts: Vec<(f64, bool)> = trials
        .iter()
        .map(|t| (t["value"].as_f64().expect("value"), t["passed"] == true))
        .collect();
    // low failed and high held, and each ran again with the same verdict.
    assert_eq!(
        verdicts,
        [(10.0, false), (250.0, true), (10.0, false), (250.0, true)],
        "{s}"
    );
    assert!(s["answer"].is_null(), "no answer: {s}");
    assert_eq!(s["finished"], true);
    let why = s["contradiction"]
        .as_str()
        .expect("the contradiction named");
    assert!(why.contains("held at 250 IOPS"), "{why}");
    assert!(
        s["summary"]
            .as_str()
            .expect("summary")
            .starts_with("no answer")
    );
    assert!(out.contains("no answer"), "{out}");
    assert_eq!(code, 5, "a search with no answer exits 5\n{out}");
}
