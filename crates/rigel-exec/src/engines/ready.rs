//! The completion bookkeeping of the engines without a kernel completion queue to read (libaio,
//! psync, the tests' fake): the completions ready to reap, in order, and the policy's timers
//! (think times, burst idles, the tick), kept here because those engines have none. Each timer
//! completes, as io_uring's timeout request does (`-ETIME`), once its deadline passed, and bounds
//! the engine's wait until then; a cancel completes every timer (`-ECANCELED`) and then itself.
//! `K` is what an engine keeps beside each completion (the fake: the request's kind).

use super::seam::{Completion, Interval};
use crate::engines::clock::{Elapsed, monotonic_ns};
use std::collections::VecDeque;
use std::time::Duration;

/// Completions ready to reap and timers in flight.
#[derive(Debug)]
pub(crate) struct Ready<K = ()> {
    queue: VecDeque<(Completion, K)>,
    /// Timers in flight: (deadline, monotonic ns; tag; kind). A handful (the tick, a think per
    /// slot at most): a scan is cheaper than a heap.
    timers: Vec<(u64, u64, K)>,
}

impl<K: Copy> Ready<K> {
    /// Room for `entries` completions (the requests a worker keeps in flight at most).
    pub(crate) fn with_capacity(entries: usize) -> Ready<K> {
        Ready {
            queue: VecDeque::with_capacity(entries),
            timers: Vec::new(),
        }
    }

    /// A completion ready to reap.
    #[inline]
    pub(crate) fn push(&mut self, c: Completion, kind: K) {
        self.queue.push_back((c, kind));
    }

    /// Completions ready to reap.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.queue.len()
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The oldest completion ready, and its kind.
    #[inline]
    pub(crate) fn next(&mut self) -> Option<(Completion, K)> {
        self.queue.pop_front()
    }

    /// A timer tagged `tag` completing `interval` from now.
    pub(crate) fn push_timer(&mut self, tag: u64, interval: &Interval, kind: K) {
        self.timers
            .push((monotonic_ns() + interval.ns(), tag, kind));
    }

    /// Makes every timer whose deadline passed ready (`-ETIME`).
    #[inline]
    pub(crate) fn fire(&mut self) {
        if self.timers.is_empty() {
            return;
        }
        let now = monotonic_ns();
        let queue = &mut self.queue;
        self.timers.retain(|&(at, tag, kind)| {
            let due = at <= now;
            if due {
                queue.push_back((
                    Completion {
                        tag,
                        result: -libc::ETIME,
                    },
                    kind,
                ));
            }
            !due
        });
    }

    /// How long an engine may wait (ns): until the first timer's deadline or the policy's
    /// `until` (ns on `clock`), whichever is first; `None` when neither bounds the wait.
    pub(crate) fn wait_ns(&self, clock: &Elapsed, until: Option<u64>) -> Option<u64> {
        let first = self.timers.iter().map(|&(at, _, _)| at).min();
        let timer = first.map(|at| at.saturating_sub(monotonic_ns()));
        let send = until.map(|u| u.saturating_sub(clock.ns()));
        match (timer, send) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Waits for something to reap when nothing is ready: with `in_flight` requests of the
    /// engine's own, `reap_one(self, wait)` waits for one of them up to `wait` (the first timer's
    /// deadline or the send time `until`, `None`: unbounded); with none, sleeps until then. Then
    /// makes the timers due ready.
    #[inline]
    pub(crate) fn wait(
        &mut self,
        clock: &Elapsed,
        until: Option<u64>,
        in_flight: usize,
        reap_one: impl FnOnce(&mut Self, Option<Duration>),
    ) {
        if !self.is_empty() {
            return;
        }
        let wait = self.wait_ns(clock, until).map(Duration::from_nanos);
        if in_flight > 0 {
            reap_one(self, wait);
        } else if let Some(wait) = wait {
            std::thread::sleep(wait);
        }
        self.fire();
    }

    /// The cancel of a point's end, tagged `tag`: every timer completes as cancelled, then the
    /// cancel itself (result 0). The engine withdraws or waits out its own requests. The tag may
    /// not be a slot's read or write: its completion would hand the slot's buffer back
    /// (`SlotBufs::returned`) while the read or write may still be in flight.
    pub(crate) fn cancel(&mut self, tag: u64, kind: K) {
        assert!(
            !super::seam::is_slot_rw(tag),
            "a cancel tagged as a slot's I/O"
        );
        for (_, t, k) in self.timers.drain(..) {
            self.queue.push_back((
                Completion {
                    tag: t,
                    result: -libc::ECANCELED,
                },
                k,
            ));
        }
        self.queue.push_back((Completion { tag, result: 0 }, kind));
    }
}

impl Ready {
    /// The oldest completion ready, for the engines that keep nothing beside it.
    #[inline]
    pub(crate) fn next_completion(&mut self) -> Option<Completion> {
        self.next().map(|(c, ())| c)
    }
}

#[cfg(test)]
mod tests {
    use super::{Interval, Ready};
    use crate::engines::clock::Elapsed;

    #[test]
    #[serial_test::parallel]
    fn a_timer_completes_once_its_deadline_passed_and_bounds_the_wait() {
        static SHORT: Interval = Interval::from_ns(5_000_000);
        static LONG: Interval = Interval::from_ns(60_000_000_000);
        let clock = Elapsed::new(crate::engines::clock::monotonic_ns());
        let mut r = Ready::with_capacity(4);
        r.push_timer(1, &LONG, ());
        r.push_timer(2, &SHORT, ());
        let wait = r.wait_ns(&clock, None).expect("bounded");
        assert!(wait <= 5_000_000, "{wait}");
        // A send time sooner than any timer bounds the wait instead.
        assert!(r.wait_ns(&clock, Some(1_000)).expect("bounded") <= 1_000);
        r.fire();
        assert!(r.is_empty(), "fired before its deadline");
        std::thread::sleep(std::time::Duration::from_millis(6));
        r.fire();
        assert_eq!(r.len(), 1);
        let (c, ()) = r.next().expect("the short timer");
        assert_eq!((c.tag, c.result), (2, -libc::ETIME));
        r.cancel(9, ());
        let (c, ()) = r.next().expect("the long timer");
        assert_eq!((c.tag, c.result), (1, -libc::ECANCELED));
        let (c, ()) = r.next().expect("the cancel");
        assert_eq!((c.tag, c.result), (9, 0));
        assert!(r.timers.is_empty() && r.is_empty());
    }

    /// The one check of every engine that reaps through `Ready` (libaio, psync, the fake, the
    /// polled ring's timers): a cancel never carries a slot's read or write tag.
    #[test]
    #[serial_test::parallel]
    #[should_panic(expected = "a cancel tagged as a slot's I/O")]
    fn a_cancel_tagged_as_a_slots_io_is_refused() {
        let mut r: Ready = Ready::with_capacity(1);
        r.cancel(crate::engines::seam::SLOT_RW | 3, ());
    }
}
