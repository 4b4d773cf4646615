//! **CPU per I/O**: rigel's own CPU time per I/O moved [`MIN_RATIO`]× or more, only where the
//! dearer side kept rigel busy ([`MIN_CORES`]) and as busy per second as the other
//! ([`MIN_BUSY`]): storage that slowed makes each I/O dearer too (rigel's fixed costs over fewer
//! I/Os) but leaves rigel idle; a run at a few hundred IOPS costs rigel milliseconds of CPU a
//! second, and its CPU per I/O says nothing of the host. r is the ratio.

use super::side::{Side, Slower};
use rigel_expr::units;

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

/// Adds the rule's ratio and why to `s` when it names the worse side's host.
pub(super) fn apply(worse: &Side, better: &Side, s: &mut Slower) {
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
}
