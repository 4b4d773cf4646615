//! The io_uring engine: one ring per worker with the best setup flags the kernel accepts
//! (`setup`), the buffer arena and the targets registered with it where allowed, requests queued
//! as submission entries and handed over by the entry that waits (`entering`), completions read
//! straight from the completion queue. rigel's fastest path, and the default. The ring driver
//! (`ring`) is shared with the NVMe passthrough engine (`passthru`); this file holds the plain
//! requests' entries.

pub(crate) mod entering;
pub(crate) mod passthru;
pub(crate) mod polled;
pub(crate) mod ring;
pub(crate) mod setup;

use super::discard::{self, BLOCK_URING_CMD_DISCARD, PUNCH_HOLE};
use super::seam::{Completion, Op, Open, Rw, Trim};
use io_uring::{cqueue, opcode, squeue, types};
use ring::{Commands, Ring, Targets};
use std::io;

/// The default engine: the ring driver with plain requests.
pub(crate) type IoUringEngine = Ring<Plain>;

/// Plain requests: reads, writes, flushes and discards as the kernel's own opcodes, each
/// tagged with the policy's tag and completed with the kernel's result.
pub(crate) struct Plain;

impl Commands for Plain {
    type S = squeue::Entry;
    type C = cqueue::Entry;

    fn open(_: &Open<'_>) -> io::Result<Plain> {
        Ok(Plain)
    }

    #[inline(always)]
    fn entry(
        &mut self,
        targets: &Targets<'_>,
        tag: u64,
        op: Op<'_>,
        done: &mut Vec<Completion>,
    ) -> Option<squeue::Entry> {
        let entry = match op {
            Op::Rw(rw) => targets.rw(&rw),
            Op::Flush { target, data_only } => targets.fsync(target, data_only),
            Op::Trim(t) => targets.trim(tag, t, done)?,
            Op::Timer(_) => unreachable!("the ring driver makes the timers' entries"),
        };
        Some(entry.user_data(tag))
    }

    #[inline(always)]
    fn as_is(&mut self, tag: u64) -> u64 {
        tag
    }

    #[inline(always)]
    fn completion(&mut self, user_data: u64, result: i32) -> Completion {
        Completion {
            tag: user_data,
            result,
        }
    }
}

impl Targets<'_> {
    /// A read or a write's submission entry.
    #[inline(always)]
    pub(crate) fn rw(&self, rw: &Rw) -> squeue::Entry {
        let Rw {
            target,
            offset,
            buf,
            len,
            buf_index,
            write,
            dsync,
        } = *rw;
        let fixed = self.fixed_buffers;
        // RWF_DSYNC: the write completes once durable (FUA, or a flush after it).
        let flags = if write && dsync { libc::RWF_DSYNC } else { 0 };
        macro_rules! rw {
            ($fd:expr) => {
                match (fixed, write) {
                    (true, false) => opcode::ReadFixed::new($fd, buf, len, buf_index)
                        .offset(offset)
                        .build(),
                    (true, true) => opcode::WriteFixed::new($fd, buf, len, buf_index)
                        .offset(offset)
                        .rw_flags(flags)
                        .build(),
                    (false, false) => opcode::Read::new($fd, buf, len).offset(offset).build(),
                    (false, true) => opcode::Write::new($fd, buf, len)
                        .offset(offset)
                        .rw_flags(flags)
                        .build(),
                }
            };
        }
        if self.fixed_files {
            rw!(types::Fixed(target))
        } else {
            rw!(types::Fd(self.fds[target as usize]))
        }
    }

    /// A flush's submission entry.
    #[inline]
    pub(crate) fn fsync(&self, target: u32, data_only: bool) -> squeue::Entry {
        let flags = if data_only {
            types::FsyncFlags::DATASYNC
        } else {
            types::FsyncFlags::empty()
        };
        if self.fixed_files {
            opcode::Fsync::new(types::Fixed(target))
                .flags(flags)
                .build()
        } else {
            opcode::Fsync::new(types::Fd(self.fds[target as usize]))
                .flags(flags)
                .build()
        }
    }

    /// A trim's submission entry: the block layer's discard on a block device (6.12+), a hole
    /// punched in a file; `None` when it ran here (`BLKDISCARD` on an older kernel), its
    /// completion made.
    fn trim(&self, tag: u64, t: Trim, done: &mut Vec<Completion>) -> Option<squeue::Entry> {
        let Trim {
            target,
            offset,
            len,
        } = t;
        let fd = self.fds[target as usize];
        let block = self.block[target as usize];
        if block && !self.uring_discard {
            let result = discard::discard(fd, true, offset, len);
            done.push(Completion { tag, result });
            return None;
        }
        macro_rules! trim {
            ($fd:expr) => {
                if block {
                    // The start in `addr`, the length in `addr3` (the command area's first 8
                    // bytes).
                    let mut cmd = [0u8; 16];
                    cmd[..8].copy_from_slice(&len.to_ne_bytes());
                    opcode::UringCmd16::new($fd, BLOCK_URING_CMD_DISCARD)
                        .addr(Some(offset))
                        .cmd(cmd)
                        .build()
                } else {
                    opcode::Fallocate::new($fd, len)
                        .offset(offset)
                        .mode(PUNCH_HOLE)
                        .build()
                }
            };
        }
        Some(if self.fixed_files {
            trim!(types::Fixed(target))
        } else {
            trim!(types::Fd(fd))
        })
    }
}
