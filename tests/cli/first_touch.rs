//! First touch on a real target: a FUSE file (tests/support/faultfs.rs) whose blocks are slow on
//! their first read and fast after (a volume restored from a snapshot), read sequentially in
//! 1 MiB reads at a fixed rate (open loop, psync: a thread per I/O), so the window reads the rest
//! of the file at first touch, then again: the warmup takes the process's own start (the first
//! reads of any run are slower, and would pass for first touches), and the rate holds the first
//! pass into the window whether or not first reads wait. The run warns with both p50s; the same
//! file without the delay gets no warning though its sampled reads are as many (negative
//! control); and after a read-through `[precondition]` every sampled read is a re-touch, so no
//! warning either. A first touch at a point no answer was taken at (one that missed its rate) is
//! still on page 1: it is about the volume, not about a point.

use super::faults::faultfs::{self, Faults};
use super::scenario::{Scenario, Spec};
use serde_json::Value;
use std::time::Duration;

/// 56 watched blocks (one per 4 MiB): at 100 reads a second, the 0.3 s warmup takes 30 MiB,
/// the window the other 194 MiB (over 30 watched blocks) and 176 MiB again (as many).
const SIZE: u64 = 224 << 20;
/// The first read's delay: far above a loaded host's FUSE read of 1 MiB (a few ms).
const FIRST: Duration = Duration::from_millis(30);
/// The control's service time for every read: several times a loaded host's FUSE read of 1 MiB,
/// so first reads slowed by the host alone stay far below the warning's 3× the re-reads; 8 in
/// flight serve 1,000 reads a second, ten times the class's rate.
const BASE: Duration = Duration::from_millis(8);

struct Ran {
    said: String,
    /// The closing summary (page 1's words on the terminal).
    stdout: String,
    stderr: String,
    /// The run folder, kept while the scene lives.
    folder: std::path::PathBuf,
    _scene: Scenario,
    touch: Value,
    doc: Value,
    findings: Vec<Value>,
    first_reads: u64,
}

fn run(faults: Faults, fill: bool) -> Ran {
    run_with(faults, fill, |s| s)
}

fn run_with(faults: Faults, fill: bool, more: impl FnOnce(Spec) -> Spec) -> Ran {
    let fs = faultfs::mounted(faults);
    let scene = Scenario::new();
    let mut spec = Spec::default()
        .target(fs.file(), &[])
        .set("run.duration", "3.7s")
        .set("run.warmup", "300ms")
        // One thread per I/O, blocked in pread: io_uring's submission on a FUSE file waits
        // for the reply inline, and a loop device sends it one read at a time.
        .set("run.engine", "psync")
        .set("class.seq.size", "1MiB")
        .set("class.seq.access", "sequential")
        .set("class.seq.mix", "read")
        .set("class.seq.rate", "100 iops")
        // One stream (the rate's I/Os in flight at once on it), up to 8 in flight.
        .set("class.seq.per_stream", 8)
        .set("matrix.seq", "8");
    if fill {
        spec = spec
            .set("precondition.read", true)
            .set("precondition.passes", 1)
            .set("precondition.size", "4MiB")
            .set("precondition.depth", 8);
    }
    let spec = scene.spec("t.toml", &more(spec));
    let run = scene.run(&spec, "run", &[]).code(0);
    let doc = run.results();
    let said = format!("{}\n{}", run.output.stdout, run.output.stderr);
    let touch = doc["points"][0]["classes"][0]["touch"].clone();
    eprintln!("touch: {touch:#}\n{said}");
    Ran {
        said,
        stdout: run.output.stdout.clone(),
        stderr: run.output.stderr.clone(),
        folder: run.folder.clone(),
        _scene: scene,
        touch,
        doc: doc.clone(),
        findings: doc["findings"].as_array().cloned().unwrap_or_default(),
        first_reads: fs.first_reads(),
    }
}

fn reads(t: &Value, kind: &str) -> u64 {
    t[kind]["reads"].as_u64().unwrap_or(0)
}

fn first_touch(r: &Ran) -> Option<&Value> {
    r.findings.iter().find(|f| f["kind"] == "first-touch")
}

#[test]
#[serial_test::serial]
fn first_reads_slower_than_re_reads_are_warned_with_both_figures() {
    let r = run(Faults::new(SIZE).first_read(FIRST), false);
    assert!(
        r.first_reads >= 160,
        "the file delayed {} reads",
        r.first_reads
    );
    let (first, again) = (reads(&r.touch, "first"), reads(&r.touch, "retouch"));
    assert!(first >= 30 && again >= 30, "{:#}", r.touch);
    let p50 = |k: &str| r.touch[k]["p50_ns"].as_f64().expect("p50_ns");
    // Every first read waited the delay; the re-reads did not.
    assert!(p50("first") >= FIRST.as_nanos() as f64, "{:#}", r.touch);
    assert!(p50("first") > 3.0 * p50("retouch"), "{:#}", r.touch);
    let w = first_touch(&r).unwrap_or_else(|| panic!("no warning: {:#?}", r.findings));
    let message = w["message"].as_str().expect("message");
    assert!(
        message.starts_with("seq: first reads of a block were")
            && message.contains("slower (p50 ")
            && message.contains("the volume is still being initialized")
            && message.contains("read = true"),
        "{message}"
    );
    assert!(r.said.contains("first reads of a block were"), "{}", r.said);
}

#[test]
#[serial_test::serial]
fn the_same_file_without_the_delay_gets_no_warning() {
    // Every read waits a service time of its own ([`BASE`]): both kinds' p50 is the sleep's,
    // not a FUSE round trip's on a busy host, so the control runs beside the other sleepy tests.
    let r = run(Faults::new(SIZE).service_time(BASE, None), false);
    assert_eq!(r.first_reads, 0);
    // As many sampled reads of each kind: only the figures differ.
    let (first, again) = (reads(&r.touch, "first"), reads(&r.touch, "retouch"));
    assert!(first >= 30 && again >= 30, "{:#}", r.touch);
    assert!(first_touch(&r).is_none(), "{:#?}", r.findings);
    assert!(!r.said.contains("first reads of a block"), "{}", r.said);
}

#[test]
#[serial_test::serial]
fn after_a_read_through_precondition_no_read_is_a_first() {
    // A shorter delay: the fill's io_uring reads of a FUSE file wait one after another.
    let r = run(Faults::new(SIZE).first_read(FIRST / 6), true);
    // The fill took every first read; the point's sampled reads are all re-touches.
    assert!(
        r.first_reads >= 160,
        "the file delayed {} reads",
        r.first_reads
    );
    assert_eq!(reads(&r.touch, "first"), 0, "{:#}", r.touch);
    assert!(reads(&r.touch, "retouch") >= 30, "{:#}", r.touch);
    assert!(first_touch(&r).is_none(), "{:#?}", r.findings);
    assert!(
        r.said.contains("precondition: pass 1 of 1 read"),
        "{}",
        r.said
    );
}

/// Page 1's words for a volume finding that concerns no answer (markdown/summary.md).
const VOLUME: &str = "What the volume did, at points no answer was taken at:";

#[test]
#[serial_test::serial]
fn a_first_touch_at_a_point_no_answer_was_taken_at_is_on_page_1() {
    // Point 1 reads the file through at 100 a second (310 MiB of 224: every first read is its,
    // with a margin for a loaded host's late sends), point 2 re-reads it at 200: the answer (the
    // class's best MiB/s) is point 2's, so the first touch concerns no answer.
    let r = run_with(Faults::new(SIZE).first_read(FIRST), false, |s| {
        s.set("run.duration", "2.8s")
            .at(&["sweep", "seq.rate"], "100 iops, 200 iops")
    });
    let answer = &r.doc["answers"][0];
    assert_eq!(answer["point_id"], 2, "{answer:#}");
    let w = first_touch(&r).unwrap_or_else(|| panic!("no warning: {:#?}", r.findings));
    assert_eq!(w["points"], serde_json::json!([1]), "{w:#}");
    // Typed, as a rate cap's and a burst step's are.
    let ev = &w["evidence"]["first_touch"];
    assert!(
        ev["first_p50_ns"].as_f64() > Some(3.0 * ev["retouch_p50_ns"].as_f64().unwrap_or(f64::MAX)),
        "{w:#}"
    );
    let message = w["message"].as_str().expect("message");
    // The terminal's page 1: under the volume's findings, not as a later `warning:` line.
    let (_, volume) = r
        .stdout
        .split_once(VOLUME)
        .unwrap_or_else(|| panic!("not on page 1:\n{}", r.said));
    // (Markdown's backticks dropped, as on every page-1 line on a terminal.)
    assert!(volume.contains(&message.replace('`', "")), "{}", r.said);
    assert!(
        !r.stderr.contains("first reads of a block"),
        "said twice: {}",
        r.said
    );
    // The handover's page 1 (before `## Other validity warnings`, which no longer lists it).
    let md = std::fs::read_to_string(r.folder.join("report.md")).expect("report.md");
    let page1 = &md[..md.find("## Other validity warnings").unwrap_or(md.len())];
    let (_, volume) = page1
        .split_once(VOLUME)
        .unwrap_or_else(|| panic!("not on page 1:\n{md}"));
    assert!(volume.contains(message), "{md}");
    assert_eq!(md.matches(message).count(), 1, "said once: {md}");
    // ORION's summary of the matrix that had the first reads (rate 100) notes it after ORION's
    // lines; the other matrix's (rate 200, every read a re-read) does not.
    for (rate, noted) in [("100-iops", true), ("200-iops", false)] {
        let summary = std::fs::read_dir(&r.folder)
            .expect("run folder")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| {
                let name = p.file_name().unwrap_or_default().to_string_lossy();
                name.contains(rate) && name.ends_with("_summary.txt")
            })
            .unwrap_or_else(|| panic!("no summary for {rate}"));
        let text = std::fs::read_to_string(&summary).expect("summary");
        let notes = text.split_once("\nNotes (rigel):\n").map(|(_, n)| n);
        assert_eq!(
            notes.is_some_and(|n| n.contains(message)),
            noted,
            "{rate}: {text}"
        );
    }
}
