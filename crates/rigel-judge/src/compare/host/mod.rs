//! Compare knows the host: when the host differed between the runs at a point (rigel's own CPU
//! time per I/O, other work or steal taking the host's CPU, a lower CPU frequency), a figure that
//! moved by no more than that difference explains is the host's as much as the storage's. Such a
//! line is inconclusive, with the host's figures ("NEW used 1.6× rigel's CPU per I/O … on a host
//! at load 3.1 (BASE 0.4): the host, not the storage, may have changed"), rather than regressed
//! or improved; a change beyond what the host explains keeps its verdict, and so does a change
//! on the side the host favoured.
//!
//! Each rule names the worse side's host and gives a ratio r by which it was slower, or a delay
//! its latencies may carry (a rule per file; each file's note says why):
//!
//! | Rule | File | Names the host when | Excuses |
//! |---|---|---|---|
//! | CPU per I/O | [`cpu`] | rigel's CPU per I/O 1.5× the other side's, rigel busy | rates and latencies by r |
//! | Contention | [`contention`] | other work 25 points more of the CPU on the worse side | latencies by r and slices; rates by r where rigel used half a core |
//! | Saturation | [`saturation`] | other work ≥ 90% of the CPU, a task or more per CPU | latencies by slices; a rate whose run held the other's figure a whole second |
//! | Queued | [`queued`] | a task or more per CPU, other work on a share c, short of saturated | percentiles q with c ≥ 1 − q by slices, means by c of them |
//! | Frequency | [`frequency`] | the worse side's CPUs 10% slower | rates and latencies by r |
//! | Idle | [`idle`] | a latency worse on a nearly idle host than on a busy one | latencies by at most 200 µs |
//!
//! What the host explains: where the CPU is the bottleneck, throughput falls as 1/r and latency
//! grows as r, so a figure worse by up to (1 − 1/r) (throughput) or (r − 1) (latency, plus the
//! slices), plus the line's own noise band, is within the host's reach. r is the largest of the
//! rules' ratios (they measure one slowdown several ways: a lower clock also makes I/Os dearer).

mod contention;
mod cpu;
mod frequency;
mod idle;
mod queued;
mod saturation;
mod side;

use super::{Change, MetricChange};
use rigel_expr::Stat;
use rigel_results::PointResult;
use rigel_results::view::PointRead;
use side::{Side, Slower};

/// Both sides' hosts at a matched point, and each side's run when it has one.
pub(super) struct HostChange<'a> {
    base: Side,
    new: Side,
    runs: Option<(&'a PointResult, &'a PointResult)>,
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

    /// `change` made inconclusive, with why, when its move is in the host's direction and
    /// within what the host explains.
    pub(super) fn attribute(&self, change: &mut MetricChange, stat: Stat) {
        // A line its typical tick flagged is weighed by that tick's change (its figure's is
        // inside the band, which any rule naming the host would excuse).
        let Some(c) = change.typical_percent.or(change.change_percent) else {
            return;
        };
        let (worse, better, names) = match change.verdict {
            Change::Regressed => (&self.new, &self.base, ("NEW", "BASE")),
            Change::Improved => (&self.base, &self.new, ("BASE", "NEW")),
            _ => return,
        };
        if let Some(why) = idle::why(worse, better, names, stat, (change.base - change.new).abs()) {
            change.verdict = Change::Inconclusive;
            change.host = Some(why);
            return;
        }
        // A worse run that held the better side's rate for a second (one run a side).
        let run = self.runs.map(|(b, n)| if names.0 == "NEW" { n } else { b });
        if stat.higher_is_better()
            && let Some(run) = run
            && let Some(why) = saturation::held_back(change, run, worse, better, names)
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

/// The rules that name the worse side's host, or `None` when none does. Contention's slices
/// come first; saturation's, else the queue's, only when contention gave none.
fn slower(worse: &Side, better: &Side, other: &str, stat: Stat) -> Option<Slower> {
    let mut s = Slower {
        ratio: 1.0,
        slice_ns: 0.0,
        why: Vec::new(),
    };
    cpu::apply(worse, better, &mut s);
    contention::apply(worse, better, other, stat.higher_is_better(), &mut s);
    if s.slice_ns == 0.0 {
        if saturation::saturated(worse) {
            saturation::apply(worse, better, other, &mut s);
        } else {
            queued::apply(worse, better, other, stat, &mut s);
        }
    }
    frequency::apply(worse, better, other, &mut s);
    (!s.why.is_empty()).then_some(s)
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
