//! The engine seam's contract: the one interface through which the policy (closed and open loops, pacing,
//! think and burst, flush groups, verification, the window, the recorder) reaches the kernel.
//!
//! An engine comes in two parts. [`Engine`] is what a worker owns for a whole point (a ring and
//! its registrations, a thread pool, an AIO context): built by [`Engine::open`], borrowed as a
//! [`Live`] for the loop and again for the drain, and released by [`Engine::close`] once the
//! drain proved nothing is in flight (or leaked when it could not). [`Live`] is the hot path:
//! queue requests, hand them to the kernel, wait, and reap completions.
//!
//! The policy is generic over the engine (static dispatch: one monomorphised loop per engine, no
//! virtual call or allocation per I/O); a worker picks its engine once, at its start.
//!
//! # Contract shared by every method
//!
//! - **Requests and tags.** Every request carries a `tag` (the policy's `Tag::user_data`): any
//!   `u64`, returned unchanged in the request's [`Completion`]. Every request pushed yields exactly
//!   one completion, whatever happens to it (done, failed, cancelled), so the policy can count
//!   what is in flight. The engine never invents completions of its own (a request the engine
//!   makes for itself, if any, is reaped and swallowed inside it), except the cancel's, which
//!   carries the tag given to [`Live::cancel`].
//! - **Buffers.** The policy owns the buffers (one arena per worker, one range per slot); an
//!   engine only borrows a request's range from its push to its completion and never frees,
//!   copies or keeps it after. The policy never touches a range while a request on it is in flight
//!   and never frees the arena before the drain proved every request completed.
//! - **Results.** [`Completion::result`] is the kernel's convention: bytes transferred (a short
//!   transfer is the policy's to requeue), 0 for a flush, a trim or a timer that completed, `-errno` on
//!   failure (`-EINTR`/`-EAGAIN` are requeued by the policy; `-ECANCELED` after a cancel).
//! - **Times.** The policy times completions itself: it reads its clock (`clock::Elapsed`) once
//!   when [`Live::enter`] returns and uses that reading for every completion reaped in that
//!   turn, and for the submission time of every request it then pushes. An engine must therefore
//!   make a completion ready the moment it happens and wake a waiting [`Live::enter`] at once
//!   (a psync thread signals the worker as its `pread` returns; it must not batch completions
//!   behind a timer), or the latencies are late by the delay.
//! - **Writes and durability.** A write with [`Rw::dsync`] completes only once durable, as
//!   `RWF_DSYNC` gives it (io_uring's `rw_flags`, `pwritev2(.., RWF_DSYNC)`, libaio's
//!   `aio_rw_flags`). A flush is its own request, [`Op::Flush`]: `fdatasync` of one target
//!   (`data_only`) or `fsync`; the policy sends a group's flushes one target at a time.
//! - **Trims.** [`Op::Trim`] discards a byte range of one target and references no memory: on a
//!   block device the block layer's discard (io_uring: `BLOCK_URING_CMD_DISCARD`, Linux 6.12+;
//!   elsewhere `BLKDISCARD`), on a file `fallocate(PUNCH_HOLE | KEEP_SIZE)` (`discard`).
//!   It completes with 0 when done, `-errno` on failure; an engine with no asynchronous discard
//!   (libaio, io_uring before 6.12) runs it at its push and makes its completion ready at once,
//!   as fio does.
//! - **Timers.** [`Op::Timer`] completes (result 0 or `-ETIME`, both fine) after its interval:
//!   the policy uses timers for think times, burst idles and the tick that bounds every wait
//!   (`tick.rs`: a stop request and a stalled I/O are seen within 100 ms). An engine without
//!   kernel timers keeps them itself and makes [`Live::enter`] return when one falls due.
//! - **Batching.** [`Live::push`] queues; [`Live::submit`] and [`Live::enter`] hand what is
//!   queued to the kernel. An engine that cannot batch (psync) may start each request at its push
//!   (then `submit` does nothing); the policy never relies on a request not having started.
//! - **Errors.** An engine never panics on what the kernel or the user can fail: setup errors
//!   come back from [`Engine::open`], a failing wait from [`Live::enter`] (as a `Failure` that
//!   fails the point), an I/O's error in its completion.

use super::arena::Arena;
use crate::engines::clock::Elapsed;
use crate::failure::Failure;
use crate::options::ExecOptions;
use std::collections::BTreeMap;
use std::io;
use std::os::fd::RawFd;

/// A wait the policy asks for (a think time, a burst's idle, the tick), made once and kept by
/// its owner (a class, a static) while requests use it: the kernel's form is built once, not per
/// request.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Interval {
    #[allow(dead_code)] // see `ns()`
    ns: u64,
    ts: ::io_uring::types::Timespec,
}

impl Interval {
    pub(crate) const fn from_ns(ns: u64) -> Interval {
        Interval {
            ns,
            ts: ::io_uring::types::Timespec::new()
                .sec(ns / 1_000_000_000)
                .nsec((ns % 1_000_000_000) as u32),
        }
    }

    /// The interval in ns (engines that keep their timers themselves).
    #[allow(dead_code)] // read by the psync and libaio engines (eng-sync) and the fake engine
    #[inline]
    pub(crate) fn ns(&self) -> u64 {
        self.ns
    }

    /// The interval as the kernel's timespec (io_uring's timeout request).
    #[inline]
    pub(crate) fn timespec(&self) -> &::io_uring::types::Timespec {
        &self.ts
    }
}

/// A read or a write of one slot's buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rw {
    /// The target's index in the point's volume (`Open::fds`).
    pub target: u32,
    /// Byte offset in the target.
    pub offset: u64,
    /// The slot's buffer range in the arena (`Arena::range`), `len` bytes.
    pub buf: *mut u8,
    pub len: u32,
    /// The registered buffer holding the range (`Opened::buf_index`; 0 when none).
    pub buf_index: u16,
    pub write: bool,
    /// A write that completes only once durable (`RWF_DSYNC`); ignored on reads.
    pub dsync: bool,
}

/// What a request asks of the engine.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op<'a> {
    Rw(Rw),
    /// `fdatasync` (`data_only`) or `fsync` of one target.
    Flush {
        target: u32,
        data_only: bool,
    },
    /// Completes after the interval (see the module's contract on timers).
    Timer(&'a Interval),
    /// Discards `len` bytes at `offset` of one target (see the module's contract on trims).
    Trim(Trim),
}

/// A discard of a byte range of one target (a trim class's request, a replayed discard).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Trim {
    /// The target's index in the point's volume (`Open::fds`).
    pub target: u32,
    /// Byte offset in the target, and the length (both multiples of the target's logical block
    /// on a block device, or the kernel refuses with `-EINVAL`).
    pub offset: u64,
    pub len: u64,
}

/// One finished request. Made only by the engines (its fields are theirs), so a completion the
/// policy hands to `SlotBufs::returned` is a real one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Completion {
    /// The tag the request was pushed with.
    pub(super) tag: u64,
    /// Bytes transferred, 0, or `-errno` (see the module's contract on results).
    pub(super) result: i32,
}

impl Completion {
    /// The tag the request was pushed with.
    #[inline(always)]
    pub(crate) fn tag(&self) -> u64 {
        self.tag
    }

    /// Bytes transferred, 0, or `-errno`.
    #[inline(always)]
    pub(crate) fn result(&self) -> i32 {
        self.result
    }
}

/// The tags of a slot's read or write pushed by `SlotBufs::push_rw`: the slot's index with this
/// marker (bits 63..60 = 0001), which no tag of the policy's has (its indexes are far below bit
/// 60, its marked tags set bit 61 or 62, its tick and cancel all four). `SlotBufs::returned`
/// takes it off.
pub(crate) const SLOT_RW: u64 = 1 << 60;

/// Whether `tag` is a slot's read or write (`SLOT_RW`).
#[inline(always)]
pub(crate) const fn is_slot_rw(tag: u64) -> bool {
    tag >> 60 == 1
}

/// What a worker's engine is built for.
pub(crate) struct Open<'a> {
    /// Requests the worker keeps in flight at most: its slots, plus its timers (tick, thinks,
    /// idles). An engine sizes its queues (and a thread pool its threads) for this many.
    pub entries: u32,
    /// The point's targets, in volume order (`Rw::target` indexes them).
    pub fds: &'a [RawFd],
    /// The worker's buffer arena and its slots' ranges in it (offset, length; arena order), for
    /// engines that register buffers.
    pub arena: &'a Arena,
    pub buffers: &'a [(usize, usize)],
    /// Whether to register buffers and files where the engine can.
    pub options: &'a ExecOptions,
    /// `sqpoll = true`: io_uring's kernel submission thread (other engines have none; the plan
    /// refuses sqpoll on them).
    pub sqpoll: Option<rigel_plan::SqPoll>,
    /// `polled = true`: io_uring's polled ring (IORING_SETUP_IOPOLL), which the worker runs on
    /// `io_uring::polled::PolledEngine`.
    pub polled: bool,
}

/// A built engine and what the policy needs from its setup.
pub(crate) struct Opened<E> {
    pub engine: E,
    /// Each slot's registered buffer index (`Rw::buf_index`), or empty when buffers are not
    /// registered.
    pub buf_index: Vec<u16>,
}

/// Which setup flags an io_uring got (the strongest set the kernel accepted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RingMode {
    /// SINGLE_ISSUER | DEFER_TASKRUN | COOP_TASKRUN (kernel 6.1+).
    Deferred,
    /// COOP_TASKRUN only (5.19+).
    Coop,
    /// No optional flags.
    Plain,
}

/// What an engine's setup got and counted, for the point's diagnostics and notes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Facts {
    /// io_uring: the ring's setup flags.
    pub mode: Option<RingMode>,
    /// io_uring: whether the buffers and the files were registered (`None`: the engine has no
    /// such thing, and no note is due).
    pub fixed_buffers: Option<bool>,
    pub fixed_files: Option<bool>,
    /// io_uring: submit-only entries made, and the turns whose completions they found.
    pub submit_only: u64,
    pub inline_turns: u64,
}

/// A worker's engine for one point: built once, lent to the loop and the drain as a [`Live`].
pub(crate) trait Engine: Sized {
    /// The engine's name in results (`EngineRecord::name`): `io_uring`, `libaio`, `psync`.
    const NAME: &'static str;

    /// The hot-path handle, borrowing the engine for a loop or a drain.
    type Live<'r>: Live
    where
        Self: 'r;

    /// Builds the engine for one worker (on the worker's thread). A refusal (no io_uring, no AIO
    /// context, no thread) is an error the point reports, never a panic.
    fn open(open: &Open<'_>) -> io::Result<Opened<Self>>;

    /// Lends the hot-path handle. Requests pushed through one handle and not yet completed are
    /// still in flight in the next (the loop's and the drain's are two handles).
    fn live(&mut self) -> Self::Live<'_>;

    /// The engine's options as results record them (`EngineRecord::options`): e.g. io_uring's
    /// `mode`, `registered_buffers`, `registered_files`, `sq_entries`; psync's `threads`.
    fn options(&self) -> BTreeMap<String, String>;

    /// What the engine's setup got and its counters, for the point's diagnostics (fields an
    /// engine has no use for stay at their default).
    fn facts(&self) -> Facts {
        Facts::default()
    }

    /// Releases the engine after a drain proved nothing is in flight (unregister, close, join
    /// threads), before the policy reuses or frees the arena. Without a proof the worker leaks
    /// the engine instead (never calls this, never drops it).
    fn close(self);
}

/// The hot path of an engine (see the module's contract).
pub(crate) trait Live {
    /// Queues a request; it may not reach the kernel before the next [`Live::submit`] or
    /// [`Live::enter`] (an engine that cannot batch may start it at once). Queues without
    /// failing: a full queue is handed to the kernel first.
    ///
    /// The policy does not call it: it pushes a slot's read or write through
    /// `SlotBufs::push_rw`, a flush through [`Live::flush`] and a timer through [`Live::timer`].
    ///
    /// # Safety
    /// A [`Rw`]'s buffer range must stay valid and untouched by the caller until the request's
    /// completion is reaped, and lie inside the registered buffer `buf_index` when buffers are
    /// registered.
    unsafe fn push(&mut self, tag: u64, op: Op<'_>);

    /// Queues a flush of `target` ([`Op::Flush`]), which references no memory of the caller's.
    /// Its tag may not be a slot read's or write's ([`SLOT_RW`]: its completion would hand the
    /// slot's buffer back while the read or write may still be in flight).
    #[inline]
    fn flush(&mut self, tag: u64, target: u32, data_only: bool) {
        assert!(!is_slot_rw(tag), "a flush tagged as a slot's read or write");
        // SAFETY: a flush carries no buffer and no interval: nothing the caller must keep alive.
        unsafe { self.push(tag, Op::Flush { target, data_only }) };
    }

    /// Queues a timer of `iv` ([`Op::Timer`]). Every engine copies the interval at the push (or,
    /// io_uring, into a timespec of its own that lives until the kernel has read it), so `iv`
    /// need not outlive the call. Its tag may not be a slot read's or write's, as for `flush`.
    #[inline]
    fn timer(&mut self, tag: u64, iv: &Interval) {
        assert!(!is_slot_rw(tag), "a timer tagged as a slot's read or write");
        // SAFETY: the engines copy a timer's interval (see above): nothing outlives the call.
        unsafe { self.push(tag, Op::Timer(iv)) };
    }

    /// Queues a trim ([`Op::Trim`]), which references no memory of the caller's. The policy
    /// pushes a slot's trim through `SlotBufs::push_trim` (tagged as the slot's I/O: the slot
    /// has no read or write in flight then); a replayed discard may use any tag.
    #[inline]
    fn trim(&mut self, tag: u64, trim: Trim) {
        // SAFETY: a trim carries no buffer and no interval: nothing the caller must keep alive.
        unsafe { self.push(tag, Op::Trim(trim)) };
    }

    /// Hands every queued request to the kernel without waiting (errors surface at the next
    /// [`Live::enter`] or in completions).
    fn submit(&mut self);

    /// Hands every queued request to the kernel and returns once at least one completion is
    /// ready to reap, or once the clock reaches `until` (ns on `clock`, an open-loop send time)
    /// when given. May return with nothing ready (the policy turns again). `now` is the clock
    /// the policy read at its last turn and `in_flight` what it counts in flight, for engines
    /// that choose how to wait (io_uring's submit-only entries while I/Os complete inline).
    /// An error that is not transient fails the point.
    fn enter(
        &mut self,
        clock: &Elapsed,
        now: u64,
        in_flight: usize,
        until: Option<u64>,
    ) -> Result<(), Failure>;

    /// How many completions are ready to reap now (brings the engine's view up to date).
    fn ready(&mut self) -> usize;

    /// The next ready completion, if any (no system call).
    fn next(&mut self) -> Option<Completion>;

    /// Gives the completions reaped so far back to the engine (io_uring: publishes the
    /// completion queue's head), before the next [`Live::enter`].
    fn consumed(&mut self);

    /// Asks the engine to cancel everything in flight (the point ends): requests it can still
    /// withdraw complete with `-ECANCELED`, the others complete as they finish (an I/O at the
    /// device, a psync `pread`, cannot be withdrawn). Each still yields its completion, so the
    /// drain can count them down. The cancel itself yields at most one completion, tagged `tag`.
    fn cancel(&mut self, tag: u64);
}
