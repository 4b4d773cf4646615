//! A burst bucket that runs out between points, on a real target: the FUSE file's token bucket
//! (tests/support/faultfs.rs) through a loop device, under a sweep of 2-second points (too short
//! for a step inside one). The later points fall while the load grows: the run names the step and
//! when it happened, and the headline taken before it is marked a burst figure with the sustained
//! figure beside it, on the terminal, page 1 and ORION's summary notes. Without the bucket: none
//! of it.

use super::faults::faultfs::{self, Faults};
use super::orion::LunDir;
use super::scenario::Scenario;
use serde_json::Value;
use std::time::Duration;

/// About 120 IOPS at any load: 8 ms each, one at a time (the loop device passes the load's queue
/// to the FUSE file, which serves one I/O while the others wait): ORION's sweep starts at load 1,
/// where the FUSE round trip adds to each 8 ms (a tenth of it quiet), past it the next I/O waits
/// at the place already.
fn one_at_a_time() -> Faults {
    Faults::new(16 << 20)
        .service_time(Duration::from_millis(8), Some(1))
        .async_direct_io()
}

/// About 480 IOPS at loads 4 and up: 8 ms each, four at once (the loop device passes the load's
/// queue to the FUSE file, the I/Os past four wait for a place), a rate the sleeps set, not the
/// host's CPU.
fn healthy() -> Faults {
    Faults::new(16 << 20)
        .service_time(Duration::from_millis(8), Some(4))
        .async_direct_io()
}

/// A sweep of 2-second points at loads 4 to 7 over `faults`: what the terminal and report.md
/// said, results.json, and when the bucket ran dry.
fn sweep(faults: Faults) -> (String, Value, Option<Duration>) {
    let r = Scenario::reads_over_faultfs(faults, |s| {
        s.set("run.duration", "2s").set("matrix.rd", "4, 5, 6, 7")
    });
    let report = std::fs::read_to_string(r.folder.join("report.md")).unwrap_or_default();
    (format!("{}\n{report}", r.said), r.doc, r.dry)
}

fn findings(doc: &Value, kind: &str) -> Vec<Value> {
    let all = doc["findings"].as_array().cloned().unwrap_or_default();
    all.into_iter().filter(|f| f["kind"] == kind).collect()
}

#[test]
#[serial_test::serial]
fn a_bucket_that_runs_out_between_points_marks_the_figures_taken_before() {
    // 1,300 I/Os of credit at about 480 IOPS: dry after about 3 s, in the second point.
    let (text, doc, dry) = sweep(healthy().burst_bucket(1300.0, 50.0));
    let dry = dry.expect("the bucket ran dry").as_secs_f64();
    let steps = findings(&doc, "burst");
    let b = &steps
        .first()
        .unwrap_or_else(|| panic!("no burst finding: {:#}", doc["findings"]))["evidence"]["burst_step"];
    assert_eq!(b["across"], true, "{b:#}");
    let at = b["at_s"].as_f64().expect("at_s");
    assert!(
        (at - dry).abs() <= 1.0,
        "step at {at} s, the credit ran out at {dry:.2} s: {b:#}"
    );
    let after = b["after"].as_f64().expect("after");
    assert!((35.0..=65.0).contains(&after), "{b:#}");
    // The best point ran on credit: the headline says so, with the sustained figure.
    let marked = findings(&doc, "burst-figure");
    let on_credit = marked.first().expect("a burst-figure finding")["points"].clone();
    let best = doc["answers"]
        .as_array()
        .and_then(|a| a.iter().find(|a| a["unit"] == "iops"))
        .expect("an IOPS answer")["point_id"]
        .clone();
    assert!(
        on_credit.as_array().is_some_and(|p| p.contains(&best)),
        "best {best} not among {on_credit}"
    );
    let said = format!(
        "burst figures, not what the volume holds; the sustained figure is {} IOPS",
        b["after"].as_f64().map_or(0, |v| v.round() as u64)
    );
    assert!(text.matches(said.as_str()).count() >= 2, "{said}\n{text}");
}

#[test]
#[serial_test::serial]
fn the_same_sweep_without_a_bucket_has_no_step_and_no_burst_figure() {
    let (text, doc, dry) = sweep(healthy());
    assert_eq!(dry, None);
    assert!(findings(&doc, "burst").is_empty(), "{:#}", doc["findings"]);
    assert!(findings(&doc, "burst-figure").is_empty());
    assert!(!text.contains("burst"), "{text}");
}

#[test]
#[serial_test::serial]
fn orion_notes_the_maximum_taken_on_credit() {
    // 400 I/Os of credit at about 120 IOPS, then 20: dry after about 4 s.
    let fs = faultfs::mounted(one_at_a_time().burst_bucket(400.0, 20.0));
    let dev = fs.loop_device().expect("a loop device over the FUSE file");
    let path = dev.dev.display().to_string();
    let d = LunDir::new().with("burst", &[path.as_str()]);
    // ORION's small line alone (`-run advanced -matrix row -num_large 0`, five 2 s points, not
    // `-run simple`'s seven): the bucket runs dry in its second or third point, and the large
    // points after it only added to the time.
    let out = d
        .orion(&[
            "-run",
            "advanced",
            "-matrix",
            "row",
            "-num_large",
            "0",
            "-testname",
            "burst",
            "-num_disks",
            "1",
            "-duration",
            "2",
            "-cache_size",
            "0",
        ])
        .code(0);
    let names = d.outputs();
    let summary = names
        .iter()
        .find(|n| n.ends_with("_summary.txt"))
        .expect("a summary file");
    let summary = std::fs::read_to_string(d.path().join(summary)).expect("summary");
    eprintln!("{summary}\n{}", out.stderr);
    let (orion, notes) = summary
        .split_once("\nNotes (rigel):\n")
        .unwrap_or_else(|| panic!("no notes:\n{summary}\n{}", out.stderr));
    assert!(orion.contains("\nMaximum Small IOPS="), "{summary}");
    assert!(
        notes.contains("Maximum Small IOPS (small=")
            && notes.contains("taken before a burst bucket ran out"),
        "{summary}\n{}",
        out.stderr
    );
    assert!(!orion.contains("burst bucket"), "{summary}");
}
