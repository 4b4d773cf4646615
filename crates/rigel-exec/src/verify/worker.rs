//! A worker's part of `verify`: claiming a write's blocks in the generation map (never two writes
//! in flight to one block), stamping them, committing their generation when the write completes,
//! and checking every block a read brings back against the generation acknowledged before it.
//! Runs in the worker after a completion and before the slot's next I/O, off the latency clock
//! (`policy::turn` starts the next I/O's clock after it).

use super::block::{Expect, Finding, Stamp, check_entry, next_generation};
use super::map::{BUSY, GENERATION, GenMap, TRIMMED};
use rigel_results::{CorruptionCounts, FIRST_CORRUPTIONS};
use std::sync::atomic::Ordering;
use std::time::SystemTime;

/// How many other offsets a write tries when its blocks have a write in flight, before it is
/// issued as an unchecked read instead (a tiny volume at a high queue depth).
const REDRAWS: u32 = 64;

/// What a point's worker is told about verification.
pub struct VerifySetup<'a> {
    pub map: &'a GenMap,
    /// Per point class: whether it stamps and checks.
    pub classes: Vec<bool>,
    pub point: u32,
}

/// A corrupted block as the worker finds it (named by `point`).
pub struct Found {
    pub target: u32,
    pub target_offset: u64,
    pub volume_offset: u64,
    /// The point class whose read found it.
    pub class: usize,
    pub expected: u16,
    pub finding: Finding,
}

/// What one worker (or the re-read at the point's end) checked and found.
#[derive(Default)]
pub struct Tally {
    pub written: u64,
    pub checked: u64,
    pub unchecked: u64,
    pub counts: CorruptionCounts,
    pub first: Vec<Found>,
}

impl Tally {
    pub fn record(&mut self, f: Found) {
        self.counts.add(f.finding.kind, 1);
        if self.first.len() < FIRST_CORRUPTIONS {
            self.first.push(f);
        }
    }
}

pub(crate) struct WorkerVerify<'a> {
    map: &'a GenMap,
    /// Per worker class: whether its reads are checked, and its point class.
    on: Vec<bool>,
    point_class: Vec<usize>,
    point: u32,
    unit: usize,
    /// Per `unit` of the arena: a read's entry at its issue, a write's new generation.
    snap: Vec<u16>,
    /// Per `unit` of the arena: it holds the format's pattern from this worker's last stamp
    /// (no read since), so the next stamp rewrites only the header and tags. Kept for the
    /// verified classes alone: every read of theirs is claimed (and clears it), where another
    /// class's reads land in its buffers unseen.
    patterned: Vec<bool>,
    /// Per slot of a class with grouped flushes (`durability = "fdatasync:N"`), when the map
    /// keeps promises: the blocks (target, offset, generation) its group wrote so far.
    groups: Vec<Vec<(u32, u64, u16)>>,
    pub(crate) tally: Tally,
}

impl<'a> WorkerVerify<'a> {
    /// `classes`: each worker class's point class; `arena_bytes`: the arena's size.
    pub(crate) fn new(
        setup: &VerifySetup<'a>,
        classes: &[usize],
        arena_bytes: usize,
    ) -> WorkerVerify<'a> {
        let unit = setup.map.unit() as usize;
        WorkerVerify {
            map: setup.map,
            on: classes
                .iter()
                .map(|&c| setup.classes.get(c).copied().unwrap_or(false))
                .collect(),
            point_class: classes.to_vec(),
            point: setup.point,
            unit,
            snap: vec![0; arena_bytes.div_ceil(unit)],
            patterned: vec![false; arena_bytes.div_ceil(unit)],
            groups: Vec::new(),
            tally: Tally::default(),
        }
    }

    /// Whether an I/O of worker class `c` goes through the map: every write or trim (`changes`),
    /// whatever its class (a write that is not stamped would read back as garbage in a verified
    /// class's block, a trim unrecorded as zeros), and the reads of the classes that verify.
    #[inline]
    pub(crate) fn tracks(&self, c: usize, changes: bool) -> bool {
        changes || self.on[c]
    }

    /// Claims the blocks of an I/O of `len` bytes at `at` (target, offset) for the slot whose
    /// buffer starts at `buf`: a read notes each block's entry; a write or a trim (`write`) marks
    /// each busy and notes its next generation, drawing another offset (`redraw`) while some
    /// block already has a write or trim in flight, and becomes a read (checked against nothing)
    /// when none is free.
    #[inline]
    pub(crate) fn claim(
        &mut self,
        buf: usize,
        len: u32,
        write: &mut bool,
        mut at: (usize, u64),
        mut redraw: impl FnMut() -> (usize, u64),
    ) -> (usize, u64) {
        let (first, n) = (buf / self.unit, len as usize / self.unit);
        if *write {
            for _ in 0..REDRAWS {
                if self.claim_write(first, n, at) {
                    return at;
                }
                at = redraw();
            }
            *write = false;
        }
        // The read lands in the buffer: its pattern is gone.
        self.patterned[first..first + n].fill(false);
        for k in 0..n {
            let e = self.map.entry(at.0, at.1 + (k * self.unit) as u64);
            self.snap[first + k] = e.load(Ordering::Acquire);
        }
        at
    }

    fn claim_write(&mut self, first: usize, n: usize, at: (usize, u64)) -> bool {
        for k in 0..n {
            let e = self.map.entry(at.0, at.1 + (k * self.unit) as u64);
            let cur = e.load(Ordering::Acquire);
            let free = cur & BUSY == 0
                && e.compare_exchange(cur, cur | BUSY, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok();
            if !free {
                for j in 0..k {
                    let e = self.map.entry(at.0, at.1 + (j * self.unit) as u64);
                    e.fetch_and(!BUSY, Ordering::AcqRel);
                }
                return false;
            }
            self.snap[first + k] = next_generation(cur & GENERATION);
        }
        true
    }

    /// Stamps each block of a claimed write into its buffer.
    #[inline]
    pub(crate) fn stamp(&mut self, data: &mut [u8], buf: usize, class: usize, at: (usize, u64)) {
        let first = buf / self.unit;
        let keeps = self.on[class];
        let time_ns = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        for (k, block) in data.chunks_exact_mut(self.unit).enumerate() {
            let target_offset = at.1 + (k * self.unit) as u64;
            let stamp = Stamp {
                run: self.map.run,
                point: self.point,
                class: self.point_class[class] as u16,
                target: at.0 as u32,
                target_offset,
                volume_offset: self.map.volume_offset(at.0, target_offset),
                generation: self.snap[first + k],
                time_ns,
            };
            let patterned = &mut self.patterned[first + k];
            if keeps && *patterned {
                self.map.format.restamp(block, &stamp);
            } else {
                self.map.format.stamp(block, &stamp);
                *patterned = keeps;
            }
        }
    }

    /// A trim of `len` bytes at `at` completed: each block keeps its generation, marked trimmed
    /// (a read then finds zeros or that generation), and is free for the next write.
    #[inline]
    pub(crate) fn trimmed(&mut self, len: u32, at: (usize, u64)) {
        for k in 0..len as usize / self.unit {
            let e = self.map.entry(at.0, at.1 + (k * self.unit) as u64);
            // The block is claimed (BUSY) by this trim alone: no other write or trim changes it.
            let kept = e.load(Ordering::Acquire) & GENERATION;
            e.store(kept | TRIMMED, Ordering::Release);
        }
    }

    /// A verified I/O completed whole: a write's generations become the acknowledged ones; a
    /// read's blocks are checked, each against the entry noted at its issue, unless a write or
    /// trim to it was in flight at any moment since; a block never written is checked only for
    /// a write of this run that landed on it (`Format::check_unwritten`).
    #[inline]
    pub(crate) fn complete(
        &mut self,
        data: &[u8],
        buf: usize,
        class: usize,
        at: (usize, u64),
        write: bool,
    ) {
        let first = buf / self.unit;
        for (k, block) in data.chunks_exact(self.unit).enumerate() {
            let target_offset = at.1 + (k * self.unit) as u64;
            let e = self.map.entry(at.0, target_offset);
            let noted = self.snap[first + k];
            if write {
                e.store(noted, Ordering::Release);
                self.tally.written += 1;
                continue;
            }
            if noted & BUSY != 0 || e.load(Ordering::Acquire) != noted {
                self.tally.unchecked += 1;
                continue;
            }
            let volume_offset = self.map.volume_offset(at.0, target_offset);
            let expect = Expect {
                run: self.map.run,
                target: at.0 as u32,
                target_offset,
                volume_offset,
                generation: noted & GENERATION,
            };
            let finding = if noted & GENERATION == 0 {
                // Never written in this run: what it held before is not judged, but a write of
                // this run that landed here is found.
                self.tally.unchecked += 1;
                self.map.format.check_unwritten(block, &expect)
            } else {
                self.tally.checked += 1;
                let trimmed = self.map.trimmed(at.0, noted);
                check_entry(&self.map.format, block, &expect, trimmed)
            };
            if let Some(finding) = finding {
                self.tally.record(Found {
                    target: at.0 as u32,
                    target_offset,
                    volume_offset,
                    class: self.point_class[class],
                    expected: noted & GENERATION,
                    finding,
                });
            }
        }
    }

    /// Slot `slot`'s write (just committed by `complete`) belongs to a group that a flush will
    /// make durable: its blocks and their generations are kept until then.
    pub(crate) fn join_group(&mut self, slot: usize, buf: usize, len: u32, at: (usize, u64)) {
        if !self.map.keeps_promises() {
            return;
        }
        if self.groups.len() <= slot {
            self.groups.resize_with(slot + 1, Vec::new);
        }
        let first = buf / self.unit;
        for k in 0..len as usize / self.unit {
            let offset = at.1 + (k * self.unit) as u64;
            self.groups[slot].push((at.0 as u32, offset, self.snap[first + k]));
        }
    }

    /// Slot `slot`'s group is committed (every flush it sent completed, each issued after the
    /// group's writes completed): its blocks' generations are promised durable.
    pub(crate) fn promise_group(&mut self, slot: usize) {
        if let Some(group) = self.groups.get_mut(slot) {
            for &(target, offset, generation) in group.iter() {
                self.map.promise(target as usize, offset, generation);
            }
            group.clear();
        }
    }

    /// Slot `slot`'s flush failed or was abandoned: its group promises nothing.
    pub(crate) fn forget_group(&mut self, slot: usize) {
        if let Some(group) = self.groups.get_mut(slot) {
            group.clear();
        }
    }

    /// A verified write or trim (`write`) failed or was cancelled: what its blocks hold is
    /// unknown, so they are checked against nothing until written again.
    pub(crate) fn abandon(&mut self, len: u32, at: (usize, u64), write: bool) {
        if write {
            for k in 0..len as usize / self.unit {
                let e = self.map.entry(at.0, at.1 + (k * self.unit) as u64);
                e.store(0, Ordering::Release);
            }
        }
    }
}
