//! Which per-second samples a statistic may be judged from: the full seconds of a window, and
//! the fewest of them any per-second figure (steadiness, a spread, settling) needs.

use crate::Interval;

/// Intervals long enough to speak for a second (the window's last may be a sliver).
pub fn full_seconds(intervals: &[Interval]) -> impl Iterator<Item = &Interval> {
    let mut prev = 0.0;
    intervals.iter().filter(move |iv| {
        let len = iv.t_s - prev;
        prev = iv.t_s;
        len >= 0.5
    })
}

/// The fewest full seconds any per-second statistic (steadiness, a spread) is judged from: two
/// or three seconds' max/min says more about chance than about the storage.
pub const MIN_SECONDS: usize = 5;
