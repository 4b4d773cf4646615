//! A worker's slot buffers with their loans to the engine: the safe face of the arena for the
//! policy. A slot's range is lent when its read or write is pushed (`push_rw`) and returned when
//! that request's completion is handed back (`returned`); the policy may touch a range only while
//! it is not lent (`buf`, checked on every call), and the arena goes back to the run's pool only
//! when nothing is lent (`into_arena`; otherwise it is leaked, as the kernel may still use it).
//! So the buffer half of the seam's contract (never touch a range in flight, never free the
//! arena under the kernel) is kept here, not by the policy's discipline: the policy has no
//! `unsafe`.
//!
//! A completion returns a loan only when it is the loan's own: `push_rw` tags the request
//! `SLOT_RW | slot` (no other request can carry that tag: `Live::flush` and `Live::timer` refuse
//! it) and only the engines make completions.

use super::arena::Arena;
use super::seam::{Completion, Live, Op, Rw, SLOT_RW, Trim, is_slot_rw};

/// The arena, each slot's range in it (offset, capacity), and which ranges are lent.
pub(crate) struct SlotBufs {
    arena: Arena,
    ranges: Vec<(usize, u32)>,
    lent: Vec<bool>,
}

/// A slot's read or write as the policy asks for it: the rest of the slot's current I/O from
/// byte `done` of its range (a short transfer's remainder), `len` bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SlotRw {
    pub target: u32,
    /// Byte offset in the target of the range's byte `done`.
    pub offset: u64,
    pub done: u32,
    pub len: u32,
    pub buf_index: u16,
    pub write: bool,
    pub dsync: bool,
}

impl SlotBufs {
    /// The slots' `ranges` (offset, capacity) in `arena`, none lent; a range outside the arena
    /// panics here, before any I/O.
    pub(crate) fn new(arena: Arena, ranges: Vec<(usize, u32)>) -> SlotBufs {
        for &(offset, cap) in &ranges {
            // Checks the range (panics outside the arena).
            let _ = arena.range(offset, cap as usize);
        }
        let lent = vec![false; ranges.len()];
        SlotBufs {
            arena,
            ranges,
            lent,
        }
    }

    /// The arena (for an engine to register).
    pub(crate) fn arena(&self) -> &Arena {
        &self.arena
    }

    /// The first `len` bytes of slot `i`'s range, to fill a write or read what a read brought.
    /// Panics when the range is lent (a request on it is in flight) or shorter than `len`.
    #[inline]
    pub(crate) fn buf(&mut self, i: usize, len: usize) -> &mut [u8] {
        assert!(!self.lent[i], "slot {i}'s buffer is in flight");
        let (offset, cap) = self.ranges[i];
        assert!(len <= cap as usize, "{len} bytes asked of slot {i}'s {cap}");
        // SAFETY: the range lies inside the arena (checked at `new`), no request uses it (not
        // lent: its last one's completion was returned), and the slice borrows `self`
        // exclusively, so no other slice or loan is taken from it while the slice lives.
        unsafe { self.arena.slot_mut(offset, len) }
    }

    /// Lends slot `i`'s range to `eng` for `rw` and queues it, tagged `SLOT_RW | i`. Panics when
    /// the range is already lent or `rw` reaches past it.
    #[inline]
    pub(crate) fn push_rw(&mut self, eng: &mut impl Live, i: usize, rw: SlotRw) {
        assert!(!self.lent[i], "slot {i}'s buffer is already in flight");
        let (offset, cap) = self.ranges[i];
        assert!(
            u64::from(rw.done) + u64::from(rw.len) <= u64::from(cap),
            "slot {i}: {}+{} bytes of {cap}",
            rw.done,
            rw.len
        );
        self.lent[i] = true;
        let buf = self.arena.range(offset + rw.done as usize, rw.len as usize);
        let op = Op::Rw(Rw {
            target: rw.target,
            offset: rw.offset,
            buf,
            len: rw.len,
            buf_index: rw.buf_index,
            write: rw.write,
            dsync: rw.dsync,
        });
        // SAFETY: the range is inside the arena (checked at `new`, and the request inside the
        // range above), lent until this request's completion is returned, so `buf` never hands
        // it out meanwhile, and the arena is not freed while it is lent (`into_arena`); the
        // registered buffer `buf_index` (the engine's, from `Opened::buf_index`) holds the
        // slot's whole range.
        unsafe { eng.push(SLOT_RW | i as u64, op) };
    }

    /// Queues slot `i`'s trim, tagged `SLOT_RW | i` like its reads and writes (its completion
    /// is the slot's) but lending nothing: a trim carries no buffer. Panics when the slot's
    /// range is lent (the slot already has a request in flight).
    #[inline]
    pub(crate) fn push_trim(&mut self, eng: &mut impl Live, i: usize, trim: Trim) {
        assert!(!self.lent[i], "slot {i} trims with its buffer in flight");
        eng.trim(SLOT_RW | i as u64, trim);
    }

    /// A completion reaped from the engine, its loan (if it is a slot's read or write) returned:
    /// the completion with the slot's plain index as its tag.
    #[inline]
    pub(crate) fn returned(&mut self, c: Completion) -> Completion {
        if !is_slot_rw(c.tag) {
            return c;
        }
        let i = (c.tag & !SLOT_RW) as usize;
        if let Some(lent) = self.lent.get_mut(i) {
            *lent = false;
        }
        Completion {
            tag: i as u64,
            result: c.result,
        }
    }

    /// Whether some range is lent (a request on it not returned).
    pub(crate) fn any_lent(&self) -> bool {
        self.lent.iter().any(|&l| l)
    }

    /// The arena back, when nothing is lent; else `None` and the arena is leaked (the kernel may
    /// still read or write it).
    pub(crate) fn into_arena(self) -> Option<Arena> {
        if self.any_lent() {
            std::mem::forget(self.arena);
            return None;
        }
        Some(self.arena)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::clock::Elapsed;
    use crate::failure::Failure;

    /// An engine that keeps what is pushed and completes it when the test says.
    #[derive(Default)]
    struct Held {
        pushed: Vec<u64>,
        done: Vec<Completion>,
    }

    impl Live for Held {
        unsafe fn push(&mut self, tag: u64, _op: Op<'_>) {
            self.pushed.push(tag);
        }
        fn submit(&mut self) {}
        fn enter(&mut self, _: &Elapsed, _: u64, _: usize, _: Option<u64>) -> Result<(), Failure> {
            Ok(())
        }
        fn ready(&mut self) -> usize {
            self.done.len()
        }
        fn next(&mut self) -> Option<Completion> {
            self.done.pop()
        }
        fn consumed(&mut self) {}
        fn cancel(&mut self, _tag: u64) {}
    }

    impl Held {
        /// Completes the request pushed `at`-th among those still out, with `result`.
        fn complete(&mut self, at: usize, result: i32) {
            let tag = self.pushed.remove(at);
            self.done.push(Completion { tag, result });
        }
    }

    fn bufs() -> SlotBufs {
        let arena = Arena::new(2 * 4096, rigel_plan::Buffers::Pages).expect("arena");
        SlotBufs::new(arena, vec![(0, 4096), (4096, 4096)])
    }

    fn read(len: u32) -> SlotRw {
        SlotRw {
            target: 0,
            offset: 0,
            done: 0,
            len,
            buf_index: 0,
            write: false,
            dsync: false,
        }
    }

    #[test]
    #[serial_test::parallel]
    fn a_lent_buffer_comes_back_only_with_its_own_completion() {
        let (mut b, mut eng) = (bufs(), Held::default());
        b.buf(0, 4096).fill(7);
        b.push_rw(&mut eng, 0, read(4096));
        assert_eq!(eng.pushed, vec![SLOT_RW]);
        // Slot 1 is free meanwhile; slot 0 is not.
        b.buf(1, 4096);
        let lent = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            b.buf(0, 1);
        }));
        assert!(lent.is_err(), "a lent buffer was handed out");
        // A completion of another tag (slot 0's flush, the tick) returns nothing.
        eng.flush(0, 0, true);
        eng.complete(1, 0);
        let c = b.returned(eng.next().expect("done"));
        assert_eq!(c.tag(), 0);
        assert!(b.any_lent());
        // Its own completion returns it, tagged with the slot's plain index.
        eng.complete(0, 4096);
        let c = b.returned(eng.next().expect("done"));
        assert_eq!((c.tag(), c.result()), (0, 4096));
        assert!(!b.any_lent());
        assert_eq!(b.buf(0, 4)[..], [7; 4]);
        assert!(b.into_arena().is_some());
    }

    #[test]
    #[serial_test::parallel]
    fn nothing_else_may_carry_a_slot_reads_tag_and_a_lent_arena_is_kept() {
        let (mut b, mut eng) = (bufs(), Held::default());
        let forged = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            Held::default().flush(SLOT_RW, 0, true);
        }));
        assert!(forged.is_err(), "a flush took a slot read's tag");
        let past = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            bufs().push_rw(&mut Held::default(), 1, read(8192));
        }));
        assert!(past.is_err(), "a read past its slot's range was pushed");
        b.push_rw(&mut eng, 1, read(4096));
        // Still lent: the arena is leaked, never handed back.
        assert!(b.into_arena().is_none());
    }
}
