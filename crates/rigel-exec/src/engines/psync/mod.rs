//! The `psync` engine behind the seam: each request is a blocking system call (`pool.rs`), run
//! at its push, on the worker's thread when the worker has one slot, else on the slot's own
//! thread; the policy's timers are kept here (`ready.rs`). fio's `ioengine=psync` is the
//! reference: one I/O at a time per thread, depth = threads.
//!
//! Its limit: a request cannot be withdrawn once started (a `pread` runs to its end), and on a
//! worker of one slot a request that never returns holds the worker itself, so the stall is
//! seen only if it ever returns (a worker with more slots waits on its threads with the tick
//! and sees it within 100 ms of `run.io_timeout`).

pub(crate) mod pool;

use super::ready::Ready;
use super::seam::{Completion, Engine, Live, Op, Open, Opened};
use crate::engines::clock::Elapsed;
use crate::failure::Failure;
use pool::{Psync, SyncDone, SyncOp, SyncReq};
use std::collections::BTreeMap;
use std::io;
use std::os::fd::RawFd;

/// A worker's psync engine: the blocking calls, its targets and what is ready to reap.
pub(crate) struct PsyncEngine {
    core: Psync,
    fds: Vec<RawFd>,
    /// Which targets are block devices (how a trim discards).
    block: Vec<bool>,
    ready: Ready,
}

impl Engine for PsyncEngine {
    const NAME: &'static str = "psync";
    type Live<'r> = PsyncLive<'r>;

    fn open(open: &Open<'_>) -> io::Result<Opened<Self>> {
        // One thread per slot (each slot holds one I/O at a time); one slot runs inline.
        let core = Psync::new(open.buffers.len().max(1))?;
        Ok(Opened {
            engine: PsyncEngine {
                core,
                fds: open.fds.to_vec(),
                block: crate::engines::discard::block_targets(open.fds),
                ready: Ready::with_capacity(open.entries as usize),
            },
            buf_index: Vec::new(),
        })
    }

    fn live(&mut self) -> PsyncLive<'_> {
        PsyncLive { e: self }
    }

    fn options(&self) -> BTreeMap<String, String> {
        let threads = match self.core.threads() {
            0 => "1 (the worker's own)".to_string(),
            n => n.to_string(),
        };
        BTreeMap::from([
            ("threads".to_string(), threads),
            (
                "calls".to_string(),
                "pread, pwrite, pwritev2(RWF_DSYNC), fdatasync".to_string(),
            ),
        ])
    }

    fn close(self) {}
}

/// The hot path of [`PsyncEngine`].
pub(crate) struct PsyncLive<'r> {
    e: &'r mut PsyncEngine,
}

#[inline]
fn completion(d: SyncDone) -> Completion {
    Completion {
        tag: d.data,
        result: i32::try_from(d.res).unwrap_or(-libc::EOVERFLOW),
    }
}

impl PsyncLive<'_> {
    /// Moves the finished requests and the timers due to `ready` (no wait).
    #[inline]
    fn collect(&mut self) {
        let e = &mut *self.e;
        let ready = &mut e.ready;
        e.core.reap(0, None, |d| ready.push(completion(d), ()));
        e.ready.fire();
    }
}

impl Live for PsyncLive<'_> {
    #[inline]
    unsafe fn push(&mut self, tag: u64, op: Op<'_>) {
        let e = &mut *self.e;
        let req = match op {
            Op::Rw(rw) => SyncReq {
                op: if rw.write {
                    SyncOp::Write { dsync: rw.dsync }
                } else {
                    SyncOp::Read
                },
                fd: e.fds[rw.target as usize],
                buf: rw.buf,
                len: rw.len,
                offset: rw.offset,
                data: tag,
            },
            Op::Flush { target, data_only } => SyncReq {
                op: SyncOp::Flush { data_only },
                fd: e.fds[target as usize],
                buf: std::ptr::null_mut(),
                len: 0,
                offset: 0,
                data: tag,
            },
            Op::Trim(t) => SyncReq {
                op: SyncOp::Trim {
                    block: e.block[t.target as usize],
                    len: t.len,
                },
                fd: e.fds[t.target as usize],
                buf: std::ptr::null_mut(),
                len: 0,
                offset: t.offset,
                data: tag,
            },
            Op::Timer(interval) => {
                e.ready.push_timer(tag, interval, ());
                return;
            }
        };
        // Started now (the engine cannot batch): inline it runs to its end here.
        e.core.prep(req);
        e.core.submit();
    }

    #[inline]
    fn submit(&mut self) {}

    #[inline]
    fn enter(
        &mut self,
        clock: &Elapsed,
        _now: u64,
        _in_flight: usize,
        until: Option<u64>,
    ) -> Result<(), Failure> {
        self.collect();
        let e = &mut *self.e;
        let core = &mut e.core;
        e.ready.wait(clock, until, core.in_flight(), |ready, wait| {
            core.reap(1, wait, |d| ready.push(completion(d), ()));
        });
        Ok(())
    }

    #[inline]
    fn ready(&mut self) -> usize {
        self.e.ready.len()
    }

    #[inline]
    fn next(&mut self) -> Option<Completion> {
        self.e.ready.next_completion()
    }

    #[inline]
    fn consumed(&mut self) {}

    fn cancel(&mut self, tag: u64) {
        self.e.ready.cancel(tag, ());
    }
}
