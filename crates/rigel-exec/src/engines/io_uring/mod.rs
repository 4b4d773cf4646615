//! The io_uring engine: one ring per worker with the best setup flags the kernel accepts
//! (`setup`), the buffer arena and the targets registered with it where allowed, requests queued
//! as submission entries and handed over by the entry that waits (`entering`), completions read
//! straight from the completion queue. rigel's fastest path, and the default.

pub(crate) mod entering;
pub(crate) mod passthru;
pub(crate) mod polled;
pub(crate) mod setup;

use super::discard::{self, BLOCK_URING_CMD_DISCARD, PUNCH_HOLE};
use super::seam::{Completion, Engine, Facts, Live, Op, Open, Opened, RingMode, Rw, Trim};
use crate::engines::clock::Elapsed;
use crate::failure::Failure;
use entering::Entering;
use io_uring::{IoUring, Submitter, cqueue, opcode, squeue, types};
use setup::{build_ring, push_or_submit, register_buffers, register_files};
use std::collections::BTreeMap;
use std::io;
use std::os::fd::RawFd;

/// A worker's ring and what its setup got.
pub(crate) struct IoUringEngine {
    ring: IoUring,
    mode: RingMode,
    fds: Vec<RawFd>,
    fixed_buffers: bool,
    fixed_files: bool,
    entering: Entering,
    /// The ring's descriptor was registered for the loop's entries.
    ring_fd: bool,
    /// The timers' timespecs, one per submission queue entry, used in turn: the kernel reads a
    /// timeout's timespec when it consumes the entry (IORING_FEAT_SUBMIT_STABLE), and no more
    /// entries than the queue holds are ever unconsumed, so none is reused before it was read.
    /// The policy's `Interval` then need not outlive its push.
    timespecs: Box<[types::Timespec]>,
    next_timespec: usize,
    /// `sqpoll`: the submission thread's settings, as results record them.
    sqpoll: Option<rigel_plan::SqPoll>,
    /// Which targets are block devices (a trim discards them; a file's punches a hole).
    block: Vec<bool>,
    /// Whether the kernel's io_uring discards a block device (6.12+); else a trim runs
    /// `BLKDISCARD` at its push and its completion waits in `trimmed`, then in `made` from the
    /// next `ready` on (a completion made while the policy reaps a batch must not join it).
    uring_discard: bool,
    trimmed: Vec<Completion>,
    made: Vec<Completion>,
}

impl Engine for IoUringEngine {
    const NAME: &'static str = "io_uring";

    type Live<'r> = IoUringLive<'r>;

    fn open(open: &Open<'_>) -> io::Result<Opened<Self>> {
        let (ring, mode) = match (open.sqpoll, open.polled) {
            (Some(sq), _) => (setup::build_sqpoll_ring(open.entries, sq)?, RingMode::Plain),
            // `polled::PolledEngine` opens its ring through here.
            (None, true) => setup::build_polled_ring(open.entries)?,
            (None, false) => build_ring(open.entries)?,
        };
        if !ring.params().is_feature_submit_stable() {
            // Linux 5.5+: the timers' timespecs (`timespecs`) rely on it.
            return Err(io::Error::other(
                "this kernel's io_uring reads a request's data after its submission \
                 (no IORING_FEAT_SUBMIT_STABLE, Linux < 5.5): use engine = \"libaio\" or \"psync\"",
            ));
        }
        let timespecs = vec![types::Timespec::new(); ring.params().sq_entries() as usize];
        let buf_index = open
            .options
            .register_buffers
            .then(|| register_buffers(&ring, open.arena, open.buffers).ok())
            .flatten();
        let fixed_files = open.options.register_files && register_files(&ring, open.fds).is_ok();
        Ok(Opened {
            engine: IoUringEngine {
                ring,
                mode,
                fds: open.fds.to_vec(),
                fixed_buffers: buf_index.is_some(),
                fixed_files,
                entering: Entering::new(),
                ring_fd: false,
                timespecs: timespecs.into_boxed_slice(),
                next_timespec: 0,
                sqpoll: open.sqpoll,
                block: discard::block_targets(open.fds),
                uring_discard: discard::uring_discards(),
                trimmed: Vec::new(),
                made: Vec::new(),
            },
            buf_index: buf_index.unwrap_or_default(),
        })
    }

    fn live(&mut self) -> IoUringLive<'_> {
        let (mut submitter, sq, cq) = self.ring.split();
        if !self.ring_fd {
            // The loop enters through the ring's registered index: a file lookup less per system
            // call (5.18+; without it the plain descriptor is used). The drain's entries, few,
            // use the descriptor.
            self.ring_fd = true;
            let _ = submitter.register_ring_fd();
        }
        IoUringLive {
            submitter,
            sq,
            cq,
            fds: &self.fds,
            fixed_buffers: self.fixed_buffers,
            fixed_files: self.fixed_files,
            entering: &mut self.entering,
            timespecs: &mut self.timespecs,
            next_timespec: &mut self.next_timespec,
            block: &self.block,
            uring_discard: self.uring_discard,
            trimmed: &mut self.trimmed,
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
        [
            ("mode", mode.to_owned()),
            ("sq_entries", params.sq_entries().to_string()),
            ("cq_entries", params.cq_entries().to_string()),
            ("registered_buffers", self.fixed_buffers.to_string()),
            ("registered_files", self.fixed_files.to_string()),
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
        // The ring's references to the targets go now, not whenever the kernel's asynchronous
        // teardown of a closed ring gets to them: until the last reference goes, a test file's
        // flock and a block device's O_EXCL claim stay held, and the next rigel is refused.
        if self.fixed_files {
            let _ = self.ring.submitter().unregister_files();
        }
        drop(self.ring);
    }
}

/// The ring's three parts for one loop or drain.
pub(crate) struct IoUringLive<'r> {
    submitter: Submitter<'r>,
    sq: squeue::SubmissionQueue<'r>,
    cq: cqueue::CompletionQueue<'r>,
    fds: &'r [RawFd],
    fixed_buffers: bool,
    fixed_files: bool,
    entering: &'r mut Entering,
    timespecs: &'r mut [types::Timespec],
    next_timespec: &'r mut usize,
    block: &'r [bool],
    uring_discard: bool,
    /// Completions the engine made itself (a trim run at its push), handed out first once a
    /// `ready` counted them.
    trimmed: &'r mut Vec<Completion>,
    made: &'r mut Vec<Completion>,
}

impl IoUringLive<'_> {
    /// The targets as this ring addresses them.
    #[inline(always)]
    fn files(&self) -> Files<'_> {
        Files {
            fds: self.fds,
            fixed_files: self.fixed_files,
            fixed_buffers: self.fixed_buffers,
        }
    }
}

/// How a ring addresses the targets and the buffers: registered or by descriptor and address.
#[derive(Clone, Copy)]
pub(crate) struct Files<'r> {
    pub fds: &'r [RawFd],
    pub fixed_files: bool,
    pub fixed_buffers: bool,
}

impl Files<'_> {
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
}

impl IoUringLive<'_> {
    /// A trim's submission entry: the block layer's discard on a block device (6.12+), a hole
    /// punched in a file; `None` when it ran here (`BLKDISCARD` on an older kernel), its
    /// completion made.
    fn trim(&mut self, tag: u64, t: Trim) -> Option<squeue::Entry> {
        let Trim {
            target,
            offset,
            len,
        } = t;
        let fd = self.fds[target as usize];
        let block = self.block[target as usize];
        if block && !self.uring_discard {
            let result = discard::discard(fd, true, offset, len);
            self.trimmed.push(Completion { tag, result });
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

impl Live for IoUringLive<'_> {
    #[inline(always)]
    unsafe fn push(&mut self, tag: u64, op: Op<'_>) {
        let entry = match op {
            Op::Rw(rw) => self.files().rw(&rw),
            Op::Flush { target, data_only } => self.files().fsync(target, data_only),
            Op::Trim(t) => match self.trim(tag, t) {
                Some(entry) => entry,
                None => return,
            },
            Op::Timer(t) => {
                let k = *self.next_timespec % self.timespecs.len();
                *self.next_timespec = self.next_timespec.wrapping_add(1);
                self.timespecs[k] = *t.timespec();
                opcode::Timeout::new(&self.timespecs[k]).build()
            }
        }
        .user_data(tag);
        // SAFETY: the caller keeps a read or write's buffer range alive and untouched until its
        // completion, inside registered buffer `buf_index` when buffers are registered
        // (setup::register_buffers registered every slot's range), and a timer's timespec is the
        // engine's own, alive until the kernel consumed the entry (see `timespecs`); the fd or fixed index
        // refers to a target that outlives the point.
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
        if !self.made.is_empty() || !self.trimmed.is_empty() {
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
        if !self.trimmed.is_empty() {
            self.made.append(self.trimmed);
        }
        self.cq.len() + self.made.len()
    }

    #[inline(always)]
    fn next(&mut self) -> Option<Completion> {
        if let Some(c) = self.made.pop() {
            return Some(c);
        }
        self.cq.next().map(|c| Completion {
            tag: c.user_data(),
            result: c.result(),
        })
    }

    #[inline(always)]
    fn consumed(&mut self) {
        self.cq.sync();
    }

    fn cancel(&mut self, tag: u64) {
        // Its completion must not pass for a slot's read or write (`SlotBufs::returned`).
        assert!(
            !crate::engines::seam::is_slot_rw(tag),
            "a cancel tagged as a slot's I/O"
        );
        // Ask the kernel to cancel what it can (I/O waiting in io-wq or on a file that may never
        // be ready); I/O already at the device completes normally. Needs 5.19; older kernels
        // answer with an error CQE and the drain simply waits.
        let cancel = opcode::AsyncCancel2::new(types::CancelBuilder::any())
            .build()
            .user_data(tag);
        // SAFETY: a cancel request references no memory.
        unsafe { push_or_submit(&mut self.sq, &self.submitter, &cancel) };
    }
}
