//! `verify = "after"`: at a point's end, every block written in the run (and not left with a write
//! in flight) is read back and checked, target by target in chunks of up to 1 MiB; the blocks
//! never written between a chunk's first and last written one are read with them, and checked
//! for a write of this run that landed there.

use super::block::{Expect, check_entry};
use super::map::{BUSY, GENERATION, GenMap};
use super::worker::{Found, Tally};
use crate::ExecTarget;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) const CHUNK: usize = 1 << 20;
/// The buffer's alignment (O_DIRECT).
pub(crate) const ALIGN: usize = 4096;
/// `Found::class` of a block the re-read found.
pub const AFTER: usize = usize::MAX;

/// Reads back every written block of the volume; stops early (with what it checked) on `stop`.
pub fn reread(targets: &[ExecTarget], map: &GenMap, stop: &AtomicBool) -> io::Result<Tally> {
    let unit = map.unit() as usize;
    let per_chunk = (CHUNK / unit).max(1);
    let mut raw = vec![0u8; per_chunk * unit + ALIGN];
    let skip = raw.as_ptr().align_offset(ALIGN);
    let buf = &mut raw[skip..skip + per_chunk * unit];
    let mut tally = Tally::default();
    for (t, target) in targets.iter().enumerate() {
        let (first, blocks) = map.target_blocks(t);
        let mut b = 0u64;
        while b < blocks {
            if stop.load(Ordering::Relaxed) {
                return Ok(tally);
            }
            let n = (blocks - b).min(per_chunk as u64) as usize;
            let noted: Vec<u16> = (0..n)
                .map(|k| map.at(first + b as usize + k).load(Ordering::Acquire))
                .collect();
            // Only the span from the first to the last written block of the chunk is read.
            let written = |g: &u16| *g & GENERATION != 0 && *g & BUSY == 0;
            if let (Some(lo), Some(hi)) = (
                noted.iter().position(written),
                noted.iter().rposition(written),
            ) {
                let offset = (b + lo as u64) * unit as u64;
                let span = &mut buf[..(hi + 1 - lo) * unit];
                read_exact_at(target, span, offset)?;
                for (k, block) in span.chunks_exact(unit).enumerate() {
                    let g = noted[lo + k];
                    if g & BUSY != 0 {
                        continue;
                    }
                    let target_offset = offset + (k * unit) as u64;
                    let volume_offset = map.volume_offset(t, target_offset);
                    let expect = Expect {
                        run: map.run,
                        target: t as u32,
                        target_offset,
                        volume_offset,
                        generation: g & GENERATION,
                    };
                    let finding = if written(&g) {
                        tally.checked += 1;
                        check_entry(&map.format, block, &expect, map.trimmed(t, g))
                    } else {
                        // Never written, read as part of the span: a write of this run that
                        // landed here is found.
                        map.format.check_unwritten(block, &expect)
                    };
                    if let Some(finding) = finding {
                        tally.record(Found {
                            target: t as u32,
                            target_offset,
                            volume_offset,
                            class: AFTER,
                            expected: g & GENERATION,
                            finding,
                        });
                    }
                }
            }
            b += n as u64;
        }
    }
    Ok(tally)
}

pub(crate) fn read_exact_at(
    target: &ExecTarget,
    mut buf: &mut [u8],
    mut offset: u64,
) -> io::Result<()> {
    // A passthrough target (`/dev/ngXnY`) has no read(2): its blocks are read with NVMe commands.
    if let Some(ns) = crate::engines::nvme::passthru_namespace(target.fd)? {
        return ns.read_at(target.fd, buf, offset).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("{}: reading back offset {offset}: {e}", target.path),
            )
        });
    }
    while !buf.is_empty() {
        match rustix::io::pread(target.fd, &mut *buf, offset) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("{}: end of the target at offset {offset}", target.path),
                ));
            }
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => {
                return Err(io::Error::new(
                    io::Error::from(e).kind(),
                    format!("{}: reading back offset {offset}: {e}", target.path),
                ));
            }
        }
    }
    Ok(())
}
