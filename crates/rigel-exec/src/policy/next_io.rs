//! A slot's next I/O: its size (a mix's draw), its offset (random, skewed or the next of its
//! stream, claimed by `verify`), its direction, its fresh write data, and its request queued in
//! the engine.

use super::mix::NO_SIZE;
use super::offsets::Stream;
use super::slots::{NO_BUCKET, NO_STREAM, Replayed, State};
use super::tag::Tag;
use crate::engines::{Live, Op, Rw};

/// Write buffers get a fresh random word every this many bytes before each write, so no two
/// writes carry the same blocks (defeats deduplication without refilling whole buffers).
pub(crate) const SCRAMBLE_STRIDE: usize = 512;

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
        slot.write = match class.read_percent {
            100 => false,
            0 => true,
            p => self.rng.u8(0..100) >= p,
        };
        let mut verify = self
            .verify
            .as_mut()
            .filter(|v| v.tracks(slot.class, slot.write));
        if let Some(v) = &mut verify {
            // A write's blocks are claimed (another offset drawn while one has a write in
            // flight); a read notes the generations it must find.
            let (rng, streams) = (&mut self.rng, &mut self.streams);
            let redrawn = std::cell::Cell::new(bucket);
            let redraw = || {
                let (at, bucket) = pick(rng, streams);
                redrawn.set(bucket);
                at
            };
            (target, offset) = v.claim(
                slot.buf,
                slot.len,
                &mut slot.write,
                (target, offset),
                redraw,
            );
            slot.bucket = redrawn.get();
        }
        slot.target = target as u32;
        slot.offset = offset;
        slot.done = 0;
        slot.submitted_ns = now_ns;
        slot.scheduled_ns = now_ns;
        class.in_flight += 1;
        if slot.write {
            // SAFETY: the slot's buffer is its own range of the arena (setup lays the slots out
            // one after another), and no I/O uses it now: its previous one completed, the next
            // is queued below, after the slice's last use.
            let buf = unsafe { self.arena.slot_mut(slot.buf, slot.len as usize) };
            if let Some(v) = verify {
                v.stamp(buf, slot.buf, slot.class, (target, offset));
            } else if let Some(d) = &class.data {
                d.fill(buf, &mut self.rng);
            } else {
                for chunk in buf.chunks_mut(SCRAMBLE_STRIDE) {
                    if let Some(word) = chunk.first_chunk_mut::<8>() {
                        *word = self.rng.u64(..).to_ne_bytes();
                    }
                }
            }
        }
        self.queue(i, eng);
    }

    /// Queues slot `i`'s current I/O (what remains of it after a short transfer).
    #[inline]
    pub(crate) fn queue(&self, i: usize, eng: &mut impl Live) {
        let slot = &self.slots[i];
        let len = slot.len - slot.done;
        // RWF_DSYNC: the write completes once durable (FUA, or a flush after it).
        let dsync = self.classes[slot.class].dsync || slot.replayed == Replayed::DsyncWrite;
        let rw = Rw {
            target: slot.target,
            offset: slot.offset + slot.done as u64,
            buf: self
                .arena
                .range(slot.buf + slot.done as usize, len as usize),
            len,
            buf_index: slot.buf_index,
            write: slot.write,
            dsync,
        };
        // SAFETY: the buffer is this slot's range of the arena (`Arena::range` checked it), alive
        // until the I/O completes (the worker drains every I/O before the arena is freed, or
        // leaks it) and untouched meanwhile (the slot's next write data is written only after
        // this I/O's completion); registered buffer `buf_index` holds the slot's whole range.
        unsafe { eng.push(Tag::Io(i).user_data(), Op::Rw(rw)) };
    }
}
