//! Think time on a real device: a class with `think = "1ms"` at load 4 on a loop device over
//! tmpfs holds far fewer I/Os in flight than its load, and Little's law holds both ways: the depth
//! held is IOPS × mean latency, and the load is IOPS × (mean latency + the think achieved). The
//! device's own counters see the I/Os rigel counted.

use super::scenario::Scenario;
use super::scenario::run_spec;
use rigel_testkit::LoopDevice;
use serde_json::Value;

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
#[serial_test::serial]
fn a_thinking_class_holds_iops_times_latency_plus_think_slots() {
    let dev = LoopDevice::new(64 << 20);
    let tmp = Scenario::new();
    let spec = format!(
        "[[target]]\npath = \"{}\"\n\n[run]\nduration = \"2s\"\nwarmup = \"200ms\"\n\n\
         [class.app]\nsize = \"4KiB\"\nthink = \"1ms\"\n\n\
         [matrix]\nshape = \"point\"\napp = \"4\"\n",
        dev.dev()
    );
    let doc = run_spec(tmp.path(), &spec);
    let c = &doc["points"][0]["classes"][0];
    let think = &c["think"];
    assert_eq!(think["asked_ns"], 1_000_000, "{think}");
    let (waited, waits) = (
        f(&think["mean_ns"]),
        think["waits"].as_u64().expect("waits"),
    );
    // A timeout never fires early; on a loaded host it fires late, by far less than the wait.
    assert!((1e6..20e6).contains(&waited), "think achieved {waited} ns");
    let iops = f(&c["total"]["iops"]);
    let latency = f(&c["total"]["latency"]["mean_ns"]);
    assert!(waits > 1_000, "{waits} waits");
    // Each slot's cycle is its I/O and its wait, end to end: the load is IOPS × (latency + think).
    let slots = iops * (latency + waited) / 1e9;
    assert!(
        (slots - 4.0).abs() < 0.2,
        "IOPS {iops} × ({latency} + {waited}) ns = {slots} slots of 4"
    );
    // In flight only while the I/O is: IOPS × latency, well under the load.
    let held = f(&c["depth_held"]);
    let in_flight = iops * latency / 1e9;
    assert!(
        (held - in_flight).abs() <= 0.05 * in_flight.max(0.05),
        "held {held}, IOPS × latency {in_flight}"
    );
    assert!(
        held < 4.0 * 0.8 * latency / (latency + waited) + 0.5,
        "held {held}"
    );
    // The device served the I/Os (its counters: reads completed over the window).
    let device = &doc["points"][0]["devices"][0];
    if let Some(reads) = device["read_ios"].as_u64() {
        let rigel_ios = c["total"]["ios"].as_u64().expect("ios");
        assert!(
            reads as f64 >= 0.9 * rigel_ios as f64,
            "device {reads}, rigel {rigel_ios}"
        );
    }
    // The report states the check with the think time, and the same figure (4.1 once beside a
    // build, within the 0.2 above: the I/Os in flight at the window's start count their whole
    // latency, which a host holding rigel then stretches).
    let md = std::fs::read_to_string(tmp.path().join("run/report.md")).expect("report.md");
    assert!(
        md.contains("think 1.00 ms asked") && md.contains(&format!("= {slots:.1} of 4")),
        "{md}"
    );
}

/// Bad think times are refused where written, by `check` and `plan`.
#[test]
#[serial_test::parallel]
fn bad_think_times_are_refused_where_written() {
    let tmp = tempfile::tempdir().expect("a temp dir");
    let path = tmp.path().join("t.toml");
    for (line, at, message, hint) in [
        (
            "think = \"0s\"",
            "t.toml:7:9",
            "`think` must be above 0 and under 60 s",
            "think = \"200us\"",
        ),
        (
            "think = \"soon\"",
            "t.toml:7:10",
            "expected a duration",
            "expected a number here",
        ),
        (
            "think = \"1ms\"\nrate = \"100 iops\"",
            "t.toml:7:9",
            "class `app` has a rate: `think` is for closed-loop classes",
            "remove `rate`",
        ),
    ] {
        let text = format!(
            "[[target]]\npath = \"{}/data.bin\"\nsize = \"16MiB\"\n\n\
             [class.app]\nsize = \"4KiB\"\n{line}\n\n[matrix]\nshape = \"point\"\napp = \"1\"\n",
            tmp.path().display()
        );
        std::fs::write(&path, text).expect("spec written");
        super::workload_expect::refused_where_written(&path, at, &[message, hint]);
    }
}
