//! A slot's next I/O: its size (a mix's draw), its offset (random, skewed or the next of its
//! stream, claimed by `verify`), its direction (read, write or trim), its fresh write data, and
//! its request queued in the engine.

use super::mix::NO_SIZE;
use super::offsets::Stream;
use super::slots::{NO_BUCKET, NO_STREAM, Replayed, State};
use crate::engines::Live;
use crate::engines::seam::Trim;
use crate::engines::slot_bufs::SlotRw;

impl State<'_> {
    /// Chooses slot `i`'s next I/O (offset, direction, fresh write data) and queues it.
    #[inline]
    pub(crate) fn next_io(&mut self, i: usize, now_ns: u64, eng: &mut impl Live) {
        let slot = &mut self.slots[i];
        let class = &mut self.classes[slot.class];
        let (space, stream, skew, mix) = (class.space, slot.stream, class.skew, class.mix);
        // A size mix's I/O: its size first, then an offset aligned to it (a stream's: the next
        // bytes of the stream, as many as the size drawn).
        let size = match mix {
            Some(m) => {
                let k = m.draw(&mut self.rng);
                slot.len = m.len(k);
                k
            }
            _ => NO_SIZE,
        };
        slot.size_index = size;
        // The offset (and, for a skewed class, its rank's bucket, counted at completion).
        let pick = |rng: &mut fastrand::Rng, streams: &mut [Stream]| {
            if stream != NO_STREAM {
                let s = &mut streams[stream as usize];
                let at = match mix {
                    Some(m) => s.advance_by(space, m.slots(size)),
                    None => s.advance(space),
                };
                (at, NO_BUCKET)
            } else if let Some(m) = mix {
                match skew {
                    Some(skew) => {
                        let (j, bucket) = skew.next(rng);
                        (m.at(size, j), bucket)
                    }
                    None => (m.random(size, rng), NO_BUCKET),
                }
            } else if let Some(skew) = skew {
                let (j, bucket) = skew.next(rng);
                (space.locate(j), bucket)
            } else {
                (space.random(rng), NO_BUCKET)
            }
        };
        let ((mut target, mut offset), bucket) = pick(&mut self.rng, &mut self.streams);
        slot.bucket = bucket;
        (slot.write, slot.trim) = match (class.read_percent, class.trim_percent) {
            (100, _) => (false, false),
            (0, 0) => (true, false),
            (p, 0) => (self.rng.u8(0..100) >= p, false),
            (r, t) => {
                // One draw: reads below `r`, trims in the next `t`, writes above.
                let d = self.rng.u8(0..100);
                (d >= r.saturating_add(t), d >= r && d < r.saturating_add(t))
            }
        };
        // A zoned write goes to its slot's zone's write pointer; a reset made first is kept off
        // its latency.
        let mut reset_ns = 0;
        if slot.write
            && let Some(Some(zone)) = self.zones.get_mut(i)
        {
            let (t, at, spent) = zone.next(slot.len);
            (target, offset, reset_ns) = (t as usize, at, spent);
        }
        let mut verify = self
            .verify
            .as_mut()
            .filter(|v| v.tracks(slot.class, slot.write || slot.trim));
        if let Some(v) = &mut verify {
            // A write's or trim's blocks are claimed (another offset drawn while one has a write
            // in flight); a read notes the generations it must find.
            let (rng, streams) = (&mut self.rng, &mut self.streams);
            let redrawn = std::cell::Cell::new(bucket);
            let redraw = || {
                let (at, bucket) = pick(rng, streams);
                redrawn.set(bucket);
                at
            };
            // A trim claims its blocks as a write does; either one with no free blocks becomes a
            // read.
            let mut changes = slot.write || slot.trim;
            (target, offset) = v.claim(slot.buf, slot.len, &mut changes, (target, offset), redraw);
            slot.write &= changes;
            slot.trim &= changes;
            slot.bucket = redrawn.get();
        }
        slot.target = target as u32;
        slot.offset = offset;
        slot.done = 0;
        slot.submitted_ns = now_ns + reset_ns;
        slot.scheduled_ns = now_ns + reset_ns;
        class.in_flight += 1;
        if slot.write {
            // No I/O uses the slot's range now: its previous one completed, the next is queued
            // below, after the slice's last use (`SlotBufs` checks it).
            let buf = self.bufs.buf(i, slot.len as usize);
            if let Some(v) = verify {
                v.stamp(buf, slot.buf, slot.class, (target, offset));
            } else if let Some(d) = &class.data {
                d.fill(buf, &mut self.rng);
            } else {
                super::data::fresh(buf, &mut self.rng);
            }
        }
        self.queue(i, eng);
    }

    /// Queues slot `i`'s current I/O (what remains of it after a short transfer).
    #[inline]
    pub(crate) fn queue(&mut self, i: usize, eng: &mut impl Live) {
        let slot = &self.slots[i];
        if slot.trim {
            // A discard of the I/O's size at its offset: no buffer, completed whole (result 0).
            let trim = Trim {
                target: slot.target,
                offset: slot.offset,
                len: u64::from(slot.len),
            };
            self.bufs.push_trim(eng, i, trim);
            return;
        }
        let len = slot.len - slot.done;
        // RWF_DSYNC: the write completes once durable (FUA, or a flush after it).
        let dsync = self.classes[slot.class].dsync || slot.replayed == Replayed::DsyncWrite;
        let rw = SlotRw {
            target: slot.target,
            offset: slot.offset + slot.done as u64,
            done: slot.done,
            len,
            buf_index: slot.buf_index,
            write: slot.write,
            dsync,
        };
        // Lent to the engine until the completion comes back (`SlotBufs::returned`), which the
        // loop reads as `Tag::Io(i)`.
        self.bufs.push_rw(eng, i, rw);
    }
}
