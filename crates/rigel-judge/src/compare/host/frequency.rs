//! **Frequency**: the worse side's CPUs ran [`MIN_SLOWER`] or more below the better side's:
//! r = the frequency ratio (rigel's and the kernel's work per I/O take that much longer).

use super::side::{Side, Slower};
use rigel_expr::units;

/// The worse side's CPUs ran at least this fraction slower: `scaling_cur_freq` is a snapshot at
/// the window's end that jitters by a few percent under a governor; a tenth is a changed clock.
pub const MIN_SLOWER: f64 = 0.1;

/// Adds the clock's ratio and why to `s` when the worse side's CPUs ran slower.
pub(super) fn apply(worse: &Side, better: &Side, other: &str, s: &mut Slower) {
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
}
