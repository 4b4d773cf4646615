//! The `libaio` engine: Linux native AIO (`aio.rs`, ORION's own engine) behind the seam. Reads
//! and writes go to the kernel in one `io_submit` per turn; completions come from the ring the
//! kernel maps to user space, with `io_getevents` only to wait; the policy's timers are kept
//! here (`ready.rs`), AIO having none. O_DIRECT only (see `aio.rs` for why and for flushes).
//! AIO has no discard either: a trim runs at its push (`BLKDISCARD`, a hole punched in a file)
//! and its completion is made ready at once, as fio's libaio engine does.

pub(crate) mod aio;

use super::ready::Ready;
use super::seam::{Completion, Engine, Live, Op, Open, Opened};
use crate::engines::clock::Elapsed;
use crate::failure::Failure;
use aio::{Aio, AioDone};
use std::collections::BTreeMap;
use std::io;
use std::os::fd::RawFd;

/// A worker's AIO context, its targets and what is ready to reap.
pub(crate) struct LibaioEngine {
    aio: Aio,
    fds: Vec<RawFd>,
    /// Which targets are block devices (how a trim discards).
    block: Vec<bool>,
    /// Trims done at their push, ready from the next `ready` or `enter` on: a completion made
    /// while the policy reaps a batch must not join that batch (it counted `ready` first).
    trimmed: Vec<Completion>,
    ready: Ready,
    /// A submission that failed outright (not one request's error), reported at the next enter.
    error: Option<io::Error>,
    entries: u32,
}

/// Whether `fd` was opened with O_DIRECT.
pub(crate) fn is_direct(fd: RawFd) -> io::Result<bool> {
    // SAFETY: F_GETFL reads the descriptor's flags; no memory is passed.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(flags & libc::O_DIRECT != 0)
}

impl Engine for LibaioEngine {
    const NAME: &'static str = "libaio";
    type Live<'r> = LibaioLive<'r>;

    fn open(open: &Open<'_>) -> io::Result<Opened<Self>> {
        for &fd in open.fds {
            if let Err(why) = Aio::check_direct(is_direct(fd)?) {
                return Err(io::Error::new(io::ErrorKind::InvalidInput, why));
            }
        }
        let aio = Aio::new(open.entries as usize).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!(
                    "io_setup of an AIO context for {} requests: {e} (fs.aio-max-nr may be too \
                     low: sysctl fs.aio-max-nr)",
                    open.entries
                ),
            )
        })?;
        Ok(Opened {
            engine: LibaioEngine {
                aio,
                fds: open.fds.to_vec(),
                block: crate::engines::discard::block_targets(open.fds),
                trimmed: Vec::new(),
                ready: Ready::with_capacity(open.entries as usize),
                error: None,
                entries: open.entries,
            },
            buf_index: Vec::new(),
        })
    }

    fn live(&mut self) -> LibaioLive<'_> {
        LibaioLive { e: self }
    }

    fn options(&self) -> BTreeMap<String, String> {
        let flush = if self.aio.inline_flush {
            "inline fdatasync (the kernel refused IOCB_CMD_FDSYNC)"
        } else {
            "IOCB_CMD_FDSYNC"
        };
        let reap = if self.aio.user_ring() {
            "user ring"
        } else {
            "io_getevents"
        };
        BTreeMap::from([
            ("depth".to_string(), self.entries.to_string()),
            ("flush".to_string(), flush.to_string()),
            ("reap".to_string(), reap.to_string()),
        ])
    }

    fn close(self) {}
}

/// The hot path of [`LibaioEngine`].
pub(crate) struct LibaioLive<'r> {
    e: &'r mut LibaioEngine,
}

impl LibaioLive<'_> {
    /// Moves the completions already there (no system call) and the timers due to `ready`.
    #[inline]
    fn collect(&mut self) {
        let e = &mut *self.e;
        for c in e.trimmed.drain(..) {
            e.ready.push(c, ());
        }
        let ready = &mut e.ready;
        if let Err(err) = e.aio.reap(0, None, |d| ready.push(completion(d), ())) {
            e.error.get_or_insert(err);
        }
        e.ready.fire();
    }
}

#[inline]
fn completion(d: AioDone) -> Completion {
    Completion {
        tag: d.data,
        result: i32::try_from(d.res).unwrap_or(-libc::EOVERFLOW),
    }
}

impl Live for LibaioLive<'_> {
    #[inline]
    unsafe fn push(&mut self, tag: u64, op: Op<'_>) {
        let e = &mut *self.e;
        match op {
            Op::Rw(rw) => {
                let fd = e.fds[rw.target as usize];
                if rw.write {
                    e.aio
                        .prep_write(tag, fd, rw.buf, rw.len, rw.offset, rw.dsync);
                } else {
                    e.aio.prep_read(tag, fd, rw.buf, rw.len, rw.offset);
                }
            }
            Op::Flush { target, data_only } => {
                e.aio.prep_flush(tag, e.fds[target as usize], data_only);
            }
            Op::Timer(interval) => e.ready.push_timer(tag, interval, ()),
            Op::Trim(t) => {
                let (fd, block) = (e.fds[t.target as usize], e.block[t.target as usize]);
                let result = crate::engines::discard::discard(fd, block, t.offset, t.len);
                e.trimmed.push(Completion { tag, result });
            }
        }
    }

    #[inline]
    fn submit(&mut self) {
        if let Err(err) = self.e.aio.submit() {
            self.e.error.get_or_insert(err);
        }
    }

    #[inline]
    fn enter(
        &mut self,
        clock: &Elapsed,
        _now: u64,
        _in_flight: usize,
        until: Option<u64>,
    ) -> Result<(), Failure> {
        self.submit();
        self.collect();
        let e = &mut *self.e;
        let (aio, error) = (&mut e.aio, &mut e.error);
        e.ready.wait(clock, until, aio.in_flight(), |ready, wait| {
            if let Err(err) = aio.reap(1, wait, |d| ready.push(completion(d), ())) {
                error.get_or_insert(err);
            }
        });
        match self.e.error.take() {
            None => Ok(()),
            Some(err) => Err(Failure {
                target: 0,
                offset: 0,
                errno: err.raw_os_error().unwrap_or(0),
                message: format!("libaio: {err}"),
                at_ns: clock.ns(),
                stalled: false,
            }),
        }
    }

    #[inline]
    fn ready(&mut self) -> usize {
        let e = &mut *self.e;
        for c in e.trimmed.drain(..) {
            e.ready.push(c, ());
        }
        if e.ready.is_empty() {
            let ready = &mut e.ready;
            if let Err(err) = e.aio.reap(0, None, |d| ready.push(completion(d), ())) {
                e.error.get_or_insert(err);
            }
        }
        e.ready.len()
    }

    #[inline]
    fn next(&mut self) -> Option<Completion> {
        self.e.ready.next_completion()
    }

    #[inline]
    fn consumed(&mut self) {}

    fn cancel(&mut self, tag: u64) {
        let e = &mut *self.e;
        e.aio.cancel_all();
        e.ready.cancel(tag, ());
    }
}
