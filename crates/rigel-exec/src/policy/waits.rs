//! A worker's timed waits: a slot's think time and a bursting class's idle, each a timer request
//! in the engine (`engines::Op::Timer`, tagged with the slot or the class), so the worker sleeps
//! in the kernel as for any completion; waiting, it is counted in flight but not in its class's
//! depth.
//!
//! Think time (`think = "200us"`): a closed-loop slot of such a class waits that long after each
//! completion before its next I/O, as an application does between requests; its next I/O's
//! latency starts when it is submitted. The wait achieved (timeouts fire late by the timer's
//! slack) is recorded beside the one asked. Bursts (`burst.rs` counts them): a burst's slots park
//! as their I/Os complete, the class idles after the last, and every parked slot starts the next.

use super::burst::AfterIo;
use super::slots::{PARKED, State};
use super::tag::{Tag, push_timer};
use crate::engines::Live;

impl State<'_> {
    /// Slot `i`'s I/O (or commit) completed at `now`: when its class thinks, queues the wait and
    /// returns true (the slot gets its next I/O when the wait completes, `wake`).
    #[inline]
    pub(crate) fn think(&mut self, i: usize, now: u64, eng: &mut impl Live) -> bool {
        let slot = &mut self.slots[i];
        let Some(iv) = &self.classes[slot.class].think else {
            return false;
        };
        // Not in flight: never the oldest I/O for the stall check. The wait's start is kept to
        // measure the wait achieved.
        slot.submitted_ns = PARKED;
        slot.scheduled_ns = now;
        self.thinking += 1;
        push_timer(eng, iv, Tag::Think(i));
        true
    }

    /// Slot `i`'s think timeout completed at `now`: records the wait achieved when it began and
    /// ended inside the measured window (from `from`), and hands the slot back (the caller gives
    /// it its next I/O). A wait begun before the window would count time outside it: a host that
    /// held rigel across the window's start would make each slot's wait as long as the hold, and
    /// IOPS × (latency + think) would exceed the load.
    #[inline]
    pub(crate) fn wake(&mut self, i: usize, now: u64, measuring: bool, from: u64) {
        self.thinking -= 1;
        let slot = &self.slots[i];
        if measuring && slot.scheduled_ns >= from {
            let waited = now.saturating_sub(slot.scheduled_ns);
            self.classes[slot.class].recorder.record_think(waited);
        }
    }

    /// The point's first I/Os: slot `i` of a bursting class takes one I/O of the first burst,
    /// started at `now`, or parks (false) when the burst is smaller than the class's depth.
    pub(crate) fn burst_first(&mut self, i: usize, now: u64) -> bool {
        let slot = &mut self.slots[i];
        let Some(b) = &mut self.classes[slot.class].burst else {
            return true;
        };
        if !b.first(now) {
            slot.submitted_ns = PARKED;
            return false;
        }
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
        from: u64,
        eng: &mut impl Live,
    ) -> AfterIo {
        let slot = &mut self.slots[i];
        let c = slot.class;
        let class = &mut self.classes[c];
        let Some(b) = &mut class.burst else {
            return AfterIo::Issue;
        };
        let after = b.completed(class.in_flight, now, measuring, from, &mut class.recorder);
        match after {
            AfterIo::Issue => {}
            AfterIo::Park => slot.submitted_ns = PARKED,
            AfterIo::Idle => {
                slot.submitted_ns = PARKED;
                self.idling += 1;
                push_timer(eng, &b.idle, Tag::Idle(c));
            }
        }
        after
    }

    /// Class `c`'s idle timeout completed at `now`: records the idle achieved and starts the next
    /// burst on the class's parked slots. Returns how many I/Os it queued.
    pub(crate) fn burst_wake(
        &mut self,
        c: usize,
        now: u64,
        measuring: bool,
        from: u64,
        eng: &mut impl Live,
    ) -> usize {
        self.idling -= 1;
        let class = &mut self.classes[c];
        let Some(b) = &mut class.burst else {
            return 0;
        };
        b.wake(now, measuring, from, &mut class.recorder);
        let mut queued = 0;
        for i in b.slots.clone() {
            if self.slots[i].submitted_ns != PARKED {
                continue;
            }
            if !self.classes[c].burst.as_mut().is_some_and(|b| b.take()) {
                break;
            }
            if self.take_budget(i) {
                self.next_io(i, now, eng);
                queued += 1;
            }
        }
        queued
    }
}
