//! The policy's timers (think times, burst idles, the tick) for engines without kernel timers
//! (libaio, psync): each completes, as io_uring's timeout request does (`-ETIME`), once its
//! deadline passed, and bounds the engine's wait until then.

use super::seam::{Completion, Interval};
use crate::engines::clock::{Elapsed, monotonic_ns};
use std::collections::VecDeque;

/// Timers in flight: (deadline, monotonic ns; tag). A handful (the tick, a think per slot at
/// most): a scan is cheaper than a heap.
#[derive(Debug, Default)]
pub(crate) struct Timers {
    due: Vec<(u64, u64)>,
}

impl Timers {
    /// A timer tagged `tag` completing `interval` from now.
    pub(crate) fn push(&mut self, tag: u64, interval: &Interval) {
        self.due.push((monotonic_ns() + interval.ns(), tag));
    }

    /// Moves every timer whose deadline passed to `ready`.
    pub(crate) fn fire(&mut self, ready: &mut VecDeque<Completion>) {
        if self.due.is_empty() {
            return;
        }
        let now = monotonic_ns();
        self.due.retain(|&(at, tag)| {
            let due = at <= now;
            if due {
                ready.push_back(Completion {
                    tag,
                    result: -libc::ETIME,
                });
            }
            !due
        });
    }

    /// Completes every timer as cancelled.
    pub(crate) fn cancel(&mut self, ready: &mut VecDeque<Completion>) {
        for (_, tag) in self.due.drain(..) {
            ready.push_back(Completion {
                tag,
                result: -libc::ECANCELED,
            });
        }
    }

    /// How long an engine may wait (ns): until the first timer's deadline or the policy's
    /// `until` (ns on `clock`), whichever is first; `None` when neither bounds the wait.
    pub(crate) fn wait_ns(&self, clock: &Elapsed, until: Option<u64>) -> Option<u64> {
        let first = self.due.iter().map(|&(at, _)| at).min();
        let timer = first.map(|at| at.saturating_sub(monotonic_ns()));
        let send = until.map(|u| u.saturating_sub(clock.ns()));
        match (timer, send) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Interval, Timers};
    use crate::engines::clock::Elapsed;
    use std::collections::VecDeque;

    #[test]
    #[serial_test::parallel]
    fn a_timer_completes_once_its_deadline_passed_and_bounds_the_wait() {
        static SHORT: Interval = Interval::from_ns(5_000_000);
        static LONG: Interval = Interval::from_ns(60_000_000_000);
        let clock = Elapsed::new(crate::engines::clock::monotonic_ns());
        let mut t = Timers::default();
        t.push(1, &LONG);
        t.push(2, &SHORT);
        let wait = t.wait_ns(&clock, None).expect("bounded");
        assert!(wait <= 5_000_000, "{wait}");
        // A send time sooner than any timer bounds the wait instead.
        assert!(t.wait_ns(&clock, Some(1_000)).expect("bounded") <= 1_000);
        let mut ready = VecDeque::new();
        t.fire(&mut ready);
        assert!(ready.is_empty(), "fired before its deadline");
        std::thread::sleep(std::time::Duration::from_millis(6));
        t.fire(&mut ready);
        assert_eq!(ready.len(), 1);
        assert_eq!((ready[0].tag, ready[0].result), (2, -libc::ETIME));
        t.cancel(&mut ready);
        assert_eq!((ready[1].tag, ready[1].result), (1, -libc::ECANCELED));
        assert!(t.due.is_empty());
    }
}
