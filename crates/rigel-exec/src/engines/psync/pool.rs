//! The `psync` engine's core: plain blocking system calls, one I/O at a time per thread, as fio's
//! `ioengine=psync` (depth = threads) and t/io_uring's `-S1` sync path: `pread` for reads,
//! `pwrite` for writes, `pwritev2(RWF_DSYNC)` for durable writes, `fdatasync` for flushes. It
//! needs nothing from the kernel but those calls, so it runs where io_uring and AIO are refused.
//!
//! A worker holding one I/O in flight runs it inline (the worker's thread is the I/O's thread:
//! no hand-over, fio's model exactly); a worker holding more starts one thread per slot
//! ([`Pool`]), up to [`MAX_THREADS`] per worker (`rigel_plan::limits::MAX_PSYNC_THREADS`: the
//! plan refuses an `engine = "psync"` class above it; here it is checked again for a class
//! `auto` turned into psync where the run runs).
//!
//! Clocked as io_uring is: the caller stamps a request when it queues it and a completion when
//! it reaps it (one clock reading per reap), so latency includes what the engine costs.

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};

/// The most I/O threads the psync engine starts for one worker (the plan's limit).
pub const MAX_THREADS: usize = rigel_plan::limits::MAX_PSYNC_THREADS as usize;

/// What a request does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncOp {
    Read,
    /// A write; `dsync`: complete once durable (`RWF_DSYNC`).
    Write {
        dsync: bool,
    },
    /// `fdatasync` (`data_only`) or `fsync` of the descriptor.
    Flush {
        data_only: bool,
    },
    /// A discard of `len` bytes at the request's offset (`discard::discard`: `BLKDISCARD` on a
    /// block device, a hole punched in a file); 0 when done.
    Trim {
        block: bool,
        len: u64,
    },
}

/// One request: `len` bytes at `offset` of `fd` to or from `buf`, tagged `data`.
#[derive(Clone, Copy, Debug)]
pub struct SyncReq {
    pub op: SyncOp,
    pub fd: RawFd,
    pub buf: *mut u8,
    pub len: u32,
    pub offset: u64,
    pub data: u64,
}

// SAFETY: a request only carries its buffer's address to the thread that runs it; the caller
// keeps the buffer valid and untouched until the request's completion is reaped (as for an
// io_uring or AIO request).
unsafe impl Send for SyncReq {}

/// A finished request: its tag and result (bytes transferred, 0 for a flush, or -errno).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SyncDone {
    pub data: u64,
    pub res: i64,
}

/// Carries out `req` with one blocking system call; the result as io_uring gives it.
pub fn perform(req: &SyncReq) -> i64 {
    let (buf, len, off) = (req.buf, req.len as usize, req.offset as libc::off_t);
    let r = match req.op {
        SyncOp::Trim { block, len } => {
            return i64::from(crate::engines::discard::discard(
                req.fd, block, req.offset, len,
            ));
        }
        // SAFETY: the caller keeps [buf, buf + len) valid and unused by anything else until the
        // request's completion is reaped; fd is a descriptor it keeps open.
        SyncOp::Read => unsafe { libc::pread(req.fd, buf.cast(), len, off) as i64 },
        // SAFETY: as above (the buffer is only read).
        SyncOp::Write { dsync: false } => unsafe {
            libc::pwrite(req.fd, buf.cast_const().cast(), len, off) as i64
        },
        SyncOp::Write { dsync: true } => {
            let iov = libc::iovec {
                iov_base: buf.cast(),
                iov_len: len,
            };
            // SAFETY: one live iovec over the caller's buffer, as above.
            unsafe { libc::pwritev2(req.fd, &iov, 1, off, libc::RWF_DSYNC) as i64 }
        }
        // SAFETY: no memory is passed; fd is open.
        SyncOp::Flush { data_only: true } => unsafe { i64::from(libc::fdatasync(req.fd)) },
        // SAFETY: as above.
        SyncOp::Flush { data_only: false } => unsafe { i64::from(libc::fsync(req.fd)) },
    };
    if r < 0 {
        -i64::from(
            io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO),
        )
    } else {
        r
    }
}

/// The psync engine of one worker: inline for one slot, a [`Pool`] for more.
pub struct Psync {
    pool: Option<Pool>,
    queued: Vec<SyncReq>,
    done: Vec<SyncDone>,
}

impl Psync {
    /// An engine for `slots` requests in flight at once.
    pub fn new(slots: usize) -> io::Result<Psync> {
        Ok(Psync {
            pool: if slots > 1 {
                Some(Pool::new(slots)?)
            } else {
                None
            },
            queued: Vec::with_capacity(slots),
            done: Vec::with_capacity(slots),
        })
    }

    /// Threads this engine runs I/O on besides the worker's (0 when inline).
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or(0, |p| p.threads.len())
    }

    /// Queues `req` (carried out by `submit`).
    #[inline]
    pub fn prep(&mut self, req: SyncReq) {
        self.queued.push(req);
    }

    /// Starts every queued request: inline, each runs to its end here; else each goes to an
    /// idle thread.
    #[inline]
    pub fn submit(&mut self) {
        match &mut self.pool {
            None => {
                for req in self.queued.drain(..) {
                    self.done.push(SyncDone {
                        data: req.data,
                        res: perform(&req),
                    });
                }
            }
            Some(pool) => {
                for req in self.queued.drain(..) {
                    pool.start(req);
                }
            }
        }
    }

    /// Requests started and not reaped.
    pub fn in_flight(&self) -> usize {
        self.done.len() + self.queued.len() + self.pool.as_ref().map_or(0, |p| p.busy)
    }

    /// Reaps at least `min` completions (bounded by `timeout`) and any already finished; calls
    /// `each` once per completion and returns how many.
    #[inline]
    pub fn reap(
        &mut self,
        min: usize,
        timeout: Option<Duration>,
        mut each: impl FnMut(SyncDone),
    ) -> usize {
        let mut n = self.done.len();
        for d in self.done.drain(..) {
            each(d);
        }
        if let Some(pool) = &mut self.pool {
            n += pool.reap(min.saturating_sub(n), timeout, &mut each);
        }
        n
    }
}

/// One thread per slot, each carrying out one request at a time.
pub struct Pool {
    threads: Vec<JoinHandle<()>>,
    shared: Arc<PoolShared>,
    /// Threads with no request (indices into `threads`).
    idle: Vec<usize>,
    /// Requests handed to a thread and not yet reaped.
    busy: usize,
    /// Completions taken from the shared list, not yet handed out (kept to reuse its memory).
    taken: Vec<(usize, SyncDone)>,
}

struct PoolShared {
    /// Each thread's next request.
    mail: Vec<Mutex<Option<SyncReq>>>,
    /// Finished requests, with the thread that ran each.
    done: Mutex<Vec<(usize, SyncDone)>>,
    /// The reaping thread, and whether it is (about to be) parked waiting for a completion.
    reaper: Thread,
    waiting: AtomicBool,
    shutdown: AtomicBool,
}

impl Pool {
    /// `n` threads (at most [`MAX_THREADS`]), idle.
    pub fn new(n: usize) -> io::Result<Pool> {
        if n > MAX_THREADS {
            return Err(io::Error::other(format!(
                "engine \"psync\" runs one thread per I/O in flight, at most {MAX_THREADS}: \
                 {n} asked; lower the load or use io_uring or libaio"
            )));
        }
        let shared = Arc::new(PoolShared {
            mail: (0..n).map(|_| Mutex::new(None)).collect(),
            done: Mutex::new(Vec::with_capacity(n)),
            reaper: std::thread::current(),
            waiting: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
        });
        let mut threads = Vec::with_capacity(n);
        for i in 0..n {
            let s = Arc::clone(&shared);
            let t = std::thread::Builder::new()
                .name(format!("rigel-psync-{i}"))
                .spawn(move || io_thread(i, &s));
            match t {
                Ok(t) => threads.push(t),
                Err(e) => {
                    shutdown(&shared, &mut threads, |_| true);
                    return Err(e);
                }
            }
        }
        Ok(Pool {
            threads,
            shared,
            idle: (0..n).rev().collect(),
            busy: 0,
            taken: Vec::with_capacity(n),
        })
    }

    /// Hands `req` to an idle thread (the caller never has more requests than threads).
    #[inline]
    fn start(&mut self, req: SyncReq) {
        let Some(t) = self.idle.pop() else {
            // More requests than threads (a flush beside its slot's write, say): run it here
            // rather than lose it; the worker waits for it meanwhile.
            let res = perform(&req);
            lock(&self.shared.done).push((
                usize::MAX,
                SyncDone {
                    data: req.data,
                    res,
                },
            ));
            return;
        };
        *lock(&self.shared.mail[t]) = Some(req);
        self.busy += 1;
        self.threads[t].thread().unpark();
    }

    /// Reaps at least `min` completions within `timeout` (none: no bound), and any others
    /// already finished.
    fn reap(
        &mut self,
        min: usize,
        timeout: Option<Duration>,
        each: &mut impl FnMut(SyncDone),
    ) -> usize {
        let until = timeout.map(|t| Instant::now() + t);
        let mut n = 0;
        loop {
            std::mem::swap(&mut *lock(&self.shared.done), &mut self.taken);
            for (t, d) in self.taken.drain(..) {
                if t != usize::MAX {
                    self.idle.push(t);
                    self.busy -= 1;
                }
                each(d);
                n += 1;
            }
            if n >= min || self.busy == 0 {
                return n;
            }
            // Announce the wait, then look again: a thread finishing in between sees the flag
            // and unparks us (an unpark before the park makes it return at once).
            self.shared.waiting.store(true, Ordering::SeqCst);
            if !lock(&self.shared.done).is_empty() {
                self.shared.waiting.store(false, Ordering::SeqCst);
                continue;
            }
            match until {
                None => std::thread::park(),
                Some(u) => {
                    let left = u.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        self.shared.waiting.store(false, Ordering::SeqCst);
                        return n;
                    }
                    std::thread::park_timeout(left);
                }
            }
            self.shared.waiting.store(false, Ordering::SeqCst);
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let idle = std::mem::take(&mut self.idle);
        shutdown(&self.shared, &mut self.threads, |t| idle.contains(&t));
    }
}

/// Tells every thread to end and joins those `idle` says hold no request; a thread still
/// blocked in one is left to end on its own after it (it holds only its `Arc`; the caller keeps
/// the request's buffer: the worker leaks its engine and arena when a drain could not prove every request done).
fn shutdown(shared: &PoolShared, threads: &mut Vec<JoinHandle<()>>, idle: impl Fn(usize) -> bool) {
    shared.shutdown.store(true, Ordering::SeqCst);
    for t in threads.iter() {
        t.thread().unpark();
    }
    for (i, t) in threads.drain(..).enumerate() {
        if idle(i) {
            let _ = t.join();
        }
    }
}

/// A mutex's guard; a poisoned lock (a panicking I/O thread) still holds consistent data here
/// (a request or a list of completions), so it is used as is.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An I/O thread: waits for a request, carries it out, reports it, until shut down.
fn io_thread(i: usize, s: &PoolShared) {
    loop {
        let req = lock(&s.mail[i]).take();
        match req {
            Some(req) => {
                let res = perform(&req);
                lock(&s.done).push((
                    i,
                    SyncDone {
                        data: req.data,
                        res,
                    },
                ));
                if s.waiting.swap(false, Ordering::SeqCst) {
                    s.reaper.unpark();
                }
            }
            None if s.shutdown.load(Ordering::SeqCst) => return,
            None => std::thread::park(),
        }
    }
}

#[cfg(test)]
#[path = "pool_tests.rs"]
mod tests;
