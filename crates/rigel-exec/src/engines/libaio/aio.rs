//! Linux native AIO (the engine ORION uses) through its raw system calls: `io_setup`,
//! `io_submit`, `io_getevents`, `io_cancel`, `io_destroy`, with the kernel's `iocb`/`io_event`
//! layouts defined here (no libaio library needed).
//!
//! Its known limits, handled here:
//! - Buffered I/O is not asynchronous: the kernel runs it inside `io_submit`, so the queue depth
//!   asked would not be held. [`Aio::check_direct`] refuses buffered targets with a sentence that
//!   says so (the executor's `auto` never picks libaio for buffered I/O).
//! - Flushes: `IOCB_CMD_FDSYNC` is asynchronous on kernels 4.18+ (the kernel runs `fdatasync` on
//!   a workqueue); where the kernel refuses it (EINVAL, older kernels), the flush is an inline
//!   `fdatasync` whose completion is queued as if the kernel had returned it: the worker's loop
//!   waits for it meanwhile (stated in the engine's options, `flush = "inline"`).
//! - Durable writes use `RWF_DSYNC` in `aio_rw_flags` (4.13+).
//!
//! Completions are read from the ring the kernel shares with user space (the `aio_ring` at the
//! context's address, as fio's `userspace_reap`) when some are already there, so a turn that
//! finds completions waiting pays no system call; `io_getevents` only when it must wait.

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU32, Ordering, fence};
use std::time::Duration;

/// `IOCB_CMD_*` of `linux/aio_abi.h`.
const CMD_PREAD: u16 = 0;
const CMD_PWRITE: u16 = 1;
const CMD_FSYNC: u16 = 2;
const CMD_FDSYNC: u16 = 3;
/// `AIO_RING_MAGIC`: the shared ring's header is the layout below.
const RING_MAGIC: u32 = 0xa10a_10a1;

/// `struct iocb` (little-endian layout: `aio_key` before `aio_rw_flags`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct Iocb {
    data: u64,
    key: u32,
    rw_flags: i32,
    opcode: u16,
    reqprio: i16,
    fildes: u32,
    buf: u64,
    nbytes: u64,
    offset: i64,
    reserved2: u64,
    flags: u32,
    resfd: u32,
}

/// `struct io_event`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

/// `struct aio_ring`'s header, which the kernel maps at the context's address.
#[repr(C)]
struct RingHeader {
    id: u32,
    nr: u32,
    head: AtomicU32,
    tail: AtomicU32,
    magic: u32,
    compat_features: u32,
    incompat_features: u32,
    header_length: u32,
}

const _: () = assert!(std::mem::size_of::<Iocb>() == 64);
const _: () = assert!(std::mem::size_of::<IoEvent>() == 32);
const _: () = assert!(std::mem::size_of::<RingHeader>() == 32);

/// What a completion carries: the request's tag and its result (bytes, or -errno).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AioDone {
    pub data: u64,
    pub res: i64,
}

/// One AIO context with room for `depth` requests in flight, and the requests being prepared.
pub struct Aio {
    ctx: u64,
    /// The control blocks, one per request in flight, never moved (the vector is never
    /// resized): the kernel reads one at `io_submit`, `io_cancel` names it by its address, and a
    /// completion's `obj` is that address, which tells which block is free again.
    iocbs: Vec<Iocb>,
    /// Blocks not in use (indices into `iocbs`).
    free: Vec<u32>,
    /// Slots prepared since the last submission, in order.
    queued: Vec<*mut Iocb>,
    /// Completions read by `io_getevents`.
    events: Vec<IoEvent>,
    /// Requests submitted and not reaped.
    in_flight: usize,
    /// Flushes the kernel refused asynchronously, done inline (their completions wait here).
    inline_done: Vec<AioDone>,
    /// The kernel refused `IOCB_CMD_FDSYNC` once: flushes are inline from then on.
    pub inline_flush: bool,
    /// The ring's header is the layout above (else completions come through `io_getevents`).
    user_ring: bool,
}

// SAFETY: the raw pointers in `queued` point into `iocbs`, owned by the same value, and the AIO
// context belongs to the process, not to a thread: moving the whole to another thread is sound.
unsafe impl Send for Aio {}

impl Aio {
    /// A context for `depth` requests in flight (request slots `0..depth`).
    pub fn new(depth: usize) -> io::Result<Aio> {
        let depth = depth.max(1);
        let mut ctx: u64 = 0;
        // SAFETY: io_setup writes the new context's id to `ctx`, a live u64 (aio_context_t).
        let r = unsafe { libc::syscall(libc::SYS_io_setup, depth as libc::c_long, &mut ctx) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a context made by io_setup is the address of its mapped `aio_ring`, readable
        // for the context's life; its first 32 bytes are the header.
        let magic = unsafe { (*(ctx as *const RingHeader)).magic };
        // SAFETY: as above.
        let incompat = unsafe { (*(ctx as *const RingHeader)).incompat_features };
        Ok(Aio {
            ctx,
            iocbs: vec![Iocb::default(); depth],
            free: (0..depth as u32).rev().collect(),
            queued: Vec::with_capacity(depth),
            events: vec![IoEvent::default(); depth],
            in_flight: 0,
            inline_done: Vec::new(),
            inline_flush: false,
            user_ring: magic == RING_MAGIC && incompat == 0,
        })
    }

    /// Refuses a buffered target: the kernel would run each request inside `io_submit`.
    pub fn check_direct(direct: bool) -> Result<(), String> {
        if direct {
            return Ok(());
        }
        Err(
            "engine \"libaio\" needs O_DIRECT (buffered = false): Linux AIO runs buffered I/O \
             synchronously inside io_submit, so the queue depth asked would not be held; use \
             engine = \"psync\" or \"io_uring\" for buffered I/O"
                .to_string(),
        )
    }

    /// Requests submitted and not yet reaped.
    pub fn in_flight(&self) -> usize {
        self.in_flight + self.queued.len()
    }

    /// Prepares a read of `len` bytes at `offset` into `buf` tagged `tag` (submitted by
    /// `submit`).
    ///
    /// The buffer must stay valid until the request's completion is reaped (or the context is
    /// dropped, which waits for every request).
    #[inline]
    pub fn prep_read(&mut self, tag: u64, fd: RawFd, buf: *mut u8, len: u32, offset: u64) {
        self.prep(tag, CMD_PREAD, fd, buf, len, offset, 0);
    }

    /// Prepares a write tagged `tag` (`dsync`: complete once durable, `RWF_DSYNC`).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn prep_write(
        &mut self,
        tag: u64,
        fd: RawFd,
        buf: *const u8,
        len: u32,
        offset: u64,
        dsync: bool,
    ) {
        let flags = if dsync { libc::RWF_DSYNC } else { 0 };
        self.prep(tag, CMD_PWRITE, fd, buf.cast_mut(), len, offset, flags);
    }

    /// Prepares a flush of `fd` tagged `tag` (`fdatasync` when `data_only`, else `fsync`);
    /// inline when the kernel refuses it asynchronously (see the module's note).
    pub fn prep_flush(&mut self, tag: u64, fd: RawFd, data_only: bool) {
        if self.inline_flush {
            self.flush_inline(tag, fd, data_only);
        } else {
            let op = if data_only { CMD_FDSYNC } else { CMD_FSYNC };
            self.prep(tag, op, fd, std::ptr::null_mut(), 0, 0, 0);
        }
    }

    /// Whether completions are read from the ring mapped to user space.
    pub fn user_ring(&self) -> bool {
        self.user_ring
    }

    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn prep(&mut self, tag: u64, op: u16, fd: RawFd, buf: *mut u8, len: u32, off: u64, rw: i32) {
        let i = loop {
            if let Some(i) = self.free.pop() {
                break i as usize;
            }
            // More requests than the context holds (the caller's depth was exceeded): hand the
            // queue to the kernel and wait for a block to come free.
            if let Err(e) = self.submit().and_then(|()| {
                let n = self.wait_events(1, None)?;
                self.pending_events(n);
                Ok(())
            }) {
                self.inline_done.push(AioDone {
                    data: tag,
                    res: -i64::from(e.raw_os_error().unwrap_or(libc::EIO)),
                });
                return;
            }
        };
        let cb = &mut self.iocbs[i];
        *cb = Iocb {
            data: tag,
            rw_flags: rw,
            opcode: op,
            fildes: fd as u32,
            buf: buf as u64,
            nbytes: u64::from(len),
            offset: off as i64,
            ..Iocb::default()
        };
        self.queued.push(cb);
    }

    fn flush_inline(&mut self, tag: u64, fd: RawFd, data_only: bool) {
        // SAFETY: fdatasync/fsync on a descriptor the caller keeps open; no memory is passed.
        let r = unsafe {
            if data_only {
                libc::fdatasync(fd)
            } else {
                libc::fsync(fd)
            }
        };
        let res = if r < 0 {
            -i64::from(
                io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EIO),
            )
        } else {
            0
        };
        self.inline_done.push(AioDone { data: tag, res });
    }

    /// The control block a completion's `obj` (its address) names is free again.
    #[inline]
    fn release(&mut self, obj: u64) {
        let i = (obj as usize - self.iocbs.as_ptr() as usize) / std::mem::size_of::<Iocb>();
        debug_assert!(i < self.iocbs.len());
        self.free.push(i as u32);
    }

    /// The index of the block `cb` points to.
    fn index(&self, cb: *mut Iocb) -> u32 {
        ((cb as usize - self.iocbs.as_ptr() as usize) / std::mem::size_of::<Iocb>()) as u32
    }

    /// Hands every prepared request to the kernel. A request the kernel refuses at submission
    /// completes with its error (as io_uring reports one), except a refused asynchronous flush,
    /// which is done inline from then on.
    pub fn submit(&mut self) -> io::Result<()> {
        let mut done = 0;
        while done < self.queued.len() {
            let rest = &mut self.queued[done..];
            // SAFETY: every pointer is a live `iocb` of `self.iocbs` (not moved: the vector is
            // never resized), whose buffer the caller keeps valid until its completion; the
            // kernel copies the control blocks during the call.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx,
                    rest.len() as libc::c_long,
                    rest.as_mut_ptr(),
                )
            };
            if r > 0 {
                done += r as usize;
                self.in_flight += r as usize;
                continue;
            }
            let err = if r == 0 {
                libc::EAGAIN
            } else {
                io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EIO)
            };
            if err == libc::EINTR {
                continue;
            }
            if err == libc::EAGAIN {
                // The context is full (more queued than its depth): wait for room.
                if self.in_flight == 0 {
                    return Err(io::Error::from_raw_os_error(libc::EAGAIN));
                }
                let n = self.wait_events(1, None)?;
                self.pending_events(n);
                continue;
            }
            // The first request was refused: it completes with the error (a flush the kernel
            // cannot do asynchronously is done inline), and the rest go on.
            // SAFETY: the pointer is a live iocb of `self.iocbs`, read only.
            let cb = unsafe { *self.queued[done] };
            self.free.push(self.index(self.queued[done]));
            let flush = cb.opcode == CMD_FDSYNC || cb.opcode == CMD_FSYNC;
            if flush && err == libc::EINVAL {
                self.inline_flush = true;
                self.flush_inline(cb.data, cb.fildes as RawFd, cb.opcode == CMD_FDSYNC);
            } else {
                self.inline_done.push(AioDone {
                    data: cb.data,
                    res: -i64::from(err),
                });
            }
            done += 1;
        }
        self.queued.clear();
        Ok(())
    }

    /// Completions read by `wait_events` while submitting, kept for the next reap.
    fn pending_events(&mut self, n: usize) {
        for k in 0..n {
            let e = self.events[k];
            self.release(e.obj);
            self.inline_done.push(AioDone {
                data: e.data,
                res: e.res,
            });
        }
        self.in_flight -= n;
    }

    /// Reaps completions: at least `min` (bounded by `timeout`), every one already there. Calls
    /// `each` once per completion; returns how many.
    #[inline]
    pub fn reap(
        &mut self,
        min: usize,
        timeout: Option<Duration>,
        mut each: impl FnMut(AioDone),
    ) -> io::Result<usize> {
        let mut n = 0;
        for d in self.inline_done.drain(..) {
            each(d);
            n += 1;
        }
        n += self.reap_user(&mut each);
        if n < min && self.in_flight > 0 {
            let got = self.wait_events((min - n).min(self.in_flight), timeout)?;
            for k in 0..got {
                let e = self.events[k];
                self.release(e.obj);
                each(AioDone {
                    data: e.data,
                    res: e.res,
                });
            }
            self.in_flight -= got;
            n += got;
            n += self.reap_user(&mut each);
        }
        Ok(n)
    }

    /// Takes the completions already in the shared ring without a system call.
    #[inline]
    fn reap_user(&mut self, each: &mut impl FnMut(AioDone)) -> usize {
        if !self.user_ring || self.in_flight == 0 {
            return 0;
        }
        // SAFETY: the context's address is its mapped ring header (checked by its magic at
        // setup), alive until io_destroy in drop; head and tail are read and written atomically,
        // as the kernel does under its lock.
        let ring = unsafe { &*(self.ctx as *const RingHeader) };
        let nr = ring.nr;
        let mut head = ring.head.load(Ordering::Acquire);
        let tail = ring.tail.load(Ordering::Acquire);
        // The kernel wrote the events before it published the tail.
        fence(Ordering::Acquire);
        let events = (self.ctx as usize + std::mem::size_of::<RingHeader>()) as *const IoEvent;
        let mut n = 0;
        while head != tail {
            // SAFETY: head < nr, so the event lies inside the ring's `nr` events after the
            // header; the kernel does not write it again until head moves past it.
            let e = unsafe { std::ptr::read_volatile(events.add(head as usize)) };
            self.release(e.obj);
            each(AioDone {
                data: e.data,
                res: e.res,
            });
            head = (head + 1) % nr;
            n += 1;
        }
        if n > 0 {
            ring.head.store(head, Ordering::Release);
            self.in_flight -= n;
        }
        n
    }

    /// `io_getevents` for at least `min` completions (up to the buffer), `timeout` bounding the
    /// wait; returns how many are in `self.events`.
    fn wait_events(&mut self, min: usize, timeout: Option<Duration>) -> io::Result<usize> {
        let ts = timeout.map(|t| libc::timespec {
            tv_sec: t.as_secs() as libc::time_t,
            tv_nsec: t.subsec_nanos() as libc::c_long,
        });
        let tsp = ts
            .as_ref()
            .map_or(std::ptr::null(), |t| t as *const libc::timespec);
        loop {
            // SAFETY: `events` holds `len` live io_events the kernel fills; `tsp` is null or a
            // live timespec read during the call.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_getevents,
                    self.ctx,
                    min as libc::c_long,
                    self.events.len() as libc::c_long,
                    self.events.as_mut_ptr(),
                    tsp,
                )
            };
            if r >= 0 {
                return Ok(r as usize);
            }
            let e = io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EINTR) {
                return Err(e);
            }
        }
    }

    /// Asks the kernel to cancel every request in flight. Linux cancels none of the reads,
    /// writes and flushes (io_cancel: EINVAL; only a few drivers' requests can be withdrawn),
    /// so each completes as it finishes; a cancelled one would complete with -ECANCELED.
    pub fn cancel_all(&mut self) {
        let mut busy = vec![true; self.iocbs.len()];
        for &i in &self.free {
            busy[i as usize] = false;
        }
        for (i, busy) in busy.into_iter().enumerate() {
            if !busy {
                continue;
            }
            let mut ev = IoEvent::default();
            // SAFETY: the block of a submitted request (the kernel matches its address and
            // key, and refuses any other); `ev` is a live io_event the kernel may fill.
            unsafe {
                libc::syscall(
                    libc::SYS_io_cancel,
                    self.ctx,
                    &mut self.iocbs[i] as *mut Iocb,
                    &mut ev,
                )
            };
        }
    }
}

impl Drop for Aio {
    fn drop(&mut self) {
        // io_destroy cancels what it can and waits for every request in flight to complete, so
        // no buffer is written after the engine is gone.
        // SAFETY: the context this value made, destroyed once.
        unsafe { libc::syscall(libc::SYS_io_destroy, self.ctx) };
    }
}

#[cfg(test)]
#[path = "aio_tests.rs"]
pub(crate) mod tests;
