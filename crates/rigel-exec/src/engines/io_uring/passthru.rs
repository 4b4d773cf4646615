//! io_uring with NVMe passthrough (fio's `io_uring_cmd`): a worker whose volume holds a
//! namespace's generic character device (`/dev/ngXnY`) sends its reads, writes and flushes to
//! it as NVMe commands (`IORING_OP_URING_CMD`, `NVME_URING_CMD_IO`), past the block layer's
//! bio and file paths. Such commands need the big entries (SQE128 for the 72-byte command,
//! CQE32), so this is a ring of its own type, not a flag on the default one; the other targets of
//! the volume (files, block devices) and the policy's timers and cancels go through the same ring
//! as the usual requests. The namespace's NSID and LBA format come from its identify data
//! (`nvme.rs`).
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

use super::Files;
use super::entering::Entering;
use super::setup::{
    build_polled_ring, build_ring, build_sqpoll_ring, push_or_submit, register_buffers,
    register_files,
};
use crate::engines::clock::Elapsed;
use crate::engines::discard;
use crate::engines::nvme::{self, Namespace};
use crate::engines::seam::{Completion, Engine, Facts, Live, Op, Open, Opened, RingMode, Rw, Trim};
use crate::failure::Failure;
use io_uring::{IoUring, Submitter, cqueue, opcode, squeue, types};
use std::collections::BTreeMap;
use std::io;
use std::os::fd::{BorrowedFd, RawFd};

/// A completion handed back as the kernel gave it (not a passthrough command's).
const AS_IS: i32 = i32::MIN;

/// A worker's passthrough ring and the requests in it.
pub(crate) struct PassthruEngine {
    ring: IoUring<squeue::Entry128, cqueue::Entry32>,
    mode: RingMode,
    fds: Vec<RawFd>,
    /// Per target: its namespace, when the target is a passthrough one.
    ns: Vec<Option<Namespace>>,
    fixed_buffers: bool,
    fixed_files: bool,
    entering: Entering,
    /// As `IoUringEngine::timespecs`: one per submission entry, used in turn.
    timespecs: Box<[types::Timespec]>,
    next_timespec: usize,
    /// Per request in the ring: its tag and its result on success (`AS_IS`: the kernel's).
    table: Vec<(u64, i32)>,
    /// Per table entry: a trim's DSM range (boxed: the kernel reads it at its own address
    /// while the table grows).
    #[allow(clippy::vec_box)] // the boxes' addresses must not move when the Vec grows
    ranges: Vec<Box<[u8; 16]>>,
    free: Vec<u32>,
    sqpoll: Option<rigel_plan::SqPoll>,
    /// Which targets are block devices, and the completions of trims run at their push.
    block: Vec<bool>,
    made: Vec<Completion>,
}

impl Engine for PassthruEngine {
    const NAME: &'static str = "io_uring";

    type Live<'r> = PassthruLive<'r>;

    fn open(open: &Open<'_>) -> io::Result<Opened<Self>> {
        let ns = open
            .fds
            .iter()
            .map(|&fd| {
                // SAFETY: the point's target descriptors stay open while its workers run.
                nvme::passthru_namespace(unsafe { BorrowedFd::borrow_raw(fd) })
            })
            .collect::<io::Result<Vec<_>>>()?;
        let built: io::Result<(IoUring<squeue::Entry128, cqueue::Entry32>, RingMode)> =
            // `polled` (the plan refuses it beside sqpoll): the NVMe driver sends the commands
            // to the namespace's poll queues (Linux 6.1+: `uring_cmd_iopoll`); `PolledEngine`
            // keeps the timers a polled ring refuses.
            match (open.sqpoll, open.polled) {
                (Some(sq), _) => build_sqpoll_ring(open.entries, sq).map(|r| (r, RingMode::Plain)),
                (None, true) => build_polled_ring(open.entries),
                (None, false) => build_ring(open.entries),
            };
        let (ring, mode) = built.map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("io_uring refused a passthrough ring (SQE128, CQE32; Linux 5.19+): {e}"),
            )
        })?;
        let timespecs = vec![types::Timespec::new(); ring.params().sq_entries() as usize];
        let buf_index = open
            .options
            .register_buffers
            .then(|| register_buffers(&ring, open.arena, open.buffers).ok())
            .flatten();
        let fixed_files = open.options.register_files && register_files(&ring, open.fds).is_ok();
        let capacity = open.entries as usize + 1;
        Ok(Opened {
            engine: PassthruEngine {
                ring,
                mode,
                fds: open.fds.to_vec(),
                ns,
                fixed_buffers: buf_index.is_some(),
                fixed_files,
                entering: Entering::new(),
                timespecs: timespecs.into_boxed_slice(),
                next_timespec: 0,
                table: Vec::with_capacity(capacity),
                ranges: Vec::with_capacity(capacity),
                free: Vec::with_capacity(capacity),
                sqpoll: open.sqpoll,
                block: discard::block_targets(open.fds),
                made: Vec::new(),
            },
            buf_index: buf_index.unwrap_or_default(),
        })
    }

    fn live(&mut self) -> PassthruLive<'_> {
        let (submitter, sq, cq) = self.ring.split();
        PassthruLive {
            submitter,
            sq,
            cq,
            files: Files {
                fds: &self.fds,
                fixed_files: self.fixed_files,
                fixed_buffers: self.fixed_buffers,
            },
            ns: &self.ns,
            entering: &mut self.entering,
            timespecs: &mut self.timespecs,
            next_timespec: &mut self.next_timespec,
            table: &mut self.table,
            ranges: &mut self.ranges,
            free: &mut self.free,
            block: &self.block,
            made: &mut self.made,
        }
    }

    fn options(&self) -> BTreeMap<String, String> {
        let mode = match self.mode {
            RingMode::Deferred => "defer_taskrun",
            RingMode::Coop => "coop_taskrun",
            RingMode::Plain => "plain",
        };
        let params = self.ring.params();
        let sqpoll = self.sqpoll.map(|sq| {
            let cpu = sq.cpu.map_or("unpinned".to_owned(), |c| format!("cpu {c}"));
            ("sqpoll", format!("{cpu}, idle {} ms", sq.idle_ms))
        });
        let namespaces: Vec<String> = self
            .ns
            .iter()
            .flatten()
            .map(|n| format!("nsid {}, {}-byte blocks", n.nsid, 1u32 << n.lba_shift))
            .collect();
        [
            ("mode", mode.to_owned()),
            ("sq_entries", params.sq_entries().to_string()),
            ("cq_entries", params.cq_entries().to_string()),
            ("registered_buffers", self.fixed_buffers.to_string()),
            ("registered_files", self.fixed_files.to_string()),
            ("passthru", format!("nvme ({})", namespaces.join("; "))),
        ]
        .into_iter()
        .chain(sqpoll)
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }

    fn facts(&self) -> Facts {
        Facts {
            mode: Some(self.mode),
            fixed_buffers: Some(self.fixed_buffers),
            fixed_files: Some(self.fixed_files),
            submit_only: self.entering.submit_only,
            inline_turns: self.entering.inline_turns,
        }
    }

    fn close(self) {
        // As `IoUringEngine::close`: the ring's references to the targets go now.
        if self.fixed_files {
            let _ = self.ring.submitter().unregister_files();
        }
        drop(self.ring);
    }
}

/// The passthrough ring's hot path.
pub(crate) struct PassthruLive<'r> {
    submitter: Submitter<'r>,
    sq: squeue::SubmissionQueue<'r, squeue::Entry128>,
    cq: cqueue::CompletionQueue<'r, cqueue::Entry32>,
    files: Files<'r>,
    ns: &'r [Option<Namespace>],
    entering: &'r mut Entering,
    timespecs: &'r mut [types::Timespec],
    next_timespec: &'r mut usize,
    table: &'r mut Vec<(u64, i32)>,
    #[allow(clippy::vec_box)] // as `PassthruEngine::ranges`
    ranges: &'r mut Vec<Box<[u8; 16]>>,
    free: &'r mut Vec<u32>,
    block: &'r [bool],
    made: &'r mut Vec<Completion>,
}

impl PassthruLive<'_> {
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
    fn command(&self, target: u32, cmd: nvme::Cmd, buf_index: Option<u16>) -> squeue::Entry128 {
        let cmd = cmd.bytes();
        if self.files.fixed_files {
            opcode::UringCmd80::new(types::Fixed(target), nvme::URING_CMD_IO)
                .cmd(cmd)
                .buf_index(buf_index)
                .build()
        } else {
            opcode::UringCmd80::new(
                types::Fd(self.files.fds[target as usize]),
                nvme::URING_CMD_IO,
            )
            .cmd(cmd)
            .buf_index(buf_index)
            .build()
        }
    }

    /// A read or a write: an NVMe command on a passthrough target, the usual entry elsewhere.
    #[inline(always)]
    fn rw(&self, rw: &Rw) -> (squeue::Entry128, i32) {
        match self.ns[rw.target as usize] {
            Some(ns) => {
                let cmd = ns.rw(rw.write, rw.dsync, rw.offset, rw.buf as u64, rw.len);
                let fixed = self.files.fixed_buffers.then_some(rw.buf_index);
                (self.command(rw.target, cmd, fixed), rw.len as i32)
            }
            None => (self.files.rw(rw).into(), AS_IS),
        }
    }
}

impl PassthruLive<'_> {
    /// A trim: a DSM command to a namespace (its range in table entry `user_data`'s box), or,
    /// on another target, the discard run now (None: its completion is made).
    fn trim(&mut self, tag: u64, t: Trim) -> Option<(squeue::Entry128, u64)> {
        let Some(ns) = self.ns[t.target as usize] else {
            let fd = self.files.fds[t.target as usize];
            let result = discard::discard(fd, self.block[t.target as usize], t.offset, t.len);
            self.made.push(Completion { tag, result });
            return None;
        };
        let user_data = self.hold(tag, 0);
        let range = &mut self.ranges[user_data as usize];
        let Some(cmd) = ns.trim(t.offset, t.len, range) else {
            self.free.push(user_data as u32);
            self.made.push(Completion {
                tag,
                result: -libc::EINVAL,
            });
            return None;
        };
        Some((self.command(t.target, cmd, None), user_data))
    }
}

impl Live for PassthruLive<'_> {
    #[inline(always)]
    unsafe fn push(&mut self, tag: u64, op: Op<'_>) {
        if let Op::Trim(t) = op {
            if let Some((entry, user_data)) = self.trim(tag, t) {
                let entry = entry.user_data(user_data);
                // SAFETY: the DSM range is the table entry's box, which stays (unmoved, unused by
                // another request) until this request's completion frees the entry.
                unsafe { push_or_submit(&mut self.sq, &self.submitter, &entry) };
            }
            return;
        }
        let (entry, ok) = match op {
            Op::Trim(_) => unreachable!("trims are pushed above"),
            Op::Rw(rw) => self.rw(&rw),
            Op::Flush { target, data_only } => match self.ns[target as usize] {
                // A namespace's Flush commits its volatile write cache: fsync's and
                // fdatasync's meaning alike on a raw namespace.
                Some(ns) => (self.command(target, ns.flush(), None), 0),
                None => (self.files.fsync(target, data_only).into(), AS_IS),
            },
            Op::Timer(t) => {
                let k = *self.next_timespec % self.timespecs.len();
                *self.next_timespec = self.next_timespec.wrapping_add(1);
                self.timespecs[k] = *t.timespec();
                (
                    opcode::Timeout::new(&self.timespecs[k]).build().into(),
                    AS_IS,
                )
            }
        };
        let entry = entry.user_data(self.hold(tag, ok));
        // SAFETY: as `IoUringLive::push`: the caller keeps a read's or write's buffer alive and
        // untouched until its completion (the command's `addr` points into it, inside registered
        // buffer `buf_index` when buffers are registered), a timer's timespec is the engine's own
        // until consumed, and the descriptors outlive the point.
        unsafe { push_or_submit(&mut self.sq, &self.submitter, &entry) };
    }

    #[inline(always)]
    fn submit(&mut self) {
        self.sq.sync();
        let _ = self.submitter.submit();
    }

    #[inline(always)]
    fn enter(
        &mut self,
        clock: &Elapsed,
        now: u64,
        in_flight: usize,
        until: Option<u64>,
    ) -> Result<(), Failure> {
        self.sq.sync();
        if !self.made.is_empty() {
            // A trim already done: its completion is ready without waiting.
            let _ = self.submitter.submit();
            return Ok(());
        }
        self.entering
            .enter(&self.submitter, &mut self.cq, clock, now, in_flight, until)
    }

    #[inline(always)]
    fn ready(&mut self) -> usize {
        self.cq.sync();
        self.cq.len() + self.made.len()
    }

    #[inline(always)]
    fn next(&mut self) -> Option<Completion> {
        if let Some(c) = self.made.pop() {
            return Some(c);
        }
        let c = self.cq.next()?;
        let i = c.user_data() as usize;
        let (tag, ok) = self.table[i];
        self.free.push(i as u32);
        let res = c.result();
        let result = match (ok, res) {
            (AS_IS, r) => r,
            (ok, 0) => ok,
            // An NVMe status (the command reached the device and failed there).
            (_, r) if r > 0 => -libc::EIO,
            (_, r) => r,
        };
        Some(Completion { tag, result })
    }

    #[inline(always)]
    fn consumed(&mut self) {
        self.cq.sync();
    }

    fn cancel(&mut self, tag: u64) {
        assert!(
            !crate::engines::seam::is_slot_rw(tag),
            "a cancel tagged as a slot's I/O"
        );
        // Commands at the device complete as they finish; the timers are withdrawn.
        let cancel: squeue::Entry128 = opcode::AsyncCancel2::new(types::CancelBuilder::any())
            .build()
            .into();
        let cancel = cancel.user_data(self.hold(tag, AS_IS));
        // SAFETY: a cancel request references no memory.
        unsafe { push_or_submit(&mut self.sq, &self.submitter, &cancel) };
    }
}
