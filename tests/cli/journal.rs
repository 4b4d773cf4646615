//! The journal (`journal = true`) and `rigel verify DIR` through the real binary: a finished
//! run's volume verifies clean, and blocks damaged after it are found at their offsets; rigel
//! killed with SIGKILL at several moments of a verified write-heavy point leaves a volume that
//! verifies with no false positive; and a power cut of a FUSE file with a volatile write cache
//! (tests/support/faultfs.rs), directly and through a loop device: with `durability = "dsync"`
//! nothing acknowledged is lost, without it the lost writes are found, classified as lost, and
//! stated as no broken promise; with grouped flushes (`durability = "fdatasync:N"`) nothing a
//! completed flush covered is lost (what was written after is, with no broken promise), and a
//! cache whose flush lies breaks that promise. They need
//! root and /dev/fuse (`.ci/run` has both).

use super::builder::{Output, results, rigel};
use super::engines::{ran_on, set_engine};
use super::faults::faultfs::{self, FaultFs, Faults};
use super::faults::signal;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The journal's map starts here (its header's size).
const MAP_AT: usize = 4096;
const UNIT: u64 = 4096;

/// A write-heavy verified, journaled point on `target`: 4 KiB random writes (20% reads, so
/// blocks are checked during the run too) beside a sequential 64 KiB writer.
fn spec(dir: &Path, target: &Path, durable: bool, duration: &str) -> PathBuf {
    spec_with(dir, target, durable.then_some("dsync"), duration)
}

/// `spec` with each class's `durability` (none: no durability).
fn spec_with(dir: &Path, target: &Path, durability: Option<&str>, duration: &str) -> PathBuf {
    let durable = durability.unwrap_or("none").replace(':', "-");
    let durability = durability
        .map(|d| format!("durability = \"{d}\"\n"))
        .unwrap_or_default();
    let text = format!(
        "[spec]\nname = \"journal\"\n\n[[target]]\npath = \"{}\"\ndestructive = true\n\n\
         [run]\nduration = \"{duration}\"\nverify = true\njournal = true\n\n\
         [class.oltp]\nsize = \"4KiB\"\nmix = \"20% read\"\n{durability}\n\
         [class.log]\nsize = \"64KiB\"\naccess = \"sequential\"\nmix = \"write\"\n{durability}\n\
         [matrix]\nshape = \"point\"\noltp = \"8\"\nlog = \"1\"\n",
        target.display()
    );
    let path = dir.join(format!("journal-{durable}.toml"));
    std::fs::write(&path, text).expect("spec written");
    path
}

fn verify(out: &Path, target: Option<&Path>, code: i32) -> (Value, Output) {
    let mut r = rigel().arg("verify").arg(out);
    if let Some(t) = target {
        r = r.arg("--target").arg(t);
    }
    let r = r.run().code(code);
    let text = std::fs::read_to_string(out.join("verify.json")).expect("verify.json");
    (serde_json::from_str(&text).expect("verify.json parses"), r)
}

fn total(section: &Value) -> u64 {
    let c = &section["counts"];
    [
        "lost",
        "misdirected",
        "torn",
        "zeros",
        "garbage",
        "unexpected",
    ]
    .iter()
    .map(|k| c[k].as_u64().unwrap_or(0))
    .sum()
}

/// The blocks the journal names as acknowledged and with no write in flight, by index.
fn acknowledged_blocks(out: &Path) -> Vec<u64> {
    let bytes = std::fs::read(out.join("journal.map")).expect("journal.map");
    bytes[MAP_AT..]
        .chunks_exact(2)
        .enumerate()
        .filter(|(_, e)| {
            let e = u16::from_le_bytes([e[0], e[1]]);
            e != 0 && e & 0x8000 == 0
        })
        .map(|(i, _)| i as u64)
        .collect()
}

/// Starts rigel on `spec`, waits until its journal has its header (the point's journaling has
/// begun), then until `ready` holds, and `after` more, kills it (SIGKILL).
fn killed(spec: &Path, out: &Path, ready: &dyn Fn() -> bool, after: Duration) {
    let mut child = rigel()
        .args(["run", "-q", "--allow-destructive"])
        .arg(spec)
        .arg("--out")
        .arg(out)
        .spawn();
    let t0 = Instant::now();
    // The header, not only the file: the runner creates the file before the point starts, and a
    // loaded host once let the kill land between the two (a journal of zeros, "not a rigel
    // journal" to `rigel verify`).
    let begun = |p: &Path| std::fs::read(p).is_ok_and(|b| b.starts_with(b"RIGELJNL"));
    while !begun(&out.join("journal.map")) {
        if let Ok(Some(_)) = child.try_wait() {
            let done = child.wait_with_output().expect("rigel's output");
            panic!(
                "rigel ended before its journal had a header: {}",
                String::from_utf8_lossy(&done.stderr)
            );
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no journal after a minute"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    while !ready() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "not ready after a minute"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(after);
    signal(&child, "-KILL");
    let done = child.wait_with_output().expect("rigel is gone");
    assert_eq!(
        done.status.code(),
        None,
        "rigel ended before the kill: {}",
        String::from_utf8_lossy(&done.stderr)
    );
}

#[test]
#[serial_test::parallel]
fn a_finished_run_verifies_and_blocks_damaged_after_it_are_found_at_their_offsets() {
    finished_run_verifies(None);
}

#[test]
#[serial_test::parallel]
fn a_finished_run_verifies_and_damage_is_found_under_psync_and_libaio() {
    finished_run_verifies(Some("psync"));
    finished_run_verifies(Some("libaio"));
}

/// The journaled run on `engine` (`None`: the default), verified clean, then damaged and
/// verified again.
fn finished_run_verifies(engine: Option<&str>) {
    let tmp = tempfile::tempdir_in("/dev/shm").expect("a tmpfs temp dir");
    let target = tmp.path().join("disk.img");
    std::fs::write(&target, vec![0u8; 16 << 20]).expect("target");
    let out = tmp.path().join("run");
    let spec = spec(tmp.path(), &target, true, "1s");
    set_engine(&spec, engine);
    rigel()
        .args(["run", "--allow-destructive"])
        .arg(spec)
        .arg("--out")
        .arg(&out)
        .run()
        .code(0);
    if let Some(engine) = engine {
        ran_on(&results(&out), engine);
    }
    let (clean, r) = verify(&out, None, 0);
    r.stdout_has("no broken promise");
    assert_eq!(clean["durable"], true);
    let acked = clean["acknowledged"].as_u64().unwrap_or(0);
    assert!(acked > 100, "{clean:#}");
    assert_eq!(
        clean["acknowledged"], clean["blocks_journaled"],
        "{clean:#}"
    );
    assert_eq!(total(&clean["broken"]) + total(&clean["unpromised"]), 0);
    // One written block zeroed, another's content copied over a third.
    let blocks = acknowledged_blocks(&out);
    assert!(blocks.len() >= 3, "{} blocks written", blocks.len());
    let (zeroed, from, onto) = (blocks[0] * UNIT, blocks[1] * UNIT, blocks[2] * UNIT);
    let mut disk = std::fs::read(&target).expect("target read");
    disk[zeroed as usize..(zeroed + UNIT) as usize].fill(0);
    disk.copy_within(from as usize..(from + UNIT) as usize, onto as usize);
    std::fs::write(&target, &disk).expect("target damaged");
    let (found, r) = verify(&out, None, 6);
    r.stderr_has("DATA INTEGRITY FAILURE: 2 blocks break");
    let broken = &found["broken"];
    assert_eq!(broken["counts"]["zeros"], 1, "{broken:#}");
    assert_eq!(broken["counts"]["misdirected"], 1, "{broken:#}");
    let first = broken["first"].as_array().expect("first");
    let at = |kind: &str| {
        first
            .iter()
            .find(|c| c["kind"] == kind)
            .map(|c| c["target_offset"].as_u64())
    };
    assert_eq!(at("zeros"), Some(Some(zeroed)), "{broken:#}");
    assert_eq!(at("misdirected"), Some(Some(onto)), "{broken:#}");
    assert_eq!(found["acknowledged"].as_u64(), Some(acked - 2));
}

#[test]
#[serial_test::parallel]
fn a_journal_of_zeros_is_a_run_stopped_before_its_first_write_and_a_blank_header_is_refused() {
    let tmp = tempfile::tempdir_in("/dev/shm").expect("a tmpfs temp dir");
    let target = tmp.path().join("disk.img");
    std::fs::write(&target, vec![0u8; 4 << 20]).expect("target");
    let out = tmp.path().join("run");
    rigel()
        .args(["run", "-q", "--allow-destructive"])
        .arg(spec(tmp.path(), &target, false, "200ms"))
        .arg("--out")
        .arg(&out)
        .run()
        .code(0);
    let map = out.join("journal.map");
    let mut bytes = std::fs::read(&map).expect("journal.map");
    // A kill between the runner's making the file and the executor's writing its header.
    std::fs::write(&map, vec![0u8; bytes.len()]).expect("journal blanked");
    let (c, r) = verify(&out, None, 0);
    r.stdout_has("stopped before its journal began");
    assert_eq!(c["blocks_journaled"], 0, "{c:#}");
    // A blank header over written entries is no such run: it is refused, not judged clean.
    bytes[..MAP_AT].fill(0);
    std::fs::write(&map, &bytes).expect("header blanked");
    rigel()
        .arg("verify")
        .arg(&out)
        .run()
        .code(1)
        .stderr_has("not a rigel journal");
}

#[test]
#[serial_test::parallel]
fn rigel_killed_at_any_moment_of_a_journaled_point_leaves_no_false_positive() {
    let tmp = tempfile::tempdir_in("/dev/shm").expect("a tmpfs temp dir");
    let mut journaled = 0;
    let mut in_flight = 0;
    // One target for every kill: a SIGKILLed rigel's io_uring is torn down after the process is
    // gone, and the next rigel waits for its lock on the target to go (tests/cli/killed.rs).
    let target = tmp.path().join("disk.img");
    std::fs::write(&target, vec![0u8; 16 << 20]).expect("target");
    let spec = spec(tmp.path(), &target, false, "30s");
    for (i, ms) in [0u64, 150, 600, 1500].into_iter().enumerate() {
        let out = tmp.path().join(format!("run-{i}"));
        killed(&spec, &out, &|| true, Duration::from_millis(ms));
        // The page cache kept every write the storage acknowledged and every journal entry:
        // nothing may be missing, promised or not.
        let (c, _) = verify(&out, None, 0);
        assert_eq!(total(&c["broken"]), 0, "killed after {ms} ms: {c:#}");
        assert_eq!(total(&c["unpromised"]), 0, "killed after {ms} ms: {c:#}");
        assert_eq!(c["newer"], 0, "killed after {ms} ms: {c:#}");
        journaled += c["blocks_journaled"].as_u64().unwrap_or(0);
        in_flight +=
            c["in_flight_new"].as_u64().unwrap_or(0) + c["in_flight_old"].as_u64().unwrap_or(0);
    }
    assert!(
        journaled > 1000,
        "{journaled} blocks journaled over 4 kills"
    );
    // The kills fell on writes in flight (about 12 at every moment): those were judged too.
    assert!(in_flight > 0, "no write in flight at any kill");
    eprintln!("{journaled} blocks journaled, {in_flight} with a write in flight at the kill");
}

/// A FUSE file with a volatile write cache, first filled by a durable verified run (so that a
/// write lost later shows the older run's block), then written by a journaled run (directly or
/// through a loop device) that is killed as the power is cut. Returns `rigel verify`'s account.
fn power_cut(durable: bool, through_loop: bool) -> (Value, usize) {
    let (c, dropped, _) = cut(
        Faults::new(8 << 20).volatile_cache(),
        durable.then_some("dsync"),
        through_loop,
        0,
    );
    (c, dropped)
}

/// `power_cut` on `faults` with each class's `durability`; `rigel verify` must exit `code`.
fn cut(
    faults: Faults,
    durability: Option<&str>,
    through_loop: bool,
    code: i32,
) -> (Value, usize, Output) {
    faultfs::require();
    let tmp = tempfile::tempdir_in("/dev/shm").expect("a tmpfs temp dir");
    let fs = FaultFs::mount(faults).expect("mount");
    let fill = tmp.path().join("fill.toml");
    std::fs::write(
        &fill,
        format!(
            "[[target]]\npath = \"{}\"\ndestructive = true\n\n[run]\nduration = \"1s\"\nverify = true\n\n\
             [class.fill]\nsize = \"1MiB\"\naccess = \"sequential\"\nmix = \"write\"\n\
             durability = \"dsync\"\n\n[matrix]\nshape = \"point\"\nfill = \"1\"\n",
            fs.file().display()
        ),
    )
    .expect("fill spec");
    rigel()
        .args(["run", "-q", "--allow-destructive"])
        .arg(&fill)
        .arg("--out")
        .arg(tmp.path().join("fill"))
        .run()
        .code(0);
    let dev = through_loop.then(|| fs.loop_device().expect("a loop device over the FUSE file"));
    let target = dev.as_ref().map_or(fs.file(), |d| d.dev.as_path());
    let out = tmp.path().join("run");
    // With grouped flushes (`fdatasync:N`, `fsync:N`), 800 ms after two of them reached the
    // storage: a fixed 800 ms after the journal began once came before the first flush completed
    // on a loaded host (FUSE's threads starved, at a load of 12 on 2 cores): nothing promised.
    let synced = fs.fsyncs();
    let grouped = durability.is_some_and(|d| d.contains(':'));
    let flushed = || !grouped || fs.fsyncs() >= synced + 2;
    killed(
        &spec_with(tmp.path(), target, durability, "30s"),
        &out,
        &flushed,
        Duration::from_millis(800),
    );
    let dropped = fs.lose_power();
    drop(dev);
    // A loop device still held (the killed rigel's ring is torn down after its exit, and its
    // last writes with it) is only marked to detach: wait until it is gone, so that no write
    // lands once the power is back.
    let t0 = Instant::now();
    while through_loop && attached(fs.file()) {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the loop device stays attached"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    fs.power_on();
    let (c, r) = verify(&out, Some(fs.file()), code);
    eprintln!(
        "power cut ({durability:?}, loop {through_loop}): {dropped} sectors dropped\n{}{}",
        r.stdout, r.stderr
    );
    if code == 0 {
        assert_eq!(total(&c["broken"]), 0, "{c:#}\n{}", r.stderr);
    }
    (c, dropped, r)
}

/// Whether a loop device is attached to `file`.
fn attached(file: &Path) -> bool {
    let out = std::process::Command::new("losetup")
        .arg("-j")
        .arg(file)
        .output()
        .expect("losetup runs");
    !out.stdout.is_empty()
}

fn durable_power_cut(through_loop: bool) {
    let (c, _) = power_cut(true, through_loop);
    assert_eq!(c["durable"], true);
    assert_eq!(total(&c["unpromised"]), 0, "{c:#}");
    assert!(c["acknowledged"].as_u64().unwrap_or(0) > 50, "{c:#}");
}

#[test]
#[serial_test::parallel]
fn a_power_cut_loses_no_write_acknowledged_durable() {
    durable_power_cut(false);
    durable_power_cut(true);
}

#[test]
#[serial_test::parallel]
fn a_power_cut_without_durability_loses_writes_and_says_no_promise_was_broken() {
    no_durability_power_cut(false);
    no_durability_power_cut(true);
}

fn no_durability_power_cut(through_loop: bool) {
    let (c, dropped) = power_cut(false, through_loop);
    assert!(dropped > 0, "the cache held nothing");
    let lost = &c["unpromised"];
    assert_eq!(c["durable"], false);
    // Every write sat in the volatile cache (rigel sent no flush): each block written shows the
    // filling run's block again, an older run's content.
    assert!(lost["counts"]["lost"].as_u64().unwrap_or(0) > 50, "{c:#}");
    assert_eq!(
        total(lost),
        lost["counts"]["lost"].as_u64().unwrap_or(0),
        "{c:#}"
    );
    let first = &lost["first"][0];
    assert!(
        first["detail"]
            .as_str()
            .is_some_and(|d| d.contains("another run")),
        "{first:#}"
    );
}

/// Grouped flushes (`durability = "fdatasync:256"`): a write covered by a completed flush is
/// promised durable, one after its slot's last flush is not. Each block is rewritten many times
/// in the point, so after the power cut most hold an older generation than the acknowledged one:
/// never older than the one a flush covered (no broken promise), and what was lost (the writes
/// after the last flushes) is found as lost writes that break no promise.
#[test]
#[serial_test::parallel]
fn a_power_cut_loses_no_write_a_completed_flush_covered() {
    // Each cut must break no promise (`cut`). That some acknowledged write after the last flush
    // is lost depends on where the cut falls: on a starved host rigel may not have reaped the
    // writes the cache dropped, and the journal then rightly names them in flight, not lost
    // (36 such blocks once beside a build, 0 lost). Up to three rounds, until one loses some.
    let mut lost_after_flush = 0;
    for _round in 0..3 {
        for through_loop in [false, true] {
            let (c, _, _) = cut(
                Faults::new(8 << 20).volatile_cache(),
                Some("fdatasync:256"),
                through_loop,
                0,
            );
            assert_eq!(c["durable"], false, "{c:#}");
            assert!(c["blocks_promised"].as_u64().unwrap_or(0) > 50, "{c:#}");
            let lost = &c["unpromised"];
            let n = lost["counts"]["lost"].as_u64().unwrap_or(0);
            assert_eq!(total(lost), n, "{c:#}");
            lost_after_flush += n;
        }
        if lost_after_flush > 0 {
            break;
        }
    }
    assert!(lost_after_flush > 0, "no write after a flush was lost");
}

/// The same on a cache whose flush lies (it answers and keeps nothing): the writes each flush
/// covered are lost, each a broken promise (exit 6), so the promise above is really held.
#[test]
#[serial_test::parallel]
fn a_flush_that_lies_breaks_the_promise_of_every_write_it_covered() {
    let (c, dropped, r) = cut(
        Faults::new(8 << 20).lying_flush(),
        Some("fdatasync:8"),
        false,
        6,
    );
    assert!(dropped > 0, "the cache held nothing");
    let promised = c["blocks_promised"].as_u64().unwrap_or(0);
    let broken = &c["broken"];
    assert!(promised > 50, "{c:#}");
    assert!(total(broken) > 50, "{c:#}");
    // Only lost writes (the older run's block again), and never more than were promised.
    assert!(total(broken) <= promised, "{c:#}");
    assert_eq!(
        total(broken),
        broken["counts"]["lost"].as_u64().unwrap_or(0),
        "{c:#}"
    );
    assert!(r.stderr.contains("DATA INTEGRITY FAILURE"), "{}", r.stderr);
}
