//! `rigel verify DIR`: every block the journal names is read back and judged against it. An
//! entry holds the generation of the block's last acknowledged write, and a bit for a write
//! issued and not seen complete. So a block must hold that generation, or, with a write in
//! flight, the next one (or, for a first write, whatever was there before the run). A newer
//! generation of this run is accepted too: the journal's pages are written back every second, so
//! after a power cut of the journal's own disk an entry may lag the storage (never lead it: an
//! entry is set only after its write completed). No false positive can come from a crash.
//!
//! What is not there is split by promise: a lost, zeroed or garbled block whose write was
//! promised durable (every write carried RWF_DSYNC, or a grouped flush covered it: the block
//! then must hold its promised generation or a newer one), or any misdirected or torn block that
//! had no write in flight, breaks one; an acknowledged write lost that was never promised durable
//! (no `durability`, or written after its class's last completed flush) does not: a power loss or
//! a device reset may drop it from a volatile cache.

use super::after::{ALIGN, CHUNK, read_exact_at};
use super::block::{Expect, Finding, check_entry, next_generation, older};
use super::map::{BUSY, GENERATION, GenMap};
use super::worker::{Found, Tally};
use crate::ExecTarget;
use rigel_results::CorruptionKind;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

/// `Found::class` of a block `rigel verify` found.
pub const VERIFY: usize = usize::MAX - 1;

/// What the check found, before the findings are named (`report::journal_check`).
#[derive(Default)]
pub struct Checked {
    pub journaled: u64,
    pub acknowledged: u64,
    pub in_flight_new: u64,
    pub in_flight_old: u64,
    pub newer: u64,
    /// Blocks with a promised generation (a grouped flush covered one of their writes).
    pub promised: u64,
    /// Findings that break a promise, and those that do not.
    pub broken: Tally,
    pub unpromised: Tally,
}

/// Reads back every block `map` (a journal's) names and judges it; `durable`: every write was
/// promised durable. Stops early (with what it checked) on `stop`.
pub fn check(
    targets: &[ExecTarget],
    map: &GenMap,
    durable: bool,
    stop: &AtomicBool,
) -> io::Result<Checked> {
    let unit = map.unit() as usize;
    let per_chunk = (CHUNK / unit).max(1);
    let mut raw = vec![0u8; per_chunk * unit + ALIGN];
    let skip = raw.as_ptr().align_offset(ALIGN);
    let buf = &mut raw[skip..skip + per_chunk * unit];
    let mut c = Checked::default();
    for (t, target) in targets.iter().enumerate() {
        let (first, blocks) = map.target_blocks(t);
        let mut b = 0u64;
        while b < blocks {
            if stop.load(Ordering::Relaxed) {
                return Ok(c);
            }
            let n = (blocks - b).min(per_chunk as u64) as usize;
            let noted: Vec<u16> = (0..n)
                .map(|k| map.at(first + b as usize + k).load(Ordering::Relaxed))
                .collect();
            if let (Some(lo), Some(hi)) = (
                noted.iter().position(|&e| e != 0),
                noted.iter().rposition(|&e| e != 0),
            ) {
                let offset = (b + lo as u64) * unit as u64;
                let span = &mut buf[..(hi + 1 - lo) * unit];
                read_exact_at(target, span, offset)?;
                for (k, block) in span.chunks_exact(unit).enumerate() {
                    let e = noted[lo + k];
                    if e != 0 {
                        let target_offset = offset + (k * unit) as u64;
                        let promised = map.promised_at(first + b as usize + lo + k);
                        c.promised += u64::from(promised != 0);
                        let entry = Entry { e, promised };
                        judge(&mut c, map, durable, block, (t, target_offset), entry);
                    }
                }
            }
            b += n as u64;
        }
    }
    Ok(c)
}

/// What the journal holds for one block: its entry, and its promised generation (0: none).
#[derive(Clone, Copy)]
struct Entry {
    e: u16,
    promised: u16,
}

/// Whether `finding` (a block lost, zeroed or garbled) breaks a promise: every write was durable,
/// or the block no longer holds its promised generation or a newer one of this offset.
fn lost_promised(
    finding: &Finding,
    durable: bool,
    promised: u16,
    at: (usize, u64),
    run: u64,
) -> bool {
    if durable {
        return true;
    }
    if promised == 0 {
        return false;
    }
    let kept = finding.found.as_ref().is_some_and(|h| {
        h.run == run
            && h.target == at.0 as u32
            && h.target_offset == at.1
            && !older(h.generation, promised)
    });
    !kept
}

/// One block against its entry.
fn judge(
    c: &mut Checked,
    map: &GenMap,
    durable: bool,
    block: &[u8],
    at: (usize, u64),
    entry: Entry,
) {
    let e = entry.e;
    c.journaled += 1;
    let (acked, in_flight, trimmed) = (e & GENERATION, e & BUSY != 0, map.trimmed(at.0, e));
    let volume_offset = map.volume_offset(at.0, at.1);
    let expect = Expect {
        run: map.run,
        target: at.0 as u32,
        target_offset: at.1,
        volume_offset,
        generation: acked,
    };
    // A trimmed block holds what its device promises after a trim (`check_entry`): zeros, or
    // zeros or its generation before the trim; a block with a write or a trim in flight (the
    // entry does not say which) may hold zeros too.
    let zeros = block.iter().all(|&b| b == 0);
    let checked = check_entry(&map.format, block, &expect, trimmed);
    if (trimmed.is_some() && checked.is_none()) || (in_flight && zeros) {
        if in_flight {
            c.in_flight_old += 1;
        } else {
            c.acknowledged += 1;
        }
        return;
    }
    let Some(finding) = checked else {
        // Generation 0 never matches a stamped block: `acked` is the acknowledged one, and a
        // write in flight to the block left it as it was.
        if in_flight {
            c.in_flight_old += 1;
        } else {
            c.acknowledged += 1;
        }
        return;
    };
    let here = finding
        .found
        .as_ref()
        .filter(|h| h.run == map.run && h.target == at.0 as u32 && h.target_offset == at.1);
    // A valid block of this offset, newer than the acknowledged generation: the write in flight,
    // or one made after the journal's last write-back.
    if let Some(h) = here
        && matches!(
            finding.kind,
            CorruptionKind::Unexpected | CorruptionKind::Lost
        )
        && (acked == 0 || !older(h.generation, acked))
    {
        if in_flight && h.generation == next_generation(acked) {
            c.in_flight_new += 1;
        } else {
            c.newer += 1;
        }
        return;
    }
    // A first write in flight: the block may hold anything it held before the run.
    if in_flight && acked == 0 {
        c.in_flight_old += 1;
        return;
    }
    let promised = match finding.kind {
        CorruptionKind::Lost | CorruptionKind::Zeros | CorruptionKind::Garbage => {
            lost_promised(&finding, durable, entry.promised, at, map.run)
        }
        // A write in flight may tear at a sector boundary: only sectors are atomic.
        CorruptionKind::Torn => !in_flight,
        CorruptionKind::Misdirected | CorruptionKind::Unexpected => true,
    };
    let found = Found {
        target: at.0 as u32,
        target_offset: at.1,
        volume_offset,
        class: VERIFY,
        expected: acked,
        finding,
    };
    if promised {
        c.broken.checked += 1;
        c.broken.record(found);
    } else {
        c.unpromised.checked += 1;
        c.unpromised.record(found);
    }
}
