//! Bursts (`burst = { ios = 64, idle = "10ms" }`), as a checkpoint or a batch job issues them: the
//! class keeps its depth in flight until it has issued the burst's `ios` I/Os, its slots park as
//! their I/Os complete, and when the burst's last I/O completes the class is idle for `idle`: a
//! timer request in the engine (tagged with the class), so the worker sleeps in the kernel as for
//! any completion. When it completes the next burst starts at once on every parked slot. A
//! bursting class runs on one worker (`share.rs`), so a burst is the class's, not a worker's
//! share of it. The bursts (I/Os completed, length) and the idle achieved are recorded.

use super::slots::{PARKED, State};
use super::tag::{Tag, push_timer};
use crate::engines::Live;

/// What a bursting class's slot does after its I/O completed.
pub(crate) enum AfterIo {
    /// Its next I/O, of the current burst.
    Issue,
    /// Nothing: the burst has issued its I/Os; the slot waits for the next burst.
    Park,
    /// Nothing, and the burst is over: the class's idle timeout is queued (counted in flight in
    /// the slot's place).
    Idle,
}

impl State<'_> {
    /// The point's first I/Os: slot `i` of a bursting class takes one I/O of the first burst,
    /// started at `now`, or parks (false) when the burst is smaller than the class's depth.
    pub(crate) fn burst_first(&mut self, i: usize, now: u64) -> bool {
        let slot = &mut self.slots[i];
        let Some(b) = &mut self.classes[slot.class].burst else {
            return true;
        };
        b.started_ns = now;
        if b.left == 0 {
            slot.submitted_ns = PARKED;
            return false;
        }
        b.left -= 1;
        true
    }

    /// Slot `i`'s I/O of a bursting class completed at `now` (`measuring`: inside the window):
    /// the slot's next I/O, or it parks, and the burst ends with its last completion.
    #[inline]
    pub(crate) fn burst_next(
        &mut self,
        i: usize,
        now: u64,
        measuring: bool,
        eng: &mut impl Live,
    ) -> AfterIo {
        let slot = &mut self.slots[i];
        let c = slot.class;
        let class = &mut self.classes[c];
        let Some(b) = &mut class.burst else {
            return AfterIo::Issue;
        };
        b.done += 1;
        if b.left > 0 {
            b.left -= 1;
            return AfterIo::Issue;
        }
        slot.submitted_ns = PARKED;
        if class.in_flight > 0 {
            return AfterIo::Park;
        }
        if measuring {
            let (done, active) = (u64::from(b.done), now.saturating_sub(b.started_ns));
            class.recorder.record_burst(done, active);
        }
        b.done = 0;
        b.idle_from = now;
        self.idling += 1;
        push_timer(eng, &b.idle, Tag::Idle(c));
        AfterIo::Idle
    }

    /// Class `c`'s idle timeout completed at `now`: records the idle achieved and starts the next
    /// burst on the class's parked slots. Returns how many I/Os it queued.
    pub(crate) fn burst_wake(
        &mut self,
        c: usize,
        now: u64,
        measuring: bool,
        eng: &mut impl Live,
    ) -> usize {
        self.idling -= 1;
        let class = &mut self.classes[c];
        let Some(b) = &mut class.burst else {
            return 0;
        };
        if measuring {
            class.recorder.record_idle(now.saturating_sub(b.idle_from));
        }
        (b.left, b.started_ns) = (b.ios, now);
        let mut queued = 0;
        for i in b.slots.clone() {
            let class = &mut self.classes[c];
            let Some(b) = class.burst.as_mut().filter(|b| b.left > 0) else {
                break;
            };
            if self.slots[i].submitted_ns != PARKED {
                continue;
            }
            b.left -= 1;
            if self.take_budget(i) {
                self.next_io(i, now, eng);
                queued += 1;
            }
        }
        queued
    }
}
