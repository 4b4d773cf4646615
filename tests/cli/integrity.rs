//! `verify` through the real binary: a FUSE file (tests/support/faultfs.rs) that silently corrupts
//! one 4 KiB block (a flipped bit in its reads, dropped writes, misdirected writes, stale reads,
//! torn writes) read directly (O_DIRECT) and through a loop device over it; each run exits 6 with
//! the block's corruption classified at its exact offset. And a clean run over millions of blocks
//! of a loop device on tmpfs finds none. They need root and /dev/fuse (`.ci/run` has both).

use super::builder::{ahead_of_the_host, results, rigel};
use super::engines::ran_on;
use super::faults::faultfs::{self, Corrupt, FaultFs, Faults};
use super::scenario::{Scenario, Spec};
use rigel_testkit::LoopDevice;
use serde_json::Value;
use std::path::Path;

const SIZE: u64 = 1 << 20;
/// The corrupted block, and where `Misdirect` lands its writes.
const BLOCK: u64 = 0x4_0000;
const ELSEWHERE: u64 = 0x8_0000;

/// Runs a verified 50/50 4 KiB random point on `target` (re-read at its end) on `engine`
/// (`None`: the default) and returns the point's integrity record; the run must exit `code`.
fn verified_run_on(
    target: &Path,
    run: &str,
    class: &str,
    code: i32,
    engine: Option<&str>,
) -> Value {
    let run = match engine {
        Some(e) => format!("engine = \"{e}\"\n{run}"),
        None => run.to_string(),
    };
    let tmp = tempfile::tempdir().expect("tmp");
    let spec = tmp.path().join("v.toml");
    let text = format!(
        "[spec]\nname = \"v\"\n\n[[target]]\npath = \"{}\"\ndestructive = true\n\n[run]\n{run}\n\n\
         [class.io]\n{class}\n\n[matrix]\nio = \"4\"\n",
        target.display()
    );
    std::fs::write(&spec, text).expect("spec written");
    let out = tmp.path().join("run");
    let r = rigel()
        .args(["run", "--allow-destructive"])
        .arg(&spec)
        .arg("--out")
        .arg(&out)
        .run();
    let r = r.code(code);
    let doc = results(&out);
    if let Some(engine) = engine {
        ran_on(&doc, engine);
    }
    let integrity = doc["points"][0]["integrity"].clone();
    assert!(integrity.is_object(), "no integrity record\n{}", r.stderr);
    if code == 6 {
        assert!(r.stderr.contains("DATA INTEGRITY FAILURE"), "{}", r.stderr);
        let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
        assert!(
            report.contains("## Data integrity")
                && report.contains("First corrupted blocks of point 1"),
            "{report}"
        );
        // Corrupted data is no system call's error: no `errno 0` anywhere.
        assert!(
            !report.contains("errno 0")
                && !r.stderr.contains("errno 0")
                && !r.stdout.contains("errno 0"),
            "{report}\n{}",
            r.stderr
        );
        // The failure is the summary's first line, before any figure, not pages later.
        let summary = report
            .split("## Verdict")
            .nth(1)
            .and_then(|rest| rest.split("<!-- page -->").next())
            .expect("a summary section");
        assert!(
            summary
                .trim_start()
                .starts_with("**DATA INTEGRITY FAILURE**")
                && summary.contains("- point 1: ")
                && !summary.contains("No point finished"),
            "{summary}"
        );
        // The terminal says it as the run's verdict, not only per point.
        assert!(
            r.stderr
                .contains("DATA INTEGRITY FAILURE: blocks read back were not what the storage"),
            "{}",
            r.stderr
        );
        let html = std::fs::read_to_string(out.join("report.html")).expect("report.html");
        assert!(
            html.contains("<p class=\"notice bad\"><strong>DATA INTEGRITY FAILURE</strong>"),
            "no integrity failure at the top of report.html's summary"
        );
        assert!(
            html.contains("<h2>Data integrity</h2>")
                && html.contains("First corrupted blocks of point 1")
                && html.contains("<tr class=\"bad\">"),
            "no integrity section in report.html"
        );
    }
    integrity
}

/// The kind of corruption a run must find, from what the file holds at its end.
type Must = fn(&FaultFs) -> &'static str;

/// The FUSE file corrupting `BLOCK` as `how` says, run directly or through a loop device: every
/// corruption reported is of `kind` at `BLOCK` (or, for misdirected writes, lands `ELSEWHERE`
/// naming `BLOCK`), and at least one is.
fn corrupted(how: Corrupt, through_loop: bool, kinds: &[(&str, u64)], must: Must) {
    corrupted_on(None, how, through_loop, kinds, must);
}

/// [`corrupted`] on `engine` (`None`: the default).
fn corrupted_on(
    engine: Option<&str>,
    how: Corrupt,
    through_loop: bool,
    kinds: &[(&str, u64)],
    must: Must,
) {
    faultfs::require();
    // The corrupted block must be written and read some times within the window: ahead of the
    // host's load (84 writes over 256 blocks at a load of 10 missed it).
    ahead_of_the_host();
    let fs = FaultFs::mount(Faults::new(SIZE).corrupt(BLOCK, how)).expect("mount");
    let dev = through_loop.then(|| fs.loop_device().expect("a loop device over the FUSE file"));
    let target = dev.as_ref().map_or(fs.file(), |d| d.dev.as_path());
    let i = verified_run_on(
        target,
        "duration = \"1500ms\"\nverify = \"after\"",
        "size = \"4KiB\"\nmix = \"50% read\"",
        6,
        engine,
    );
    let first = i["first"].as_array().expect("first corruptions");
    assert!(!first.is_empty(), "{i:#}");
    for c in first {
        let (kind, off) = (
            c["kind"].as_str().unwrap_or(""),
            c["target_offset"].as_u64(),
        );
        assert!(
            kinds.iter().any(|&(k, o)| k == kind && Some(o) == off),
            "unexpected {kind} at {off:?}: {c:#}"
        );
        assert_eq!(c["volume_offset"], c["target_offset"]);
    }
    assert!(
        first.iter().any(|c| c["kind"] == must(&fs)),
        "no {} block found: {i:#}",
        must(&fs)
    );
    let counts = &i["counts"];
    let total: u64 = [
        "lost",
        "misdirected",
        "torn",
        "zeros",
        "garbage",
        "unexpected",
    ]
    .iter()
    .map(|k| counts[k].as_u64().unwrap_or(0))
    .sum();
    // Every one counted, the first 100 in full.
    assert_eq!(first.len(), (total as usize).min(100), "{counts}");
    drop(dev);
}

fn flipped_bit(through_loop: bool) {
    corrupted(
        Corrupt::FlipRead { byte: 777 },
        through_loop,
        &[("torn", BLOCK)],
        |_| "torn",
    );
}

fn dropped_write(through_loop: bool) {
    corrupted(
        Corrupt::DropWrites,
        through_loop,
        &[("lost", BLOCK)],
        |_| "lost",
    );
}

fn misdirected_write(through_loop: bool) {
    let how = Corrupt::Misdirect { to: ELSEWHERE };
    let kinds = [("lost", BLOCK), ("misdirected", ELSEWHERE)];
    // Found where it landed, unless a later write of the run there replaced it: then where it
    // was lost.
    let must: Must = |fs| {
        if landed_copy_survives(fs) {
            "misdirected"
        } else {
            "lost"
        }
    };
    corrupted(how, through_loop, &kinds, must);
}

/// Whether the block at `ELSEWHERE` still holds a write of `BLOCK` (its header's target offset,
/// bytes 40 to 48: docs/integrity.md) when the run ended: a later write of the run there replaces
/// the evidence, and then only a read between the two could have found it.
fn landed_copy_survives(fs: &FaultFs) -> bool {
    let block = fs.bytes(ELSEWHERE..ELSEWHERE + 4096);
    block[40..48] == BLOCK.to_le_bytes()
}

fn stale_read(through_loop: bool) {
    corrupted(
        Corrupt::StaleRead,
        through_loop,
        &[("lost", BLOCK)],
        |_| "lost",
    );
}

fn torn_write(through_loop: bool) {
    // The block's first write tears over the file's zeros; later ones over the older generation.
    corrupted(
        Corrupt::TornWrite,
        through_loop,
        &[("torn", BLOCK)],
        |_| "torn",
    );
}

#[test]
#[serial_test::parallel]
fn a_flipped_bit_in_a_read_is_a_torn_block_at_its_offset() {
    flipped_bit(false);
    flipped_bit(true);
}

/// Verification is the policy's, not the engine's: a flipped bit and a dropped write are found
/// the same under psync (directly) and libaio (through a loop device).
#[test]
#[serial_test::parallel]
fn corruption_is_found_the_same_under_psync_and_libaio() {
    for (engine, through_loop) in [("psync", false), ("libaio", true)] {
        let flip = Corrupt::FlipRead { byte: 777 };
        corrupted_on(
            Some(engine),
            flip,
            through_loop,
            &[("torn", BLOCK)],
            |_| "torn",
        );
        let drop = Corrupt::DropWrites;
        corrupted_on(
            Some(engine),
            drop,
            through_loop,
            &[("lost", BLOCK)],
            |_| "lost",
        );
    }
}

#[test]
#[serial_test::parallel]
fn an_acknowledged_write_dropped_is_a_lost_write() {
    dropped_write(false);
    dropped_write(true);
}

#[test]
#[serial_test::parallel]
fn a_write_landing_elsewhere_is_misdirected_there_and_lost_here() {
    misdirected_write(false);
    misdirected_write(true);
}

/// A misdirected write that lands on a block the run never wrote: a writer over the file's first
/// half, whose later writes of `BLOCK` land at `ELSEWHERE` instead, in the second half, which only
/// a reader reads. Before, a block the run never wrote was not judged at all (whatever was there
/// before the run is allowed), and the copy went unseen: a misdirected write was found only where
/// the run also wrote.
#[test]
#[serial_test::parallel]
fn a_write_landing_on_a_block_the_run_never_wrote_is_found_by_a_read_there() {
    faultfs::require();
    ahead_of_the_host();
    let how = Corrupt::Misdirect { to: ELSEWHERE };
    let fs = FaultFs::mount(Faults::new(SIZE).corrupt(BLOCK, how)).expect("mount");
    let class = |spec: Spec, name: &str, mix: &str, region: &str| {
        spec.set(&format!("class.{name}.size"), "4KiB")
            .set(&format!("class.{name}.mix"), mix)
            .set(&format!("class.{name}.region"), region)
            .set(&format!("matrix.{name}"), "2")
    };
    let spec = Spec::named("v")
        .destructive_target(fs.file())
        .set("run.duration", "1500ms")
        .set("run.verify", true)
        .set("matrix.shape", "point");
    let spec = class(spec, "w", "write", "0%..50%");
    let spec = class(spec, "r", "read", "50%..100%");
    let scene = Scenario::new();
    let path = scene.spec("v.toml", &spec);
    let doc = scene
        .run(&path, "run", &["--allow-destructive"])
        .code(6)
        .results();
    let i = &doc["points"][0]["integrity"];
    let first = i["first"].as_array().expect("first corruptions");
    let landed = first
        .iter()
        .find(|c| c["kind"] == "misdirected")
        .unwrap_or_else(|| panic!("no misdirected block found: {i:#}"));
    assert_eq!(landed["target_offset"], ELSEWHERE, "{landed:#}");
    assert_eq!(landed["class"], "r", "{landed:#}");
    assert_eq!(landed["found"]["target_offset"], BLOCK, "{landed:#}");
    // The writer never read: only the reader's reads of a block never written found it.
    assert!(first.iter().all(|c| c["kind"] == "misdirected"), "{i:#}");
}

#[test]
#[serial_test::parallel]
fn a_read_returning_the_older_version_is_a_lost_write() {
    stale_read(false);
    stale_read(true);
}

#[test]
#[serial_test::parallel]
fn a_torn_write_is_found_torn() {
    torn_write(false);
    torn_write(true);
}

#[test]
#[serial_test::parallel]
fn a_clean_run_over_millions_of_blocks_finds_nothing() {
    // 1 GiB in 512-byte blocks: 2,097,152 blocks, written whole by 1 MiB sequential writes (one
    // stream, 4 in flight) beside 4 KiB random reads, and every one re-read at the point's end.
    // A debug rigel stamps about 0.5 million blocks a second here: 5 s covers the volume once.
    // Ahead of the host's load: beside a build and seven other tests, 0.8 million in 5 s.
    ahead_of_the_host();
    let dev = LoopDevice::new(1 << 30);
    let tmp = tempfile::tempdir().expect("tmp");
    let spec = tmp.path().join("clean.toml");
    let text = format!(
        "[spec]\nname = \"clean\"\n\n[[target]]\npath = \"{}\"\ndestructive = true\n\n\
         [run]\nduration = \"5s\"\nverify = \"after\"\nverify_unit = 512\n\n\
         [class.fill]\nsize = \"1MiB\"\naccess = \"sequential\"\nmix = \"write\"\nper_stream = 4\n\n\
         [class.check]\nsize = \"4KiB\"\n\n\
         [matrix]\nshape = \"point\"\nfill = \"1\"\ncheck = \"4\"\n",
        dev.dev()
    );
    std::fs::write(&spec, text).expect("spec written");
    let out = tmp.path().join("run");
    let r = rigel()
        .args(["run", "--allow-destructive"])
        .arg(&spec)
        .arg("--out")
        .arg(&out)
        .run()
        .code(0);
    let doc = results(&out);
    let points = doc["points"].as_array().expect("points");
    let last = &points[points.len() - 1]["integrity"];
    assert_eq!(last["counts"]["torn"], 0, "{last:#}\n{}", r.stderr);
    let checked = last["blocks_after"].as_u64().unwrap_or(0);
    // All 2,097,152 unless a loaded host slowed the fill: at least a million, always.
    assert!(
        checked >= 1_000_000,
        "only {checked} blocks re-read: {last:#}"
    );
    for p in points {
        let i = &p["integrity"];
        assert!(i["first"].is_null(), "{i:#}");
    }
}

/// A file promises zeros where a trim punched a hole: on a FUSE file whose punched holes keep
/// their data (it answers success and changes nothing), a verified 70/20/10 read/write/trim class
/// finds trimmed blocks that still hold their data, each a lost trim named on the file; the same
/// file punching honestly verifies clean.
#[test]
#[serial_test::parallel]
fn a_file_whose_trims_keep_the_data_is_found_breaking_its_promise_of_zeros() {
    faultfs::require();
    // 64 blocks in the region: each is written, trimmed and read again within the second.
    let class = "size = \"4KiB\"\nmix = \"70% read, 20% write, 10% trim\"\nregion = \"0..256KiB\"";
    let run = "duration = \"1s\"\nwarmup = \"0s\"\nverify = true";
    let honest = FaultFs::mount(Faults::new(SIZE)).expect("mount");
    let clean = verified_run_on(honest.file(), run, class, 0, None);
    assert!(
        clean["blocks_checked"].as_u64().unwrap_or(0) > 20,
        "{clean:#}"
    );
    drop(honest);
    let lying = FaultFs::mount(Faults::new(SIZE).lying_trim()).expect("mount");
    let found = verified_run_on(lying.file(), run, class, 6, None);
    let first = found["first"].as_array().expect("first corruptions");
    assert!(!first.is_empty(), "{found:#}");
    for c in first {
        assert_eq!(c["kind"], "lost", "{c:#}");
        let detail = c["detail"].as_str().unwrap_or_default();
        assert!(
            detail.starts_with("trimmed on a file, whose trims punch holes that read zeros"),
            "{detail}"
        );
    }
}
