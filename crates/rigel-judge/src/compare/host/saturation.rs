//! **Saturation**: on the worse side other work and steal took [`MAX_CONTENTION`] or more of the
//! host's CPU and its load was [`MIN_QUEUED`] tasks per CPU or more. Every wakeup may queue
//! behind other tasks whatever the better side's host did, and whether a run's tail catches a
//! few of those waits is chance: latency figures may grow by the slices. It excuses no
//! throughput (r stays 1), though on such a host a rate is not the storage's alone either: at
//! load 9 to 18 on 2 CPUs an unchanged loop device (served by a kernel thread) gave 47 to 2,858
//! IOPS in the seconds of one 5 s run, and pairs of unchanged runs differed by −71% and +240%
//! (benches/noise.sh). Nothing rigel records tells that from a real drop: a fair share of a CPU
//! (1 / load per CPU) as r made every planted 20% drop inconclusive, including the throttled
//! ones tests/cli/compare.rs must see flagged, and bounding r by how far a run's better ticks
//! ran above its mean failed both ways (a run starved throughout has flat ticks; a throttled
//! one on that host had its upper decile 1.5× its mean). Such lines keep their verdict; the
//! host's figures are in each point's record, and `--repeat` gives a band that covers them.
//!
//! But one starved rate is told from a drop ([`held_back`]): a worse run (two seconds or more,
//! one run a side) that held the better side's figure, within the threshold, for a **whole
//! second** of consecutive ticks. A tick's upper decile is a throttle's payback after a slow
//! tick; a second is not (a throttle at 80% lets no second through at 100%), and a storage that
//! gave that rate for a second in that run gave less in the others because the host took them
//! (benches/noise.sh: an unchanged pair whose BASE ran its first second at 2,904 IOPS, NEW's
//! 2,779 on average, and its last four far below, at load 3.7 with other work on 94% of the
//! CPU, read +64%).

use super::contention::MAX_CONTENTION;
use super::side::{SLICE_NS, Side, Slower};
use crate::compare::MetricChange;
use crate::compare::rate::{best_second, while_running};
use rigel_expr::units;
use rigel_results::PointResult;

/// A host is saturated when other work took [`MAX_CONTENTION`] of its CPU and its load was at
/// least this many tasks per CPU: as many runnable tasks as CPUs, each CPU nearly always taken,
/// so every wakeup of rigel's (or of the kernel thread serving its I/O) may queue behind another
/// task. At load 2.8 on 2 CPUs with other work on 92–95% of it, an unchanged QD 1 write mean
/// moved from 34 to 86 µs between back-to-back runs (benches/noise.sh).
pub const MIN_QUEUED: f64 = 1.0;

/// Other work took [`MAX_CONTENTION`] of the side's host and its load was [`MIN_QUEUED`] tasks
/// per CPU or more: every wakeup may queue behind another task.
pub(super) fn saturated(side: &Side) -> bool {
    side.contention.is_some_and(|c| c >= MAX_CONTENTION)
        && side.per_cpu_load.is_some_and(|l| l >= MIN_QUEUED)
}

/// Adds the slices and why to `s` when the worse side's host was saturated.
pub(super) fn apply(worse: &Side, better: &Side, other: &str, s: &mut Slower) {
    if saturated(worse) {
        // Saturated whatever the other side was: the waits are chance events, a tail that
        // caught a few of them in one run and none in the other moved by the host.
        s.slice_ns = SLICE_NS * worse.per_cpu_load.unwrap_or(1.0);
        s.why.push(format!(
            "ran while other work took {:.0}% of the host's CPU ({other} {:.0}%)",
            worse.contention.unwrap_or(0.0) * 100.0,
            better.contention.unwrap_or(0.0) * 100.0
        ));
    }
}

/// A rate whose worse run (`run`, the `side` named), on a saturated host, held the better side's
/// figure for a whole second: the storage gave that rate in that run, and the host took the rest;
/// why, or `None`.
pub(super) fn held_back(
    change: &MetricChange,
    run: &PointResult,
    worse: &Side,
    better: &Side,
    (side, other): (&str, &str),
) -> Option<String> {
    let c = run.class(&change.class)?;
    if !saturated(worse) {
        return None;
    }
    let (figure, target) = if side == "NEW" {
        (change.new, change.base)
    } else {
        (change.base, change.new)
    };
    // Within the threshold, not the band: a throttle pays a slow tick back, and its best
    // second (or its ticks that ran) can come within a band's ±11% of the unthrottled rate
    // (benches/noise.sh: two throttled 20% drops excused so).
    let reached = |r: f64| figure * r >= target * (1.0 - change.threshold_percent / 100.0);
    let unit = if change.stat == "mbps" {
        " MiB/s"
    } else {
        " IOPS"
    };
    let dir = change.direction;
    let held = if let Some(r) = best_second(c, run.elapsed_s, dir).filter(|&r| reached(r)) {
        format!(
            "ran at {}{unit} in its best second",
            units::number(figure * r)
        )
    } else if let Some((r, empty, n)) = while_running(c, run.elapsed_s, dir)
        && reached(r)
    {
        format!(
            "completed no I/O in {empty} of its {n} ticks and ran at {}{unit} in the others",
            units::number(figure * r)
        )
    } else {
        return None;
    };
    Some(format!(
        "{side} {held} ({other} {}{unit} on average) on a host whose other work took {:.0}% of \
         the CPU ({other} {:.0}%) at load {:.1}: the host, not the storage, may have changed",
        units::number(target),
        worse.contention.unwrap_or(0.0) * 100.0,
        better.contention.unwrap_or(0.0) * 100.0,
        worse.load.unwrap_or(0.0),
    ))
}
