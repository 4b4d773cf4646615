//! `rigel replay`'s I/Os: a replayed class's slot takes the request of the send time it was given
//! (`pacing::Schedule::replay`) instead of drawing one: its offset, size and direction, a FUA write
//! as RWF_DSYNC, a flush as an fdatasync (`engines::Op::Flush`, data only), a discard as a trim
//! (`engines::Op::Trim`). The pacing, the
//! latencies (response from the send time, service from the submission) and the lag are the open
//! loop's, unchanged.

use super::mix::NO_SIZE;
use super::slots::{NO_BUCKET, Replayed, State};
use super::tag::Tag;
use crate::engines::Live;
use rigel_plan::replay::{ReplayOp, Request};

impl State<'_> {
    /// Queues `req` on slot `i`, sent at `now` (its send time is the caller's to stamp).
    #[inline]
    pub(crate) fn replay_io(&mut self, i: usize, now: u64, req: Request, eng: &mut impl Live) {
        let slot = &mut self.slots[i];
        let class = &mut self.classes[slot.class];
        slot.bucket = NO_BUCKET;
        slot.size_index = NO_SIZE;
        slot.target = 0;
        slot.done = 0;
        slot.submitted_ns = now;
        slot.scheduled_ns = now;
        class.in_flight += 1;
        if req.op == ReplayOp::Flush {
            slot.replayed = Replayed::Flush;
            slot.write = false;
            slot.trim = false;
            slot.offset = 0;
            slot.len = 0;
            self.queue_replayed_flush(i, eng);
            return;
        }
        slot.replayed = match req.op {
            ReplayOp::DsyncWrite => Replayed::DsyncWrite,
            _ => Replayed::Data,
        };
        slot.write = matches!(req.op, ReplayOp::Write | ReplayOp::DsyncWrite);
        slot.trim = req.op == ReplayOp::Trim;
        slot.offset = req.offset;
        // Never above the slot's buffer (the class's size is the trace's largest request).
        slot.len = req.len;
        if slot.write {
            // The slot's range holds `len` bytes (the class's size is the largest request), and
            // no I/O uses it now: the slot was free.
            let buf = self.bufs.buf(i, slot.len as usize);
            // Fresh data in every unit: no two writes carry the same blocks (`data::fresh`).
            super::data::fresh(buf, &mut self.rng);
        }
        self.queue(i, eng);
    }

    /// Queues slot `i`'s replayed flush (again after EINTR/EAGAIN).
    #[inline]
    pub(crate) fn queue_replayed_flush(&self, i: usize, eng: &mut impl Live) {
        eng.flush(Tag::Io(i).user_data(), 0, true);
    }

    /// Whether slot `i` holds a replayed flush.
    #[inline]
    pub(crate) fn replayed_flush(&self, i: usize) -> bool {
        self.slots[i].replayed == Replayed::Flush
    }
}
