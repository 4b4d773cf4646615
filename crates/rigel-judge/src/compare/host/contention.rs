//! **Contention**: other work and steal took [`MIN_CONTENTION`] or more of the host's CPU time on
//! the worse side than on the better. rigel's threads (and the kernel threads serving its I/O)
//! had the rest: r = (1 − c_better) / (1 − c_worse), the worse share counted at most
//! [`MAX_CONTENTION`]. A wakeup that finds the CPU taken also waits for a scheduler slice, an
//! absolute delay the ratio does not cover: latency figures may grow by [`SLICE_NS`] per waiting
//! task per CPU on the worse side (its load over its CPUs, at least one) on top. A rate takes r
//! only where the better side used [`MIN_CORES`] (rigel needed the CPU for that rate).

use super::cpu::MIN_CORES;
use super::side::{SLICE_NS, Side, Slower};

/// Other work and steal took this much more of the host's CPU time on the worse side (a quarter:
/// half a core of 2): /proc/stat's ticks are sampled at 100 Hz, so a 1 s point on 2 CPUs counts
/// 200 and a share moves by a few hundredths between back-to-back runs of an unchanged host;
/// a quarter is far beyond that, and on 2 cores is a whole task competing half the time.
pub const MIN_CONTENTION: f64 = 0.25;

/// The worse side's contention is counted at most this: a host whose other work took all its CPU
/// still gave rigel its fair share (the scheduler's), not nothing; r is then at most 10.
pub const MAX_CONTENTION: f64 = 0.9;

/// Adds the rule's ratio (rates only where rigel needed the CPU), slices and why to `s` when it
/// names the worse side's host.
pub(super) fn apply(worse: &Side, better: &Side, other: &str, rate: bool, s: &mut Slower) {
    let (Some(w), Some(b)) = (worse.contention, better.contention) else {
        return;
    };
    if w - b < MIN_CONTENTION {
        return;
    }
    let r = (1.0 - b.min(MAX_CONTENTION)) / (1.0 - w.min(MAX_CONTENTION));
    // A rate is the CPU's only where rigel needed it: a better side that used
    // [`MIN_CORES`] or more. One that kept its rate on a few percent of a core was held by
    // its storage, and a worse side whose host left it a fair share of a CPU could do the
    // same (benches/noise.sh: a throttled 20% drop at 0.6% of a core, NEW's host at 99%
    // other work against BASE's 36%, read −23.2% and was put down to the host).
    if !rate || better.cores >= MIN_CORES {
        s.ratio = s.ratio.max(r);
    }
    s.slice_ns = SLICE_NS * worse.per_cpu_load.unwrap_or(1.0).max(1.0);
    let steal = match (worse.steal, better.steal) {
        (Some(ws), Some(bs)) if ws > 0.005 || bs > 0.005 => {
            format!(", steal {:.0}% ({other} {:.0}%)", ws * 100.0, bs * 100.0)
        }
        _ => String::new(),
    };
    s.why.push(format!(
        "had {:.0}% of the host's CPU taken by other work ({other} {:.0}%){steal}",
        w * 100.0,
        b * 100.0
    ));
}
