//! Open-loop measurement truth on a target of known latency (tests/support/faultfs.rs, read
//! through a loop device so a held I/O waits in the kernel, never in rigel's worker): below
//! capacity the response latency equals the service latency equals the injected time (the FUSE
//! round trip measured and subtracted) and the achieved rate is the requested one; a single 1 s
//! stall at 1,000 IOPS shows in the response percentiles and not in the service ones. Skipped,
//! saying why, when not root or without /dev/fuse.

use super::builder::rigel;
use super::faults::faultfs::{self, FaultFs, Faults, Stall};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

fn available() -> bool {
    match faultfs::unavailable() {
        Some(why) => {
            eprintln!("skipped: {why}");
            false
        }
        None => true,
    }
}

/// Runs one point of 4 KiB random reads on `target` (`class` is the rest of the class table) and
/// returns the class's results.
fn run_one(dir: &Path, target: &Path, class: &str, load: u32, run: &str) -> Value {
    let text = format!(
        "[spec]\nname = \"o\"\n\n[[target]]\npath = \"{}\"\n\n[run]\n{run}\n\n\
         [class.io]\nsize = \"4KiB\"\n{class}\n\n[matrix]\nshape = \"point\"\nio = \"{load}\"\n",
        target.display()
    );
    let spec = dir.join("o.toml");
    std::fs::write(&spec, text).expect("spec written");
    let out = dir.join(format!(
        "run-{}",
        std::fs::read_dir(dir).map_or(0, |d| d.count())
    ));
    let r = rigel().arg("run").arg(&spec).arg("--out").arg(&out).run();
    let text = std::fs::read_to_string(out.join("results.json"))
        .unwrap_or_else(|e| panic!("results.json: {e}\n{}\n{}", r.stdout, r.stderr));
    let doc: Value = serde_json::from_str(&text).expect("results.json parses");
    doc["points"][0]["classes"][0].clone()
}

fn ms(v: &Value) -> f64 {
    v.as_f64().expect("a number") / 1e6
}

#[test]
fn below_capacity_response_equals_service_equals_the_injected_time() {
    if !available() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let injected = 2.0;
    let fs = FaultFs::mount(Faults::new(16 << 20).service_time(Duration::from_millis(2), None))
        .expect("mount");
    let dev = fs.loop_device().expect("a loop device over the FUSE file");
    // The round trip through loop device and FUSE (its serving thread's wake-up included, which
    // grows with the machine's load): a closed loop of one I/O at a time, minus the injected time.
    let closed = run_one(tmp.path(), &dev.dev, "", 1, "duration = \"2s\"");
    let round_trip = ms(&closed["total"]["latency"]["p50_ns"]) - injected;
    assert!(
        (0.0..1.0).contains(&round_trip),
        "round trip {round_trip} ms"
    );
    // 200 IOPS of 2 ms each: 0.4 I/Os in flight on average, the cap of 8 never reached.
    let c = run_one(
        tmp.path(),
        &dev.dev,
        "rate = \"200 iops\"",
        8,
        "duration = \"5s\"\nwarmup = \"1s\"",
    );
    let total = &c["total"];
    let response = ms(&total["latency"]["p50_ns"]);
    let service = ms(&total["service"]["latency"]["p50_ns"]);
    let expected = injected + round_trip;
    eprintln!(
        "round trip {round_trip:.3} ms, service p50 {service:.3} ms, response p50 {response:.3} ms, \
         achieved {} IOPS, pace {}",
        total["iops"], c["pace"]
    );
    assert!(
        (service - expected).abs() < 0.25,
        "service p50 {service} ms, expected {injected} ms + round trip {round_trip} ms"
    );
    assert!(
        (response - service).abs() < 0.2,
        "response p50 {response} ms vs service p50 {service} ms"
    );
    let achieved = total["iops"].as_f64().expect("iops");
    assert!(
        (achieved - 200.0).abs() <= 2.0,
        "achieved {achieved} IOPS of 200"
    );
    assert_eq!(c["pace"]["achieved"], true, "{}", c["pace"]);
    assert_eq!(c["pace"]["backlog"], 0);
}

#[test]
fn a_one_second_stall_shows_in_response_latency_not_in_service_latency() {
    if !available() {
        return;
    }
    // One I/O at a time, 100 µs each (capacity ~10,000 IOPS); I/O number 2000 (about 2 s into
    // the run at 1,000 IOPS) is held 1 s, and every I/O behind it waits.
    let stall = Stall {
        after: 2000,
        duration: Duration::from_secs(1),
        every: false,
    };
    let fs = FaultFs::mount(
        Faults::new(16 << 20)
            .service_time(Duration::from_micros(100), Some(1))
            .stall(stall),
    )
    .expect("mount");
    let dev = fs.loop_device().expect("a loop device over the FUSE file");
    let tmp = tempfile::tempdir().expect("tmp");
    let c = run_one(
        tmp.path(),
        &dev.dev,
        "rate = \"1000 iops\"",
        4,
        "duration = \"5s\"",
    );
    assert_eq!(fs.stalled(), 1, "the stall fell inside the run");
    let total = &c["total"];
    let response = ms(&total["latency"]["p99_ns"]);
    let service = ms(&total["service"]["latency"]["p99_ns"]);
    eprintln!(
        "response p99 {response:.3} ms, service p99 {service:.3} ms, pace {}",
        c["pace"]
    );
    assert!(response >= 500.0, "response p99 {response} ms");
    assert!(service < 100.0, "service p99 {service} ms");
    assert!(ms(&total["service"]["latency"]["max_ns"]) >= 900.0);
    // The schedule does not bend to the stall: the window holds exactly 5 s of send times.
    assert_eq!(c["pace"]["scheduled"], 5000, "{}", c["pace"]);
}
