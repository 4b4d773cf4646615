//! io_uring with NVMe passthrough (fio's `io_uring_cmd`): a worker whose volume holds a
//! namespace's generic character device (`/dev/ngXnY`) sends its reads, writes and flushes to
//! it as NVMe commands (`IORING_OP_URING_CMD`, `NVME_URING_CMD_IO`), past the block layer's
//! bio and file paths. Such commands need the big entries (SQE128 for the 72-byte command,
//! CQE32), so this is a ring of its own type, not a flag on the default one; the other targets of
//! the volume (files, block devices) and the policy's timers and cancels go through the same ring
//! as the usual requests. The namespace's NSID and LBA format come from its identify data
//! (`nvme.rs`). The ring itself is the driver the default engine uses (`ring.rs`): this file holds
//! only the commands.
//!
//! A command's completion is the NVMe status, not a byte count: each request in the ring holds
//! an entry of `table` (its `user_data` is the entry's index) saying what a success means (the
//! bytes asked for, as a read would return them) and what tag to hand back, so the policy sees
//! the seam's convention. An NVMe error status is `-EIO`.
//!
//! A trim of a passthrough target is a Dataset Management command deallocating its range (the
//! range's 16 bytes live in the request's table entry, boxed, until it completes); of another
//! target, the block layer's discard or a punched hole run at the push (`discard`), its
//! completion made here.

use super::ring::{Commands, Ring, Targets};
use crate::engines::discard;
use crate::engines::nvme::{self, Namespace};
use crate::engines::seam::{Completion, Op, Open, Rw, Trim};
use io_uring::{cqueue, opcode, squeue, types};
use std::io;
use std::os::fd::BorrowedFd;

/// A completion handed back as the kernel gave it (not a passthrough command's).
const AS_IS: i32 = i32::MIN;

/// The passthrough engine: the ring driver with NVMe commands.
pub(crate) type PassthruEngine = Ring<Passthru>;

/// A worker's namespaces and the requests in its ring.
pub(crate) struct Passthru {
    /// Per target: its namespace, when the target is a passthrough one.
    ns: Vec<Option<Namespace>>,
    /// Per request in the ring: its tag and its result on success (`AS_IS`: the kernel's).
    table: Vec<(u64, i32)>,
    /// Per table entry: a trim's DSM range (boxed: the kernel reads it at its own address
    /// while the table grows).
    #[allow(clippy::vec_box)] // the boxes' addresses must not move when the Vec grows
    ranges: Vec<Box<[u8; 16]>>,
    free: Vec<u32>,
}

impl Commands for Passthru {
    type S = squeue::Entry128;
    type C = cqueue::Entry32;

    fn open(open: &Open<'_>) -> io::Result<Passthru> {
        let ns = open
            .fds
            .iter()
            .map(|&fd| {
                // SAFETY: the point's target descriptors stay open while its workers run.
                nvme::passthru_namespace(unsafe { BorrowedFd::borrow_raw(fd) })
            })
            .collect::<io::Result<Vec<_>>>()?;
        let capacity = open.entries as usize + 1;
        Ok(Passthru {
            ns,
            table: Vec::with_capacity(capacity),
            ranges: Vec::with_capacity(capacity),
            free: Vec::with_capacity(capacity),
        })
    }

    fn refused(e: io::Error) -> io::Error {
        // `polled` (the plan refuses it beside sqpoll): the NVMe driver sends the commands to
        // the namespace's poll queues (Linux 6.1+: `uring_cmd_iopoll`).
        io::Error::new(
            e.kind(),
            format!("io_uring refused a passthrough ring (SQE128, CQE32; Linux 5.19+): {e}"),
        )
    }

    #[inline(always)]
    fn entry(
        &mut self,
        targets: &Targets<'_>,
        tag: u64,
        op: Op<'_>,
        done: &mut Vec<Completion>,
    ) -> Option<squeue::Entry128> {
        let (entry, ok) = match op {
            Op::Trim(t) => {
                let (entry, user_data) = self.trim(targets, tag, t, done)?;
                return Some(entry.user_data(user_data));
            }
            Op::Rw(rw) => self.rw(targets, &rw),
            Op::Flush { target, data_only } => match self.ns[target as usize] {
                // A namespace's Flush commits its volatile write cache: fsync's and
                // fdatasync's meaning alike on a raw namespace.
                Some(ns) => (self.command(targets, target, ns.flush(), None), 0),
                None => (targets.fsync(target, data_only).into(), AS_IS),
            },
            Op::Timer(_) => unreachable!("the ring driver makes the timers' entries"),
        };
        Some(entry.user_data(self.hold(tag, ok)))
    }

    #[inline(always)]
    fn as_is(&mut self, tag: u64) -> u64 {
        self.hold(tag, AS_IS)
    }

    #[inline(always)]
    fn completion(&mut self, user_data: u64, res: i32) -> Completion {
        let i = user_data as usize;
        let (tag, ok) = self.table[i];
        self.free.push(i as u32);
        let result = match (ok, res) {
            (AS_IS, r) => r,
            (ok, 0) => ok,
            // An NVMe status (the command reached the device and failed there).
            (_, r) if r > 0 => -libc::EIO,
            (_, r) => r,
        };
        Completion { tag, result }
    }

    fn option(&self) -> Option<(&'static str, String)> {
        let namespaces: Vec<String> = self
            .ns
            .iter()
            .flatten()
            .map(|n| format!("nsid {}, {}-byte blocks", n.nsid, 1u32 << n.lba_shift))
            .collect();
        Some(("passthru", format!("nvme ({})", namespaces.join("; "))))
    }
}

impl Passthru {
    /// A table entry for a request tagged `tag` whose success is `ok`; its index is the
    /// request's `user_data`.
    #[inline(always)]
    fn hold(&mut self, tag: u64, ok: i32) -> u64 {
        match self.free.pop() {
            Some(i) => {
                self.table[i as usize] = (tag, ok);
                u64::from(i)
            }
            None => {
                self.table.push((tag, ok));
                self.ranges.push(Box::new([0; 16]));
                (self.table.len() - 1) as u64
            }
        }
    }

    /// An NVMe command to `target`'s namespace.
    #[inline(always)]
    fn command(
        &self,
        targets: &Targets<'_>,
        target: u32,
        cmd: nvme::Cmd,
        buf_index: Option<u16>,
    ) -> squeue::Entry128 {
        let cmd = cmd.bytes();
        if targets.fixed_files {
            opcode::UringCmd80::new(types::Fixed(target), nvme::URING_CMD_IO)
                .cmd(cmd)
                .buf_index(buf_index)
                .build()
        } else {
            opcode::UringCmd80::new(types::Fd(targets.fds[target as usize]), nvme::URING_CMD_IO)
                .cmd(cmd)
                .buf_index(buf_index)
                .build()
        }
    }

    /// A read or a write: an NVMe command on a passthrough target, the usual entry elsewhere.
    #[inline(always)]
    fn rw(&self, targets: &Targets<'_>, rw: &Rw) -> (squeue::Entry128, i32) {
        match self.ns[rw.target as usize] {
            Some(ns) => {
                let cmd = ns.rw(rw.write, rw.dsync, rw.offset, rw.buf as u64, rw.len);
                let fixed = targets.fixed_buffers.then_some(rw.buf_index);
                (self.command(targets, rw.target, cmd, fixed), rw.len as i32)
            }
            None => (targets.rw(rw).into(), AS_IS),
        }
    }

    /// A trim: a DSM command to a namespace (its range in table entry `user_data`'s box, which
    /// stays, unmoved and unused by another request, until this request's completion frees the
    /// entry), or, on another target, the discard run now (None: its completion is in `done`).
    fn trim(
        &mut self,
        targets: &Targets<'_>,
        tag: u64,
        t: Trim,
        done: &mut Vec<Completion>,
    ) -> Option<(squeue::Entry128, u64)> {
        let Some(ns) = self.ns[t.target as usize] else {
            let fd = targets.fds[t.target as usize];
            let result = discard::discard(fd, targets.block[t.target as usize], t.offset, t.len);
            done.push(Completion { tag, result });
            return None;
        };
        let user_data = self.hold(tag, 0);
        let range = &mut self.ranges[user_data as usize];
        let Some(cmd) = ns.trim(t.offset, t.len, range) else {
            self.free.push(user_data as u32);
            done.push(Completion {
                tag,
                result: -libc::EINVAL,
            });
            return None;
        };
        Some((self.command(targets, t.target, cmd, None), user_data))
    }
}
