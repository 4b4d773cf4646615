//! Compare knows the host: when the host differed between the runs at a point (rigel's own CPU
//! time per I/O, other work or steal taking the host's CPU, a lower CPU frequency), a figure that
//! moved by no more than that difference explains is the host's as much as the storage's. Such a
//! line is inconclusive, with the host's figures ("NEW used 1.6× rigel's CPU per I/O … on a host
//! at load 3.1 (BASE 0.4): the host, not the storage, may have changed"), rather than regressed
//! or improved; a change beyond what the host explains keeps its verdict, and so does a change
//! on the side the host favoured.
//!
//! These rules name the host; each gives a ratio r by which the worse side's host was slower (or
//! a delay its latencies may carry):
//!
//! - **CPU per I/O** moved [`MIN_RATIO`]× or more, only where the dearer side kept rigel busy
//!   ([`MIN_CORES`]) and as busy per second as the other ([`MIN_BUSY`]): storage that slowed makes
//!   each I/O dearer too (rigel's fixed costs over fewer I/Os) but leaves rigel idle; a run at a
//!   few hundred IOPS costs rigel milliseconds of CPU a second, and its CPU per I/O says nothing
//!   of the host. r is the ratio.
//! - **Contention**: other work and steal took [`MIN_CONTENTION`] or more of the host's CPU time on
//!   the worse side than on the better. rigel's threads (and the kernel threads serving its I/O)
//!   had the rest: r = (1 − c_better) / (1 − c_worse), the worse share counted at most
//!   [`MAX_CONTENTION`]. A wakeup that finds the CPU taken also waits for a scheduler slice, an
//!   absolute delay the ratio does not cover: latency figures may grow by [`SLICE_NS`] per waiting
//!   task per CPU on the worse side (its load over its CPUs, at least one) on top. A rate takes
//!   r only where the better side used [`MIN_CORES`] (rigel needed the CPU for that rate).
//! - **Saturation**: on the worse side other work and steal took [`MAX_CONTENTION`] or more of the
//!   host's CPU and its load was [`MIN_QUEUED`] tasks per CPU or more. Every wakeup may queue
//!   behind other tasks whatever the better side's host did, and whether a run's tail catches a
//!   few of those waits is chance: latency figures may grow by the slices above. It excuses no
//!   throughput (r stays 1), though on such a host a rate is not the storage's alone either: at
//!   load 9 to 18 on 2 CPUs an unchanged loop device (served by a kernel thread) gave 47 to 2,858
//!   IOPS in the seconds of one 5 s run, and pairs of unchanged runs differed by −71% and +240%
//!   (benches/noise.sh). Nothing rigel records tells that from a real drop: a fair share of a CPU
//!   (1 / load per CPU) as r made every planted 20% drop inconclusive, including the throttled
//!   ones tests/cli/compare.rs must see flagged, and bounding r by how far a run's better ticks
//!   ran above its mean failed both ways (a run starved throughout has flat ticks; a throttled
//!   one on that host had its upper decile 1.5× its mean). Such lines keep their verdict; the
//!   host's figures are in each point's record, and `--repeat` gives a band that covers them.
//!   But one starved rate is told from a drop: a worse run (two seconds or more, one run a side)
//!   that held the better side's figure, within the threshold, for a **whole second** of
//!   consecutive ticks. A tick's upper decile is a throttle's payback after a slow tick; a
//!   second is not (a throttle at 80% lets no second through at 100%), and a storage that gave
//!   that rate for a second in that run gave less in the others because the host took them
//!   (benches/noise.sh: an unchanged pair whose BASE ran its first second at 2,904 IOPS, NEW's
//!   2,779 on average, and its last four far below, at load 3.7 with other work on 94% of the
//!   CPU, read +64%).
//! - **Queued** (see [`queued`]): a task or more per CPU and other work on a share c of the CPU,
//!   short of saturated: a percentile q may grow by the slices when c ≥ 1 − q, a mean by c of
//!   them; no rate.
//! - **Frequency**: the worse side's CPUs ran [`MIN_SLOWER`] or more below the better side's:
//!   r = the frequency ratio (rigel's and the kernel's work per I/O take that much longer).
//! - **Idle** (see [`idle`]): the other way round, a latency worse on the side whose host was
//!   nearly idle, by no more than [`WAKE_NS`], against a busy host: idle CPUs sleep in deep idle
//!   states and take tens of µs to wake for a completion, where a busy host's are awake.
//!
//! What the host explains: where the CPU is the bottleneck, throughput falls as 1/r and latency
//! grows as r, so a figure worse by up to (1 − 1/r) (throughput) or (r − 1) (latency, plus the
//! slices), plus the line's own noise band, is within the host's reach. r is the largest of the
//! rules' ratios (they measure one slowdown several ways: a lower clock also makes I/Os dearer).

use super::noise::quantile;
use super::rate::{best_second, while_running};
use super::{Change, MetricChange};
use rigel_expr::{LatencyStat, Stat, units};
use rigel_results::view::PointRead;
use rigel_results::{HostLoad, PointResult};

/// NEW's CPU per I/O over BASE's (or BASE's over NEW's) from which the host is named.
pub const MIN_RATIO: f64 = 1.5;

/// The side with the dearer I/Os kept at least this share of the other's CPU time per second:
/// a host that slowed keeps rigel as busy while each I/O costs more, where storage that slowed
/// leaves it idle more (its fixed costs per second spread over fewer I/Os, a dearer I/O too).
pub const MIN_BUSY: f64 = 0.8;

/// The dearer side used at least this many cores: below it rigel's CPU cannot have held the
/// storage back, and its CPU per I/O is mostly fixed costs (a tick, a timer) over the I/Os, which
/// any drop in the storage's rate makes dearer.
pub const MIN_CORES: f64 = 0.5;

/// Other work and steal took this much more of the host's CPU time on the worse side (a quarter:
/// half a core of 2): /proc/stat's ticks are sampled at 100 Hz, so a 1 s point on 2 CPUs counts
/// 200 and a share moves by a few hundredths between back-to-back runs of an unchanged host;
/// a quarter is far beyond that, and on 2 cores is a whole task competing half the time.
pub const MIN_CONTENTION: f64 = 0.25;

/// The worse side's contention is counted at most this: a host whose other work took all its CPU
/// still gave rigel its fair share (the scheduler's), not nothing; r is then at most 10.
pub const MAX_CONTENTION: f64 = 0.9;

/// The worse side's CPUs ran at least this fraction slower: `scaling_cur_freq` is a snapshot at
/// the window's end that jitters by a few percent under a governor; a tenth is a changed clock.
pub const MIN_SLOWER: f64 = 0.1;

/// A host is saturated when other work took [`MAX_CONTENTION`] of its CPU and its load was at
/// least this many tasks per CPU: as many runnable tasks as CPUs, each CPU nearly always taken,
/// so every wakeup of rigel's (or of the kernel thread serving its I/O) may queue behind another
/// task. At load 2.8 on 2 CPUs with other work on 92–95% of it, an unchanged QD 1 write mean
/// moved from 34 to 86 µs between back-to-back runs (benches/noise.sh).
pub const MIN_QUEUED: f64 = 1.0;

/// A scheduler slice: how long a woken thread may wait for a CPU held by another task (EEVDF's
/// base slice is 0.75 ms × (1 + log2 CPUs), 3 ms from 8 CPUs; CFS's latency target was 6 ms on
/// few CPUs). A tail latency that grew by a few ms on a busier host may be that wait.
pub const SLICE_NS: f64 = 3e6;

/// One side's host over a point (runs' means).
#[derive(Clone, Copy, Debug, Default)]
struct Side {
    /// rigel's CPU per I/O, µs.
    cpu_us: f64,
    /// rigel's cores busy.
    cores: f64,
    load: Option<f64>,
    per_cpu_load: Option<f64>,
    contention: Option<f64>,
    steal: Option<f64>,
    mhz: Option<f64>,
}

impl Side {
    fn of(s: &[PointRead]) -> Side {
        let mean = |v: Vec<f64>| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        let host = |f: fn(&HostLoad) -> Option<f64>| {
            mean(
                s.iter()
                    .filter_map(|p| p.result.host.as_ref().and_then(f))
                    .collect(),
            )
        };
        Side {
            cpu_us: mean(s.iter().map(|p| p.cpu_per_io_us()).collect()).unwrap_or(0.0),
            cores: mean(
                s.iter()
                    .map(|p| {
                        let cpu = &p.result.cpu;
                        (cpu.user_s + cpu.system_s) / p.result.elapsed_s.max(1e-9)
                    })
                    .collect(),
            )
            .unwrap_or(0.0),
            load: host(|h| h.load_1m),
            per_cpu_load: host(|h| Some(h.load_1m? / f64::from(h.cpus?.max(1)))),
            contention: host(HostLoad::contention),
            steal: host(|h| h.steal),
            mhz: host(|h| h.cpu_mhz),
        }
    }
}

/// Both sides' hosts at a matched point, and each side's run when it has one.
pub(super) struct HostChange<'a> {
    base: Side,
    new: Side,
    runs: Option<(&'a PointResult, &'a PointResult)>,
}

/// How much slower the worse side's host was, and what it adds to a latency.
struct Slower {
    ratio: f64,
    slice_ns: f64,
    why: Vec<String>,
}

impl<'a> HostChange<'a> {
    pub(super) fn of(base: &[PointRead<'a>], new: &[PointRead<'a>]) -> HostChange<'a> {
        HostChange {
            base: Side::of(base),
            new: Side::of(new),
            runs: match (base, new) {
                ([b], [n]) => Some((b.result, n.result)),
                _ => None,
            },
        }
    }

    /// A rate whose worse run, on a saturated host, held the better side's figure for a whole
    /// second: the storage gave that rate in that run, and the host took the rest (see the
    /// module's note); why, or `None`.
    fn held_back(
        &self,
        change: &MetricChange,
        worse: &Side,
        better: &Side,
        (side, other): (&str, &str),
    ) -> Option<String> {
        let (b, n) = self.runs?;
        let run = if side == "NEW" { n } else { b };
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

    /// `change` made inconclusive, with why, when its move is in the host's direction and
    /// within what the host explains.
    pub(super) fn attribute(&self, change: &mut MetricChange, stat: Stat) {
        let Some(c) = change.change_percent else {
            return;
        };
        let (worse, better, names) = match change.verdict {
            Change::Regressed => (&self.new, &self.base, ("NEW", "BASE")),
            Change::Improved => (&self.base, &self.new, ("BASE", "NEW")),
            _ => return,
        };
        if let Some(why) = idle(worse, better, names, stat, (change.base - change.new).abs()) {
            change.verdict = Change::Inconclusive;
            change.host = Some(why);
            return;
        }
        if stat.higher_is_better()
            && let Some(why) = self.held_back(change, worse, better, names)
        {
            change.verdict = Change::Inconclusive;
            change.host = Some(why);
            return;
        }
        let Some(s) = slower(worse, better, names.1, stat) else {
            return;
        };
        let explained = if stat.higher_is_better() {
            (1.0 - 1.0 / s.ratio) * 100.0
        } else {
            // The change is a share of BASE's figure (ns), the slices too.
            let slices = if change.base > 0.0 {
                s.slice_ns / change.base * 100.0
            } else {
                0.0
            };
            (s.ratio - 1.0) * 100.0 + slices
        };
        if c.abs() > explained + change.noise_percent.unwrap_or(0.0) {
            return;
        }
        change.verdict = Change::Inconclusive;
        change.host = Some(message(worse, better, names, &s));
    }
}

/// The rules that name the worse side's host, or `None` when none does.
fn slower(worse: &Side, better: &Side, other: &str, stat: Stat) -> Option<Slower> {
    let rate = stat.higher_is_better();
    let mut s = Slower {
        ratio: 1.0,
        slice_ns: 0.0,
        why: Vec::new(),
    };
    let cpu = worse.cpu_us / better.cpu_us;
    if better.cpu_us > 0.0
        && cpu >= MIN_RATIO
        && worse.cores >= MIN_CORES
        && worse.cores >= MIN_BUSY * better.cores
    {
        s.ratio = s.ratio.max(cpu);
        s.why.push(format!(
            "used {cpu:.1}× rigel's CPU per I/O ({} µs against {} µs)",
            units::number(worse.cpu_us),
            units::number(better.cpu_us)
        ));
    }
    if let (Some(w), Some(b)) = (worse.contention, better.contention)
        && w - b >= MIN_CONTENTION
    {
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
    if s.slice_ns == 0.0 && saturated(worse) {
        // Saturated whatever the other side was: the waits are chance events, a tail that
        // caught a few of them in one run and none in the other moved by the host.
        s.slice_ns = SLICE_NS * worse.per_cpu_load.unwrap_or(1.0);
        s.why.push(format!(
            "ran while other work took {:.0}% of the host's CPU ({other} {:.0}%)",
            worse.contention.unwrap_or(0.0) * 100.0,
            better.contention.unwrap_or(0.0) * 100.0
        ));
    } else if s.slice_ns == 0.0
        && let Some(slice) = queued(worse, stat)
    {
        s.slice_ns = slice;
        s.why.push(format!(
            "ran with {:.1} tasks per CPU and other work on {:.0}% of the CPU ({other} {:.0}%)",
            worse.per_cpu_load.unwrap_or(0.0),
            worse.contention.unwrap_or(0.0) * 100.0,
            better.contention.unwrap_or(0.0) * 100.0
        ));
    }
    if let (Some(w), Some(b)) = (worse.mhz, better.mhz)
        && w > 0.0
        && w <= b * (1.0 - MIN_SLOWER)
    {
        s.ratio = s.ratio.max(b / w);
        s.why.push(format!(
            "ran its CPUs at {} MHz ({other} {})",
            units::number(w),
            units::number(b)
        ));
    }
    (!s.why.is_empty()).then_some(s)
}

/// Other work took [`MAX_CONTENTION`] of the side's host and its load was [`MIN_QUEUED`] tasks
/// per CPU or more: every wakeup may queue behind another task.
fn saturated(side: &Side) -> bool {
    side.contention.is_some_and(|c| c >= MAX_CONTENTION)
        && side.per_cpu_load.is_some_and(|l| l >= MIN_QUEUED)
}

/// **Queued**: a side whose host had [`MIN_QUEUED`] runnable tasks per CPU or more, other work
/// taking a share c of its CPU: a wakeup finds its CPU taken about c of the time and then waits
/// up to a slice per queued task. A percentile q is within that reach when c ≥ 1 − q (a p99 when
/// more than 1% of wakeups may wait), a mean by c of it; how much a latency may grow, or `None`.
/// benches/noise.sh at load 2–4: unchanged QD 1 lines moved from 305 to 115 µs (p99) and 119 to
/// 57 µs (write mean) with other work on 36% of BASE's CPU and 14% of NEW's, at 2.1 tasks per
/// CPU; a write mean from 681 to 256 µs at 86% and 93%, 1.4 tasks per CPU.
fn queued(side: &Side, stat: Stat) -> Option<f64> {
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

/// Other work on at most this share of the idle side's CPU, for the **Idle** rule.
pub const IDLE_CONTENTION: f64 = 0.25;
/// Other work on at least this share of the busy side's CPU, for the **Idle** rule.
pub const BUSY_CONTENTION: f64 = 0.75;
/// The most a latency may be worse on the idle side for the **Idle** rule, ns: a few deep idle
/// state exits on a completion's path (the CPU taking the interrupt, the one waking rigel's
/// thread), each up to about 100 µs.
pub const WAKE_NS: f64 = 200e3;

/// **Idle**: a latency worse on a nearly idle host ([`IDLE_CONTENTION`]) than on a busy one
/// ([`BUSY_CONTENTION`]) by at most [`WAKE_NS`]: why, or `None`. benches/noise.sh, unchanged 5 s
/// pairs at load 2–3: a QD 1 p99 of 273 µs against 105 µs and a write mean of 29.5 µs against
/// 14.3 µs, each worse on the host with other work on 11% of its CPU than on the one at 94%.
fn idle(
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

/// "NEW used 1.6× rigel's CPU per I/O (12.1 µs against 7.5 µs) on a host at load 3.1 (BASE
/// 0.4): the host, not the storage, may have changed".
fn message(worse: &Side, better: &Side, (side, other): (&str, &str), s: &Slower) -> String {
    let load = match (worse.load, better.load) {
        (Some(w), Some(b)) => format!(" on a host at load {w:.1} ({other} {b:.1})"),
        _ => String::new(),
    };
    format!(
        "{side} {}{load}: the host, not the storage, may have changed",
        s.why.join(", ")
    )
}

#[cfg(test)]
#[path = "host_tests.rs"]
mod tests;
