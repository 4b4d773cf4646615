//! **Queued**: a side whose host had [`MIN_QUEUED`] runnable tasks per CPU or more, other work
//! taking a share c of its CPU, short of saturated: a wakeup finds its CPU taken about c of the
//! time and then waits up to a slice per queued task. A percentile q is within that reach when
//! c ≥ 1 − q (a p99 when more than 1% of wakeups may wait), a mean by c of it; no rate.
//! benches/noise.sh at load 2–4: unchanged QD 1 lines moved from 305 to 115 µs (p99) and 119 to
//! 57 µs (write mean) with other work on 36% of BASE's CPU and 14% of NEW's, at 2.1 tasks per
//! CPU; a write mean from 681 to 256 µs at 86% and 93%, 1.4 tasks per CPU.

use super::saturation::MIN_QUEUED;
use super::side::{SLICE_NS, Side, Slower};
use crate::compare::noise::quantile;
use rigel_expr::{LatencyStat, Stat};

/// How much a latency may grow on `side`'s queued host, or `None`.
fn reach(side: &Side, stat: Stat) -> Option<f64> {
    let load = side.per_cpu_load.filter(|&l| l >= MIN_QUEUED)?;
    let c = side.contention.filter(|&c| c > 0.0)?.min(1.0);
    let wait = SLICE_NS * load;
    let (Stat::Latency(l) | Stat::Service(l)) = stat else {
        return None;
    };
    match l {
        LatencyStat::Mean => Some(c * wait),
        _ => quantile(l).filter(|&q| c >= 1.0 - q).map(|_| wait),
    }
}

/// Adds the queue's slices and why to `s` when the worse side's host queued rigel's wakeups.
pub(super) fn apply(worse: &Side, better: &Side, other: &str, stat: Stat, s: &mut Slower) {
    if let Some(slice) = reach(worse, stat) {
        s.slice_ns = slice;
        s.why.push(format!(
            "ran with {:.1} tasks per CPU and other work on {:.0}% of the CPU ({other} {:.0}%)",
            worse.per_cpu_load.unwrap_or(0.0),
            worse.contention.unwrap_or(0.0) * 100.0,
            better.contention.unwrap_or(0.0) * 100.0
        ));
    }
}
