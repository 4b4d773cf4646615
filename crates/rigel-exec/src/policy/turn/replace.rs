//! A freed slot's next step in a turn: its I/O recorded, then a flush, a think time, a burst's
//! pause, a park until its send time (open loop) or its next I/O at once (closed loop).

use super::open_loop::Paced;
use super::{Batch, Turns};
use crate::engines::Live;
use crate::policy::burst::AfterIo;
use crate::policy::mix::NO_SIZE;
use crate::policy::slots::NO_BUCKET;

impl<L: Live> Turns<'_, '_, '_, L> {
    /// Slot `i`'s group of writes was flushed: records the commit and gives the slot its next I/O.
    #[cold]
    pub(super) fn committed(&mut self, i: usize, batch: &Batch, more: bool) {
        self.st.commit(i, batch.now, batch.measuring);
        if self.st.think(i, batch.now, &mut self.eng) {
            return;
        }
        if self.st.classes[self.st.slots[i].class].pacer.is_some() {
            // An open-loop slot waits for a send time, as after any I/O.
            self.st.park(i);
            self.in_flight -= 1;
            return;
        }
        self.next(i, batch, false);
        if batch.each && more {
            self.eng.submit();
        }
    }

    /// Slot `i`'s I/O finished: records it and gives the slot its next I/O (a closed-loop slot;
    /// an open-loop one parks until its next send time). `more`: completions of the batch remain.
    #[inline(always)]
    pub(super) fn replace(&mut self, i: usize, batch: &Batch, more: bool) {
        let (now, st) = (batch.now, &mut *self.st);
        let verified = st.verify_complete(i);
        if self.paced {
            let eng = &mut self.eng;
            match st.complete_paced(i, now, batch.measuring, batch.tick, self.window.from, eng) {
                Paced::No => {}
                // The slot's flush stays in flight in its place.
                Paced::Flushing => return,
                Paced::Parked => {
                    self.in_flight -= 1;
                    return;
                }
            }
        }
        let slot = &st.slots[i];
        let (len, write, latency) = (slot.len as u64, slot.write, now - slot.submitted_ns);
        let (trim, target, offset) = (slot.trim, slot.target, slot.offset);
        let (bucket, size_index) = (slot.bucket, slot.size_index);
        // A committer's N-th write is followed by its flush, not by its next I/O.
        // (The think time of a committer follows its commit, `committed`.)
        let busy =
            (write && st.start_flush(i, now, &mut self.eng)) || st.think(i, now, &mut self.eng);
        if !busy {
            self.next(i, batch, verified);
        }
        if batch.each && more {
            // The last replacement goes with the next wait.
            self.eng.submit();
        }
        let st = &mut *self.st;
        let class = &mut st.classes[st.slots[i].class];
        class.ios_delta += 1;
        class.bytes_delta += len;
        // First touch: one hash and a branch; about one I/O in 1,024 goes further.
        if !trim
            && let Some(first) = st.touched.touch(target, offset, len)
            && batch.measuring
            && !write
        {
            class.recorder.record_touch(first, latency);
        }
        if batch.measuring && trim {
            class.recorder.record_trim(latency, len);
        } else if batch.measuring {
            class.recorder.record(write, latency, len, batch.tick);
            if bucket != NO_BUCKET {
                class.recorder.count_rank(bucket);
            }
            if size_index != NO_SIZE {
                class
                    .recorder
                    .record_size(size_index, write, latency, None, len);
            }
        }
    }

    /// Gives slot `i` its next I/O, if the budget allows (else retires it). `verified`: its last
    /// I/O was checked or stamped, which is the worker's time, not the storage's.
    #[inline(always)]
    pub(super) fn next(&mut self, i: usize, batch: &Batch, verified: bool) {
        let (now, st) = (batch.now, &mut *self.st);
        if st.classes[st.slots[i].class].burst.is_some() {
            match st.burst_next(i, now, batch.measuring, self.window.from, &mut self.eng) {
                AfterIo::Issue => {}
                AfterIo::Park => {
                    self.in_flight -= 1;
                    return;
                }
                AfterIo::Idle => return,
            }
        }
        if st.take_budget(i) {
            // The replacement's clock starts at the batch's reading, the moment it could have
            // been submitted, even when the batch's earlier replacements delay its submission
            // (a system call each, one by one: up to 0.4 ms at QD 32). Started when chosen
            // instead, that wait was counted nowhere: IOPS × mean latency fell to 0.85 of the
            // depth at QD 16-64 (issue 28). The in-flight count (`window.rs`) counts it from the
            // same reading, so the depth held and the latencies obey Little's law exactly.
            st.next_io(i, now, &mut self.eng);
            if verified {
                // Checking the last I/O and stamping this one is the worker's time, not the
                // storage's: the I/O's clock starts after it, and it is not counted in flight
                // (so the depth held still equals IOPS × mean latency).
                let t = self.clock.ns();
                let slot = &mut st.slots[i];
                (slot.submitted_ns, slot.scheduled_ns) = (t, t);
                if batch.measuring {
                    let c = &mut st.classes[slot.class];
                    c.area = c.area.saturating_sub(u128::from(t.saturating_sub(now)));
                }
            }
        } else {
            self.in_flight -= 1;
        }
    }
}
