//! Committer slots in the worker's state (`flush.rs` says what a group of writes is and when it
//! is full): a write counted into its group, the group's flushes queued one target after the
//! other, the commit recorded, and a flush given up when its slot fails or the point ends.

use super::flush::Group;
use super::slots::State;
use super::tag::Tag;
use crate::engines::Live;

impl State<'_> {
    /// Slot `i`'s write just completed at `now`: counts it in its group (the slot's; an open-loop
    /// class's own), and when the group is full sends its first flush from slot `i` (true: the
    /// slot holds the flush and stays busy until the commit).
    #[inline]
    pub(crate) fn start_flush(&mut self, i: usize, now: u64, eng: &mut impl Live) -> bool {
        let slot = &mut self.slots[i];
        let class = &mut self.classes[slot.class];
        let Some(flush) = class.flush else {
            return false;
        };
        let paced = class.pacer.is_some();
        let g = if paced {
            &mut class.group
        } else {
            &mut slot.group
        };
        g.add(slot.submitted_ns, slot.scheduled_ns, slot.target);
        if g.writes < flush.every {
            return false;
        }
        if paced {
            slot.group = std::mem::replace(&mut class.group, Group::IDLE);
        }
        slot.group.flush_ns = now;
        // The stall check watches the flush from now on.
        slot.submitted_ns = now;
        self.flushes += 1;
        self.queue_flush(i, eng);
        true
    }

    /// Queues slot `i`'s flush of the lowest target its group wrote and has not flushed.
    #[inline]
    pub(crate) fn queue_flush(&mut self, i: usize, eng: &mut impl Live) {
        let slot = &mut self.slots[i];
        let target = slot.group.next_target();
        slot.target = target;
        let fsync = self.classes[slot.class].flush.is_some_and(|f| f.fsync);
        eng.flush(Tag::Io(i).user_data(), target, !fsync);
    }

    /// Slot `i`'s flush completed: true when every target of its group is flushed (the commit),
    /// false when the next target's flush was queued.
    #[inline]
    pub(crate) fn flush_done(&mut self, i: usize, eng: &mut impl Live) -> bool {
        if !self.slots[i].group.flushed() {
            self.queue_flush(i, eng);
            return false;
        }
        self.flushes -= 1;
        true
    }

    /// Slot `i`'s commit completed at `now`: records its latency and its last flush's (inside the
    /// measured window) and starts a new group.
    #[inline]
    pub(crate) fn commit(&mut self, i: usize, now: u64, measuring: bool) {
        self.verify_promise(i);
        let slot = &mut self.slots[i];
        let g = slot.group;
        slot.group = Group::IDLE;
        if measuring {
            let class = &mut self.classes[slot.class];
            // Closed loop: sent when submitted, so the service view is the same figure.
            let service = class.pacer.is_some().then(|| now.saturating_sub(g.from_ns));
            class.recorder.record_commit(
                now.saturating_sub(g.sent_ns),
                service,
                now.saturating_sub(g.flush_ns),
            );
        }
    }

    /// Slot `i`'s flush failed or was abandoned: the slot holds no flush any more.
    pub(crate) fn flush_abandoned(&mut self, i: usize) {
        self.verify_forget(i);
        if self.slots[i].group.flushing() {
            self.slots[i].group = Group::IDLE;
            self.flushes = self.flushes.saturating_sub(1);
        }
    }
}
