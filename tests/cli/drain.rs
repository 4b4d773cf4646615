//! `[drain]` on a real target: a FUSE file (tests/support/faultfs.rs) that serves at full speed
//! on a token bucket's credit, then at its refill rate, read through a loop device. The drain runs
//! the first point's load until the step, so the measured point holds the refill rate and no
//! figure is marked a burst figure; on the same file without a bucket the drain runs to its limit
//! and a warning says the figures may still be on credit. A sweep that starts at load 1 drains at
//! the load `[drain] load` names, and `check` and `plan` say what drains and for how long at most.

use super::builder::rigel;
use super::faults::faultfs::Faults;
use super::scenario::{Scenario, Spec};
use serde_json::Value;
use std::time::Duration;

/// Refilled I/Os per second: the baseline the measured point must show.
const REFILL: f64 = 50.0;

/// A drain of at most `limit` then one point of 2 s at load 4 over `faults`; what the terminal
/// said, the results, and when the bucket ran dry.
fn run(faults: Faults, limit: &str) -> (String, Value, Option<Duration>) {
    let r = Scenario::reads_over_faultfs(faults, |s| {
        s.set("run.duration", "2s")
            .set("matrix.rd", "4")
            .set("drain.limit", limit)
    });
    (r.said, r.doc, r.dry)
}

fn findings<'d>(doc: &'d Value, kind: &str) -> Vec<&'d Value> {
    doc["findings"]
        .as_array()
        .map(|a| a.iter().filter(|f| f["kind"] == kind).collect())
        .unwrap_or_default()
}

/// 8 ms each, four at once (the load's four pass the loop device whole): about 480 IOPS, a rate
/// the sleeps set, not the host's CPU.
fn healthy() -> Faults {
    Faults::new(16 << 20)
        .service_time(Duration::from_millis(8), Some(4))
        .async_direct_io()
}

/// The bucket's credit: dry after about 2.8 s at 480 IOPS.
const CREDIT: f64 = 1200.0;

#[test]
#[serial_test::serial]
fn a_drain_ends_at_the_step_and_the_point_measures_the_baseline() {
    // About 480 IOPS on credit for 1,200 I/Os, then the refill's 50; the drain ends a few seconds
    // after the step, long before its limit.
    let (said, doc, dry) = run(healthy().burst_bucket(CREDIT, REFILL), "40s");
    let dry = dry.expect("the bucket ran dry").as_secs_f64();
    let d = &doc["points"][0]["drain"];
    assert_eq!(d["stepped"], true, "{d:#}");
    let step = &d["step"];
    let at = step["at_s"].as_f64().expect("at_s");
    assert!(
        (at - dry).abs() <= 1.5,
        "step at {at} s, dry at {dry:.2} s: {d:#}"
    );
    assert!(d["seconds"].as_f64().expect("seconds") < 20.0, "{d:#}");
    // The credit the step implies, and the I/Os served before it (credit and refill), against
    // the bucket's. The second the credit ran out in holds both rates and may fall on either
    // side of the step: the I/Os before it miss at most that second at the burst rate.
    let credit = step["credit"].as_f64().expect("credit");
    assert!(
        (2.0 / 3.0 * CREDIT..=1.5 * CREDIT).contains(&credit),
        "{d:#}"
    );
    let burst = step["before"].as_f64().expect("before");
    assert!(
        step["ios_before"].as_u64().expect("ios_before") as f64 + burst >= CREDIT,
        "{d:#}"
    );
    let iops = doc["points"][0]["classes"][0]["total"]["iops"]
        .as_f64()
        .expect("the point's IOPS");
    // A dry I/O waits for the refill's next slot, then its 8 ms of service, four at once: a
    // refill of 50
    // serves 50 whatever the load; the credit refilled between the drain's end and the point's
    // start (setting it up) is spent at the point's start, a few I/Os more. On credit it would
    // be about 480.
    assert!(
        (0.6 * REFILL..=1.4 * REFILL).contains(&iops),
        "measured {iops} IOPS after the drain, the bucket refills {REFILL}"
    );
    assert!(
        findings(&doc, "burst-figure").is_empty(),
        "{:#}",
        doc["findings"]
    );
    assert!(
        findings(&doc, "drain-limit").is_empty(),
        "{:#}",
        doc["findings"]
    );
    assert!(said.contains("a burst bucket ran out after"), "{said}");
}

#[test]
#[serial_test::serial]
fn a_drain_without_a_bucket_runs_to_its_limit_and_says_so() {
    let (said, doc, dry) = run(healthy(), "5s");
    assert_eq!(dry, None);
    let d = &doc["points"][0]["drain"];
    assert_eq!(d["stepped"], false, "{d:#}");
    assert!(d["seconds"].as_f64().expect("seconds") >= 5.0, "{d:#}");
    let w = findings(&doc, "drain-limit");
    assert_eq!(w.len(), 1, "{:#}", doc["findings"]);
    assert!(
        said.contains("may still be on a burst bucket's credit"),
        "{said}"
    );
}

#[test]
#[serial_test::serial]
fn a_drain_at_its_own_load_spends_the_bucket_a_load_1_sweep_would_not() {
    // 10 ms a read, 8 at once (the loop device passes its queue through): load 1 serves at most
    // 100 reads a second, load 8 about 800. A bucket of 1,500 refilled at 20 lasts about 2 s at
    // load 8 and 19 s at load 1: only the drain's own load sees it run out before its 15 s.
    let faults = Faults::new(16 << 20)
        .service_time(Duration::from_millis(10), Some(8))
        .async_direct_io()
        .burst_bucket(1500.0, 20.0);
    let r = Scenario::reads_over_faultfs(faults, |s| {
        s.set("run.duration", "1s")
            .set("matrix.rd", "1")
            .set("drain.limit", "15s")
            .set("drain.load", 8)
    });
    let (said, doc) = (r.said, r.doc);
    let d = &doc["points"][0]["drain"];
    assert!(
        said.contains("drain: runs the first point's classes at load 8 (rd=8) until"),
        "{said}"
    );
    assert_eq!(d["stepped"], true, "{d:#}\n{said}");
    // The rate on credit is load 8's: far above what one read at a time can do.
    let before = d["step"]["before"].as_f64().expect("before");
    assert!(before >= 300.0, "{before} IOPS on credit: {d:#}");
    // The measured point is the sweep's own, at load 1.
    assert_eq!(doc["points"][0]["point"]["classes"][0]["load"], 1);
    // Said once, without "drain: the drain ...".
    assert!(
        said.contains("drain: a burst bucket ran out after"),
        "{said}"
    );
}

#[test]
#[serial_test::parallel]
fn check_and_plan_say_what_drains_and_count_its_limit_in_the_estimate() {
    let scene = Scenario::new();
    let base = Spec::default()
        .target(scene.join("t.bin"), &[("size", "16MiB")])
        .set("run.duration", "1s")
        .set("run.warmup", "0s")
        .set("class.rd.size", "4KiB")
        .set("class.wr.size", "4KiB")
        .set("class.wr.mix", "write")
        .set("matrix.shape", "point")
        .set("matrix.rd", "1")
        .set("matrix.wr", "2");
    for (name, spec, drains) in [
        ("first", base.clone(), "the first point (rd=1 wr=2)"),
        (
            "load",
            base.clone().set("drain.load", 16),
            "the first point's classes at load 16 (rd=16 wr=16)",
        ),
        (
            "class",
            base.clone().set("drain.class", "wr"),
            "class wr alone (wr=2)",
        ),
        (
            "both",
            base.clone().set("drain.class", "rd").set("drain.load", 32),
            "class rd alone (rd=32)",
        ),
    ] {
        let spec = scene.spec(&format!("{name}.toml"), &spec.set("drain.limit", "40m"));
        let check = rigel().arg("check").arg(&spec).run().code(0);
        assert!(
            check.stdout.contains(&format!(
                "  drain: runs {drains} until a burst bucket runs out"
            )),
            "{name}: {}",
            check.stdout
        );
        let plan = rigel().arg("plan").arg(&spec).run().code(0);
        assert!(
            plan.stdout
                .contains(&format!("  drain      runs {drains} until")),
            "{name}: {}",
            plan.stdout
        );
        assert!(
            plan.stdout
                .contains("  estimated  1 s + a drain of at most 40 min\n"),
            "{name}: {}",
            plan.stdout
        );
    }
}
