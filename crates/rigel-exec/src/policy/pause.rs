//! Time in which rigel itself did not run: a gap between a worker's own clock readings far longer
//! than any wait its timer allows (every wait ends within 100 ms, `tick.rs`). A stopped process
//! (SIGSTOP), a paused VM or a frozen container leaves such a gap; so does a worker that never got
//! the CPU inside a 10 ms window. Such time is neither the storage's service nor its stall: the
//! point says how much of its window it covers instead of a clean "ok", and the stall rule does
//! not count it against the storage.

/// A gap between two readings beyond this is time the worker did not run: ten timer periods, far
/// above a loaded host's scheduling delays.
pub(crate) const PAUSE_NS: u64 = 1_000_000_000;
/// Gaps kept for the stall rule; an older one is folded into the oldest kept.
const KEPT: usize = 64;

/// A worker's gaps: each long one (for the stall rule), and their part of the measured window.
#[derive(Debug, Default)]
pub(crate) struct Pauses {
    /// (start, length) of each gap beyond [`PAUSE_NS`], ns since the point's start, in order.
    gaps: Vec<(u64, u64)>,
    /// The gaps' overlap with the measured window.
    pub(crate) in_window_ns: u64,
    /// The longest gap overlapping the window.
    pub(crate) longest_ns: u64,
    /// Some reading fell inside the window.
    pub(crate) ran_in_window: bool,
    /// The timer completed inside the window: the worker ran and waited a whole timer period
    /// there, so a class with nothing completed was the storage's silence, not rigel's.
    pub(crate) ticked_in_window: bool,
}

impl Pauses {
    /// The span from the reading `prev` to the reading `now`, against the window `[from, end)`.
    #[inline]
    pub(crate) fn span(&mut self, prev: u64, now: u64, from: u64, end: u64) {
        if now >= from && now < end {
            self.ran_in_window = true;
        }
        let gap = now.saturating_sub(prev);
        if gap <= PAUSE_NS {
            return;
        }
        if self.gaps.len() == KEPT {
            let (_, len) = self.gaps.remove(1);
            self.gaps[0].1 += len;
        }
        self.gaps.push((prev, gap));
        let overlap = now.min(end).saturating_sub(prev.max(from));
        if overlap > 0 {
            self.in_window_ns += overlap;
            self.longest_ns = self.longest_ns.max(gap);
        }
    }

    /// Time rigel did not run since `t` (ns since the point's start).
    #[inline]
    pub(crate) fn since(&self, t: u64) -> u64 {
        self.gaps
            .iter()
            .filter(|(start, _)| *start >= t)
            .map(|(_, len)| len)
            .sum()
    }

    /// The window's time rigel did not run, once the window has elapsed (`window_ns` long): all
    /// of it when no reading fell inside (the worker never got the CPU there, however short).
    pub(crate) fn of_window(&self, window_ns: u64) -> (u64, u64) {
        if self.ran_in_window {
            (self.in_window_ns, self.longest_ns)
        } else {
            (window_ns, self.longest_ns.max(window_ns))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[serial_test::parallel]
    fn a_long_gap_counts_its_part_of_the_window_and_is_credited_to_the_stall_rule() {
        let s = 1_000_000_000;
        let mut p = Pauses::default();
        p.span(0, s / 2, s, 6 * s);
        p.span(s / 2, 2 * s, s, 6 * s);
        assert_eq!((p.in_window_ns, p.ran_in_window), (s, true));
        // SIGSTOP for 40 s from 2 s: the window's last 4 s and 36 s after it.
        p.span(2 * s, 42 * s, s, 6 * s);
        assert_eq!(p.of_window(5 * s), (5 * s, 40 * s));
        assert_eq!(p.since(0), 41 * s + s / 2);
        assert_eq!(p.since(s), 40 * s);
        assert_eq!(p.since(3 * s), 0);
        // A 10 ms window no reading fell in: all of it, however short the gap.
        let mut q = Pauses::default();
        q.span(0, 30_000_000, 10_000_000, 20_000_000);
        assert_eq!(q.of_window(10_000_000), (10_000_000, 10_000_000));
    }
}
