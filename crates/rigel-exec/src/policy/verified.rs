//! Where the worker's loop meets `verify` (`verify::worker`): a completed I/O's blocks checked (a read) or committed
//! (a write) before its slot is reused, a failed or cancelled write's blocks given up, and a
//! flushed group's writes promised durable.

use crate::policy::slots::State;

impl State<'_> {
    /// Slot `i`'s I/O completed whole: its blocks are checked or committed. Whether the slot's
    /// class verifies (its next I/O's clock then starts after this work).
    #[inline]
    pub(crate) fn verify_complete(&mut self, i: usize) -> bool {
        let Some(v) = self.verify.as_mut() else {
            return false;
        };
        let slot = &self.slots[i];
        if !v.tracks(slot.class, slot.write || slot.trim) {
            return false;
        }
        let at = (slot.target as usize, slot.offset);
        if slot.trim {
            v.trimmed(slot.len, at);
            return true;
        }
        // The slot's I/O completed (its completion was reaped and its range returned), and its
        // next I/O is queued only after this slice's last use.
        let data = self.bufs.buf(i, slot.len as usize);
        v.complete(data, slot.buf, slot.class, at, slot.write);
        if slot.write && self.classes[slot.class].flush.is_some() {
            v.join_group(i, slot.buf, slot.len, at);
        }
        true
    }

    /// Slot `i`'s group of writes is flushed: their generations are promised durable.
    pub(crate) fn verify_promise(&mut self, i: usize) {
        if let Some(v) = self.verify.as_mut() {
            v.promise_group(i);
        }
    }

    /// Slot `i`'s flush failed or was abandoned: its group's writes promise nothing.
    pub(crate) fn verify_forget(&mut self, i: usize) {
        if let Some(v) = self.verify.as_mut() {
            v.forget_group(i);
        }
    }

    /// Slot `i`'s I/O failed or was cancelled: a write's or trim's blocks hold either version
    /// or neither, so they are checked against nothing until written again.
    pub(crate) fn verify_abandon(&mut self, i: usize) {
        let slot = &self.slots[i];
        let changes = slot.write || slot.trim;
        if let Some(v) = self.verify.as_mut()
            && v.tracks(slot.class, changes)
        {
            v.abandon(slot.len, (slot.target as usize, slot.offset), changes);
        }
    }

    /// Slot `i`'s completion `res` reaped by the drain at a point's end.
    pub(crate) fn verify_drained(&mut self, i: usize, res: i32) {
        let Some(slot) = self.slots.get(i) else {
            return;
        };
        // A trim completes whole with 0 (the seam's contract).
        if (res > 0 && slot.done + res as u32 == slot.len) || (slot.trim && res == 0) {
            self.verify_complete(i);
        } else {
            self.verify_abandon(i);
        }
    }
}
