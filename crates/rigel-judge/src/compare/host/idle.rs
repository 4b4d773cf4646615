//! **Idle**: the other way round, a latency worse on the side whose host was nearly idle
//! ([`IDLE_CONTENTION`]) than on a busy one ([`BUSY_CONTENTION`]), by no more than [`WAKE_NS`]:
//! idle CPUs sleep in deep idle states and take tens of µs to wake for a completion, where a
//! busy host's are awake. benches/noise.sh, unchanged 5 s pairs at load 2–3: a QD 1 p99 of
//! 273 µs against 105 µs and a write mean of 29.5 µs against 14.3 µs, each worse on the host
//! with other work on 11% of its CPU than on the one at 94%.

use super::side::Side;
use rigel_expr::Stat;

/// Other work on at most this share of the idle side's CPU.
pub const IDLE_CONTENTION: f64 = 0.25;
/// Other work on at least this share of the busy side's CPU.
pub const BUSY_CONTENTION: f64 = 0.75;
/// The most a latency may be worse on the idle side, ns: a few deep idle state exits on a
/// completion's path (the CPU taking the interrupt, the one waking rigel's thread), each up to
/// about 100 µs.
pub const WAKE_NS: f64 = 200e3;

/// Why a latency worse `by` ns on the idle side is the host's, or `None`.
pub(super) fn why(
    worse: &Side,
    better: &Side,
    (side, other): (&str, &str),
    stat: Stat,
    by: f64,
) -> Option<String> {
    let (Stat::Latency(_) | Stat::Service(_)) = stat else {
        return None;
    };
    let (w, b) = (worse.contention?, better.contention?);
    (w <= IDLE_CONTENTION && b >= BUSY_CONTENTION && by <= WAKE_NS).then(|| {
        format!(
            "{side} ran on a nearly idle host (other work on {:.0}% of the CPU, {other} {:.0}%): \
             idle CPUs sleep in deep idle states and wake tens of µs late, so µs latencies can be \
             lower on a busy host: the host, not the storage, may have changed",
            w * 100.0,
            b * 100.0
        )
    })
}
