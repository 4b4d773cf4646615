//! A turn's completion taken: a finished I/O frees its slot, the rest of a short or interrupted
//! one is queued again, a flush moves its group on, and the first error fails the point.

use super::{Reaped, Turns};
use crate::engines::Live;
use crate::failure::transient;
use crate::policy::failed::failure;

impl<L: Live> Turns<'_, '_, '_, L> {
    /// Takes slot `i`'s completion `res`: a finished I/O frees the slot; the rest of a short or
    /// interrupted one is queued again; an error (the first one fails the point) retires the slot.
    #[inline(always)]
    pub(super) fn take(&mut self, i: usize, res: i32, now: u64, failed: &mut bool) -> Reaped {
        let st = &mut *self.st;
        if st.slots[i].group.flushing() {
            return self.take_flush(i, res, now, failed);
        }
        if st.replayed_flush(i) {
            return self.take_replayed_flush(i, res, now, failed);
        }
        if res < 0 && transient(-res) && !*failed {
            st.queue(i, &mut self.eng);
            self.requeued += 1;
            return Reaped::Requeued;
        }
        // A trim completes whole with 0 (the seam's contract): its length, as if transferred.
        let res = if res == 0 && st.slots[i].trim {
            (st.slots[i].len - st.slots[i].done) as i32
        } else {
            res
        };
        if res <= 0 || *failed {
            st.verify_abandon(i);
            st.classes[st.slots[i].class].in_flight -= 1;
            if !*failed {
                *failed = true;
                self.failure = Some(failure(&st.slots[i], res, now));
            }
            return Reaped::Retired;
        }
        let slot = &mut st.slots[i];
        slot.done += res as u32;
        if slot.done < slot.len {
            st.queue(i, &mut self.eng);
            self.requeued += 1;
            return Reaped::Requeued;
        }
        st.classes[slot.class].in_flight -= 1;
        Reaped::Done
    }

    /// Takes slot `i`'s flush completion `res` (0 on success): the next target's flush is queued,
    /// or the group is committed; a failed flush fails the point.
    #[cold]
    fn take_flush(&mut self, i: usize, res: i32, now: u64, failed: &mut bool) -> Reaped {
        let st = &mut *self.st;
        if res < 0 && transient(-res) && !*failed {
            st.queue_flush(i, &mut self.eng);
            self.requeued += 1;
            return Reaped::Requeued;
        }
        if res < 0 || *failed {
            if !*failed {
                *failed = true;
                let mut f = failure(&st.slots[i], res, now);
                f.offset = 0;
                f.message = format!("flush (fdatasync) failed: {}", f.message);
                self.failure = Some(f);
            }
            st.flush_abandoned(i);
            return Reaped::Retired;
        }
        if st.flush_done(i, &mut self.eng) {
            Reaped::Committed
        } else {
            Reaped::Requeued
        }
    }

    /// Takes slot `i`'s replayed flush's completion `res` (0 on success); a failed flush fails
    /// the point.
    #[cold]
    fn take_replayed_flush(&mut self, i: usize, res: i32, now: u64, failed: &mut bool) -> Reaped {
        let st = &mut *self.st;
        if res < 0 && transient(-res) && !*failed {
            st.queue_replayed_flush(i, &mut self.eng);
            self.requeued += 1;
            return Reaped::Requeued;
        }
        st.classes[st.slots[i].class].in_flight -= 1;
        if res < 0 || *failed {
            if !*failed {
                *failed = true;
                let mut f = failure(&st.slots[i], res, now);
                f.message = format!("flush (fdatasync) failed: {}", f.message);
                self.failure = Some(f);
            }
            return Reaped::Retired;
        }
        Reaped::Done
    }
}
