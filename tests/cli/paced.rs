//! Classes that pace each other on one worker (issue 42's oracle/oltp on /dev/shm files: scans
//! and redo at the same 2,720 per second): on tmpfs an I/O completes at its submission, so one
//! worker's turn completes one I/O of each class of one outstanding I/O. Page 1 says so beside
//! the answers; with a worker per class the classes are measured apart and it says nothing.

use super::scenario::{Scenario, Spec};

fn page1(tmp: &Scenario, workers: &str) -> String {
    page1_of(tmp, workers, Spec::named("paced"))
}

fn page1_of(tmp: &Scenario, workers: &str, spec: Spec) -> String {
    let spec = spec
        .target(tmp.join("t.bin"), &[("size", "64MiB")])
        .set("run.duration", "700ms")
        .set("run.warmup", "0s")
        .set("run.workers", workers)
        .set("class.scan.size", "1MiB")
        .set("class.scan.mix", "read")
        .set("class.redo.size", "16KiB")
        .set("class.redo.access", "sequential")
        .set("class.redo.per_stream", 1)
        .set("class.redo.mix", "write")
        .set("class.redo.durability", "dsync")
        .set("matrix.shape", "point")
        .set("matrix.scan", "1")
        .set("matrix.redo", "1");
    let n = std::fs::read_dir(tmp.path()).map_or(0, |d| d.count());
    let path = tmp.spec(&format!("paced-{workers}-{n}.toml"), &spec);
    let run = tmp.run(&path, &format!("run-{workers}-{n}"), &[]).code(0);
    let md = std::fs::read_to_string(run.folder.join("report.md")).expect("report.md");
    md.split("## System under test")
        .next()
        .unwrap_or_default()
        .to_owned()
}

#[test]
#[serial_test::parallel]
fn classes_in_lockstep_on_one_worker_are_told_on_page_one() {
    let tmp = Scenario::new();
    let one = page1(&tmp, "1");
    assert!(
        one.contains("Warning (paced)") && one.contains("scan and redo completed the same number"),
        "{one}"
    );
    let apart = page1(&tmp, "3");
    assert!(!apart.contains("pace each other"), "{apart}");
}

#[test]
#[serial_test::parallel]
fn open_loop_classes_at_one_rate_agree_by_design_and_are_not_told() {
    // Both classes sent at 300 IOPS: equal counts are their schedules', not a lockstep.
    let tmp = Scenario::new();
    let spec = Spec::named("paced")
        .set("class.scan.rate", "300 iops")
        .set("class.redo.rate", "300 iops");
    let one = page1_of(&tmp, "1", spec);
    assert!(!one.contains("pace each other"), "{one}");
}
