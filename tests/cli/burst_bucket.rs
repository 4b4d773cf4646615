//! Burst buckets on a real target: a FUSE file (tests/support/faultfs.rs) that serves at full speed
//! on a token bucket's credit, then at its refill rate (as gp2's burst credits), read through a
//! loop device at a constant load. The run finds the step within a second of when the credit ran
//! out, with the rates before and after; the same file without the bucket gets no such finding.

use super::faults::faultfs::Faults;
use super::scenario::Scenario;
use serde_json::Value;
use std::time::Duration;

/// One point of `secs` seconds at load 4 over `faults` (through a loop device); what the
/// terminal said and the findings.
fn run(faults: Faults, secs: u32) -> (String, Vec<Value>, Option<Duration>) {
    let r = Scenario::reads_over_faultfs(faults, |s| {
        s.set("run.duration", format!("{secs}s"))
            .set("matrix.rd", "4")
    });
    let findings = r.doc["findings"].as_array().cloned().unwrap_or_default();
    let secs: Vec<f64> = r.doc["points"][0]["classes"][0]["intervals"]
        .as_array()
        .map(|a| a.iter().filter_map(|i| i["iops"].as_f64()).collect())
        .unwrap_or_default();
    eprintln!("per-second IOPS: {secs:?}");
    (r.said, findings, r.dry)
}

/// 8 ms each, four at once (the load's four pass the loop device whole): about 480 IOPS, a rate
/// the sleeps set, not the host's CPU (the FUSE round trip adds a tenth of a millisecond each).
fn healthy() -> Faults {
    Faults::new(16 << 20)
        .service_time(Duration::from_millis(8), Some(4))
        .async_direct_io()
}

#[test]
#[serial_test::serial]
fn a_burst_bucket_running_out_is_found_within_a_second() {
    // About 480 IOPS on credit for 1,200 I/Os (dry after about 2.8 s: the change point needs 2 s
    // on each side of the 6), then 50. A host that starves the FUSE server (310 IOPS at a load of
    // 8 on 2 cores) spends the credit later, leaving under 2 s after it: the premise, not the
    // finding, failed, and the run is made again (at most three times).
    let (stderr, findings, dry) = (0..3)
        .map(|_| run(healthy().burst_bucket(1200.0, 50.0), 6))
        .find(|(_, _, dry)| dry.is_none_or(|d| (2.0..=4.0).contains(&d.as_secs_f64())))
        .expect("the credit ran out 2 to 4 s into a 6 s point in one of three runs");
    let dry = dry.expect("the bucket ran dry").as_secs_f64();
    let burst = findings
        .iter()
        .find(|f| f["kind"] == "burst")
        .unwrap_or_else(|| panic!("no burst finding: {findings:#?}\n{stderr}"));
    let b = &burst["evidence"]["burst_step"];
    let at = b["at_s"].as_f64().expect("at_s");
    assert!(
        (at - dry).abs() <= 1.0,
        "step at {at} s, the credit ran out at {dry:.2} s: {b:#}"
    );
    let after = b["after"].as_f64().expect("after");
    assert!((35.0..=65.0).contains(&after), "{b:#}");
    assert!(b["before"].as_f64().expect("before") > 3.0 * after, "{b:#}");
    assert!(b["t"].as_f64().expect("t") >= 5.0, "{b:#}");
    assert!(
        stderr.contains("a burst bucket of about") && stderr.contains("the sustained figure is"),
        "{stderr}"
    );
}

#[test]
#[serial_test::serial]
fn the_same_file_without_a_bucket_shows_no_step() {
    let (stderr, findings, dry) = run(healthy(), 6);
    assert_eq!(dry, None);
    assert!(
        !findings.iter().any(|f| f["kind"] == "burst"),
        "{findings:#?}"
    );
    assert!(!stderr.contains("burst bucket"), "{stderr}");
}
