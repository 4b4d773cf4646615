//! Think time (`think = "200us"`): a closed-loop slot of such a class waits that long after each
//! completion before its next I/O, as an application does between requests. The wait is a
//! timer request in the engine (`engines::Op::Timer`, tagged with the slot), so the worker sleeps
//! in the kernel as for any completion; the slot is then not in flight (its class's depth does not
//! count it) and its next I/O's latency starts when it is submitted. The wait achieved (timeouts
//! fire late by the timer's slack) is recorded beside the one asked.

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

    /// Slot `i`'s think timeout completed at `now`: records the wait achieved (inside the
    /// measured window) and hands the slot back (the caller gives it its next I/O).
    #[inline]
    pub(crate) fn wake(&mut self, i: usize, now: u64, measuring: bool) {
        self.thinking -= 1;
        let slot = &self.slots[i];
        if measuring {
            let waited = now.saturating_sub(slot.scheduled_ns);
            self.classes[slot.class].recorder.record_think(waited);
        }
    }
}
