//! Compare knows the host: when rigel's own CPU time per I/O differs between the runs at a point,
//! the host changed under it (a slower or throttled CPU, steal time, other work on the cores), and
//! a figure that moved by no more than that change explains is the host's as much as the
//! storage's. Such a line is inconclusive, with both CPU figures, rather than regressed or
//! improved; a change beyond what the host explains keeps its verdict.
//!
//! Only where the dearer side kept rigel busy ([`MIN_CORES`]) and as busy per second as the other
//! ([`MIN_BUSY`]): storage that slowed makes each I/O dearer too (rigel's fixed costs over fewer
//! I/Os) but leaves rigel idle; a run at a few hundred IOPS costs rigel milliseconds of CPU a
//! second, and its CPU per I/O says nothing of the host.
//!
//! What the host explains: where rigel is the bottleneck, throughput falls as 1/r and latency
//! grows as r for a ratio r of CPU per I/O, so a figure worse by up to (1 − 1/r) (throughput) or
//! (r − 1) (latency), plus the line's own noise band, is within the host's reach.

use super::{Change, MetricChange};
use rigel_expr::{Stat, units};
use rigel_results::view::PointRead;

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

/// rigel's CPU per I/O at a matched point, on each side (runs' means, µs).
pub(super) struct HostChange {
    base_us: f64,
    new_us: f64,
}

impl HostChange {
    /// The sides' CPU per I/O when it moved by [`MIN_RATIO`] or more either way.
    pub(super) fn of(base: &[PointRead], new: &[PointRead]) -> Option<HostChange> {
        let mean = |s: &[PointRead]| {
            let v: Vec<f64> = s.iter().map(|p| p.cpu_per_io_us()).collect();
            v.iter().sum::<f64>() / v.len().max(1) as f64
        };
        let busy = |s: &[PointRead]| {
            let cores = s.iter().map(|p| {
                let cpu = &p.result.cpu;
                (cpu.user_s + cpu.system_s) / p.result.elapsed_s.max(1e-9)
            });
            cores.sum::<f64>() / s.len().max(1) as f64
        };
        let (base_us, new_us) = (mean(base), mean(new));
        if base_us <= 0.0 || new_us <= 0.0 {
            return None;
        }
        let (dear, cheap) = if new_us >= base_us {
            (busy(new), busy(base))
        } else {
            (busy(base), busy(new))
        };
        let moved = new_us / base_us >= MIN_RATIO || base_us / new_us >= MIN_RATIO;
        (moved && dear >= MIN_CORES && dear >= MIN_BUSY * cheap)
            .then_some(HostChange { base_us, new_us })
    }

    /// `change` made inconclusive, with why, when its move is in the host's direction and
    /// within what the host explains.
    pub(super) fn attribute(&self, change: &mut MetricChange, stat: Stat) {
        let r = self.new_us / self.base_us;
        // The side whose host cost more per I/O is the one the host may have made worse.
        let (worse_side, ratio) = if r >= 1.0 {
            (Change::Regressed, r)
        } else {
            (Change::Improved, 1.0 / r)
        };
        let Some(c) = change.change_percent else {
            return;
        };
        if change.verdict != worse_side {
            return;
        }
        let explained = if stat.higher_is_better() {
            (1.0 - 1.0 / ratio) * 100.0
        } else {
            (ratio - 1.0) * 100.0
        };
        if c.abs() > explained + change.noise_percent.unwrap_or(0.0) {
            return;
        }
        change.verdict = Change::Inconclusive;
        change.host = Some(self.message());
    }

    /// "NEW used 1.6× the CPU per I/O (12.1 µs against 7.5 µs): the host, not the storage, may
    /// have changed".
    fn message(&self) -> String {
        let (more, less, side) = if self.new_us >= self.base_us {
            (self.new_us, self.base_us, "NEW")
        } else {
            (self.base_us, self.new_us, "BASE")
        };
        format!(
            "{side} used {:.1}× rigel's CPU per I/O ({} µs against {} µs): the host, not the \
             storage, may have changed",
            more / less,
            units::number(more),
            units::number(less),
        )
    }
}
