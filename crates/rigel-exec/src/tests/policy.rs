//! The policy over the fake engine (`engines::fake`): requests complete at scripted times and
//! every push and completion is logged, so what the loop asked for (the depth it held, its
//! replacements, its flush groups, its think and burst timing, its cancel and drain, its stall
//! check) is checked against the script, with no storage in the way. One at a time (`#[serial]`):
//! the fake's script and log are the process's.

use super::*;
use crate::engines::fake::{self, Event, Kind, Script};
use crate::policy::tag::Tag;
use std::collections::BTreeMap;
use std::time::Instant;

const MS: u64 = 1_000_000;

/// The script most tests use: reads 1 ms, writes 0.5 ms, flushes 2 ms.
fn script() -> Script {
    Script {
        read_ns: MS,
        write_ns: MS / 2,
        flush_ns: 2 * MS,
        stall_nth: None,
    }
}

/// Runs one point of `classes` on the fake engine (a tmpfs file gives it a volume; the fake never
/// touches it), one worker, no warmup.
fn fake_point(
    classes: Vec<ClassLoad>,
    duration_ms: u64,
    io_timeout_ms: u64,
    s: Script,
    ctl: &PointControl,
) -> Result<(PointResult, PointProbe), ExecError> {
    fake::script(s);
    let t = TempTarget::new("/dev/shm", "fake", 16 * MIB);
    let volume = Volume::new(Layout::Concat, MIB, &[16 * MIB]);
    let targets = [ExecTarget {
        fd: t.file.as_fd(),
        path: t.path(),
    }];
    let point = DataPoint {
        id: 1,
        sweep: vec![],
        classes,
    };
    let run = RunSettings {
        io_timeout_ms,
        ..settings(duration_ms, 0, 1)
    };
    let options = ExecOptions {
        fake_engine: true,
        ..ExecOptions::default()
    };
    run_point_with(&targets, &volume, &point, &run, ctl, options)
}

fn is_rw(k: Kind) -> bool {
    matches!(k, Kind::Read | Kind::Write { .. })
}

/// Reads and writes in flight after each event, with the event's time.
fn rw_in_flight(log: &[Event]) -> Vec<(u64, i64)> {
    let mut n = 0i64;
    log.iter()
        .filter(|e| is_rw(e.kind))
        .map(|e| {
            n += if e.done.is_none() { 1 } else { -1 };
            (e.at, n)
        })
        .collect()
}

/// Each slot's requests in push order (kinds), by the slot the tag names.
fn per_slot(log: &[Event]) -> BTreeMap<usize, Vec<(u64, Kind, Option<i32>)>> {
    let mut slots: BTreeMap<usize, Vec<(u64, Kind, Option<i32>)>> = BTreeMap::new();
    for e in log {
        if let Tag::Io(i) | Tag::Think(i) = Tag::of(e.tag) {
            slots.entry(i).or_default().push((e.at, e.kind, e.done));
        }
    }
    slots
}

#[test]
#[serial_test::serial]
fn the_depth_is_held_and_each_completion_replaced_at_once() {
    let ctl = PointControl::new(1);
    let (r, probe) = fake_point(
        vec![class("q8", 4 * KIB, Access::Random, 100, 8, 1)],
        300,
        30_000,
        script(),
        &ctl,
    )
    .expect("point runs");
    let log = fake::log();
    let flight = rw_in_flight(&log);
    let max = flight.iter().map(|f| f.1).max().unwrap_or(0);
    assert_eq!(max, 8, "never more than the class's depth in flight");
    // Between the first fill and the end, a completion is replaced before the next one is
    // reaped: the depth dips by one at most.
    let (from, to) = (flight[8].0, flight[flight.len() * 9 / 10].0);
    let low = flight
        .iter()
        .filter(|f| f.0 >= from && f.0 <= to)
        .map(|f| f.1)
        .min()
        .unwrap_or(0);
    assert!(low >= 7, "the depth fell to {low} in the steady state");
    // Each read's completion is followed by the same slot's next read, in the same turn.
    for (slot, reqs) in per_slot(&log) {
        for w in reqs.windows(2) {
            if let [(done_at, Kind::Read, Some(_)), (next_at, kind, None)] = w {
                assert_eq!(*kind, Kind::Read, "slot {slot}");
                assert!(
                    next_at - done_at < MS / 2,
                    "slot {slot}: replaced after {} ns",
                    next_at - done_at
                );
            }
        }
    }
    let c = &r.classes[0];
    assert_eq!(r.status, PointStatus::Ok);
    let held = probe.classes[0].mean_in_flight;
    assert!((held - 8.0).abs() <= 0.4, "depth held {held}");
    // Every I/O took its scripted millisecond at least, and Little's law holds for what the
    // policy recorded.
    assert!(c.total.latency.min_ns >= MS, "{:?}", c.total.latency);
    let little = c.total.iops * c.total.latency.mean_ns / 1e9;
    assert!(
        (little / held - 1.0).abs() < 0.05,
        "Little {little} for {held} held"
    );
    assert_eq!(r.engines.len(), 1);
    assert_eq!(r.engines[0].name, "fake");
}

#[test]
#[serial_test::serial]
fn a_committer_flushes_after_every_n_writes_and_waits_for_its_flush() {
    let mut c = class("wal", 4 * KIB, Access::Random, 0, 2, 1);
    c.pattern.flush = Some(rigel_plan::Flush {
        every: 4,
        fsync: false,
    });
    let ctl = PointControl::new(1);
    let (r, _) = fake_point(vec![c], 300, 30_000, script(), &ctl).expect("point runs");
    let log = fake::log();
    let mut flushes = 0;
    for (slot, reqs) in per_slot(&log) {
        let pushed: Vec<&(u64, Kind, Option<i32>)> =
            reqs.iter().filter(|r| r.2.is_none()).collect();
        let mut writes = 0;
        for (k, (_, kind, _)) in pushed.iter().enumerate() {
            match kind {
                Kind::Write { dsync: false } => writes += 1,
                Kind::Flush {
                    target: 0,
                    data_only: true,
                } => {
                    assert_eq!(
                        writes, 4,
                        "slot {slot}: a flush after {writes} writes (push {k})"
                    );
                    writes = 0;
                    flushes += 1;
                }
                other => panic!("slot {slot}: unexpected {other:?}"),
            }
        }
        // Nothing of the slot's is pushed while its flush is in flight.
        // (The last flush may still be in flight when the window ends: the drain cancels it.)
        let last = reqs.len().saturating_sub(1);
        for (i, w) in reqs.windows(2).enumerate() {
            if let [(_, Kind::Flush { .. }, None), next] = w {
                let cancelled_at_the_end = i + 1 == last
                    && matches!(next, (_, Kind::Flush { .. }, Some(e)) if *e == -libc::ECANCELED);
                assert!(
                    matches!(next, (_, Kind::Flush { .. }, Some(0))) || cancelled_at_the_end,
                    "slot {slot}: {next:?} while its flush was in flight"
                );
            }
        }
    }
    assert!(flushes >= 10, "only {flushes} flushes");
    let commit = r.classes[0].commit.as_ref().expect("commits recorded");
    assert_eq!(commit.every, 4);
    assert!(commit.commits > 0);
    // A commit spans its four writes and its flush: 4 × 0.5 ms + 2 ms at least.
    assert!(commit.latency.min_ns >= 4 * MS, "{:?}", commit.latency);
    assert!(commit.flush.min_ns >= 2 * MS, "{:?}", commit.flush);
}

#[test]
#[serial_test::serial]
fn a_thinking_slot_waits_its_think_time_between_completion_and_next_io() {
    let mut c = class("think", 4 * KIB, Access::Random, 100, 2, 1);
    c.pattern.think_ns = Some(3 * MS);
    let ctl = PointControl::new(1);
    let (r, _) = fake_point(vec![c], 400, 30_000, script(), &ctl).expect("point runs");
    let log = fake::log();
    let mut gaps = Vec::new();
    for (slot, reqs) in per_slot(&log) {
        let mut done_at = None;
        for (at, kind, done) in &reqs {
            match (kind, done) {
                (Kind::Read, Some(_)) => done_at = Some(*at),
                (Kind::Timer { ns }, None) => {
                    assert_eq!(*ns, 3 * MS, "slot {slot}");
                    assert!(
                        done_at.is_some(),
                        "slot {slot}: a think before any read completed"
                    );
                }
                (Kind::Read, None) => {
                    if let Some(d) = done_at.take() {
                        gaps.push(at - d);
                    }
                }
                _ => {}
            }
        }
    }
    assert!(gaps.len() >= 20, "only {} thinks", gaps.len());
    for g in &gaps {
        assert!(
            *g >= 3 * MS,
            "a slot's next read {g} ns after its completion"
        );
    }
    let think = r.classes[0].think.expect("thinks recorded");
    assert_eq!(think.asked_ns, 3 * MS);
    assert!(think.mean_ns >= 3.0e6, "{think:?}");
    // A slot's cycle is its read and its think: 2 slots / 4 ms = 500 IOPS, less the sleeps'
    // lateness on a loaded host.
    let iops = r.classes[0].total.iops;
    assert!((250.0..=520.0).contains(&iops), "{iops} IOPS");
}

#[test]
#[serial_test::serial]
fn a_burst_issues_its_ios_then_idles_with_nothing_in_flight() {
    let mut c = class("burst", 4 * KIB, Access::Random, 100, 4, 1);
    c.pattern.burst = Some(rigel_plan::Burst {
        ios: 10,
        idle_ns: 5 * MS,
    });
    let ctl = PointControl::new(1);
    let (r, _) = fake_point(vec![c], 400, 30_000, script(), &ctl).expect("point runs");
    let log = fake::log();
    let mut issued = 0;
    let mut in_flight = 0i64;
    let mut bursts = 0;
    let mut idle_from = None;
    for e in &log {
        match (Tag::of(e.tag), e.kind, e.done) {
            (Tag::Io(_), Kind::Read, None) => {
                issued += 1;
                in_flight += 1;
                assert!(in_flight <= 4, "more than the depth in flight");
                if let Some(t) = idle_from.take() {
                    assert!(
                        e.at - t >= 5 * MS,
                        "a burst started {} ns into its idle",
                        e.at - t
                    );
                }
            }
            (Tag::Io(_), Kind::Read, Some(_)) => in_flight -= 1,
            (Tag::Idle(0), Kind::Timer { ns }, None) => {
                assert_eq!(ns, 5 * MS);
                assert_eq!(issued, 10, "a burst of {issued} I/Os");
                assert_eq!(in_flight, 0, "an idle with I/O in flight");
                (issued, bursts) = (0, bursts + 1);
                idle_from = Some(e.at);
            }
            _ => {}
        }
    }
    assert!(bursts >= 10, "only {bursts} bursts");
    let b = r.classes[0].burst.expect("bursts recorded");
    assert!((b.mean_ios - 10.0).abs() < 0.5, "{b:?}");
    assert!(b.mean_idle_ns >= 5.0e6, "{b:?}");
}

#[test]
#[serial_test::serial]
fn a_stop_cancels_and_drains_everything_even_a_request_that_never_completes() {
    let s = Script {
        stall_nth: Some(3),
        ..script()
    };
    let ctl = PointControl::new(1);
    let stop = Arc::clone(&ctl.stop);
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let started = Instant::now();
    let got = fake_point(
        vec![class("q4", 4 * KIB, Access::Random, 100, 4, 1)],
        10_000,
        30_000,
        s,
        &ctl,
    );
    stopper.join().expect("stopper");
    assert!(matches!(got, Err(ExecError::Interrupted)), "{got:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let log = fake::log();
    assert!(
        log.iter()
            .any(|e| e.kind == Kind::Cancel && e.done.is_none()),
        "the drain asked the engine to cancel"
    );
    // Every read pushed completed once (the drain proved nothing is left in flight), the
    // stalled one with ECANCELED.
    let mut open: BTreeMap<u64, i64> = BTreeMap::new();
    for e in log.iter().filter(|e| is_rw(e.kind)) {
        *open.entry(e.tag).or_default() += if e.done.is_none() { 1 } else { -1 };
    }
    assert!(open.values().all(|&n| n == 0), "left in flight: {open:?}");
    assert!(
        log.iter()
            .any(|e| e.kind == Kind::Read && e.done == Some(-libc::ECANCELED)),
        "the stalled read was cancelled"
    );
}

#[test]
#[serial_test::serial]
fn a_stalled_request_fails_the_point_within_its_timeout() {
    let s = Script {
        stall_nth: Some(5),
        ..script()
    };
    let ctl = PointControl::new(1);
    let started = Instant::now();
    let (r, _) = fake_point(
        vec![class("q2", 4 * KIB, Access::Random, 100, 2, 1)],
        5_000,
        150,
        s,
        &ctl,
    )
    .expect("point runs");
    // The timeout, and the tick that looks (100 ms), and slack for a loaded host.
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    match &r.status {
        PointStatus::Failed { error } => {
            assert!(error.message.contains("stalled"), "{}", error.message);
            assert_eq!(error.errno, libc::ETIMEDOUT);
        }
        other => panic!("a stalled read gave {other:?}"),
    }
}
