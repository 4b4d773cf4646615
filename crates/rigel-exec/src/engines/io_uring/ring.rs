//! The io_uring ring driver both io_uring engines share (as fio's ioengine_ops share its I/O
//! loop): the ring and its setup, the policy's timers, the submit-and-wait entry (`entering`),
//! the reap, the cancel, and the completions of requests run at their push. What differs is a
//! [`Commands`]: the entry a read, write, flush or trim becomes (plain requests, or NVMe commands
//! on a namespace), and what a completion means. Each engine is this driver compiled for its
//! own commands, so neither pays for the other's.

use super::entering::Entering;
use super::setup::{
    build_polled_ring, build_ring, build_sqpoll_ring, push_or_submit, register_buffers,
    register_files,
};
use crate::engines::clock::Elapsed;
use crate::engines::discard;
use crate::engines::seam::{Completion, Engine, Facts, Live, Op, Open, Opened, RingMode};
use crate::failure::Failure;
use io_uring::squeue::EntryMarker as _;
use io_uring::{IoUring, Submitter, cqueue, opcode, squeue, types};
use std::collections::BTreeMap;
use std::io;
use std::os::fd::RawFd;

/// What one io_uring engine makes of the policy's requests (the driver does the rest).
pub(crate) trait Commands: Sized + 'static {
    /// The ring's entry types (SQE128 and CQE32 for NVMe commands).
    type S: squeue::EntryMarker;
    type C: cqueue::EntryMarker;

    /// Its state for the point's targets, made when the engine opens.
    fn open(open: &Open<'_>) -> io::Result<Self>;

    /// Says what a ring of these entries needs when the kernel refused one.
    fn refused(e: io::Error) -> io::Error {
        e
    }

    /// The entry of a read, write, flush or trim tagged `tag`, its `user_data` set; None when
    /// it ran here (a discard at its push), its completion pushed to `done`.
    fn entry(
        &mut self,
        targets: &Targets<'_>,
        tag: u64,
        op: Op<'_>,
        done: &mut Vec<Completion>,
    ) -> Option<Self::S>;

    /// The `user_data` of an entry whose completion goes back as the kernel gave it (a timer,
    /// a cancel).
    fn as_is(&mut self, tag: u64) -> u64;

    /// A completion of `user_data` with the kernel's `result`, as the seam hands it on.
    fn completion(&mut self, user_data: u64, result: i32) -> Completion;

    /// What the engine's options add to the ring's (name and value).
    fn option(&self) -> Option<(&'static str, String)> {
        None
    }
}

/// A worker's ring, its setup and the commands' state.
pub(crate) struct Ring<K: Commands> {
    ring: IoUring<K::S, K::C>,
    mode: RingMode,
    fds: Vec<RawFd>,
    fixed_buffers: bool,
    fixed_files: bool,
    entering: Entering,
    /// The ring's descriptor was registered for the loop's entries.
    ring_fd: bool,
    timers: Timers,
    /// `sqpoll`: the submission thread's settings, as results record them.
    sqpoll: Option<rigel_plan::SqPoll>,
    /// Which targets are block devices (a trim discards them; a file's punches a hole).
    block: Vec<bool>,
    /// Whether the kernel's io_uring discards a block device (6.12+).
    uring_discard: bool,
    /// Completions of requests run at their push: in `done` until the next `ready`, then in
    /// `made` (a completion made while the policy reaps a batch must not join it).
    done: Vec<Completion>,
    made: Vec<Completion>,
    commands: K,
}

/// The timers' timespecs, one per submission queue entry, used in turn: the kernel reads a
/// timeout's timespec when it consumes the entry (IORING_FEAT_SUBMIT_STABLE), and no more entries
/// than the queue holds are ever unconsumed, so none is reused before it was read. The policy's
/// `Interval` then need not outlive its push.
struct Timers {
    timespecs: Box<[types::Timespec]>,
    next: usize,
}

impl<K: Commands> Engine for Ring<K> {
    const NAME: &'static str = "io_uring";

    type Live<'r> = RingLive<'r, K>;

    fn open(open: &Open<'_>) -> io::Result<Opened<Self>> {
        let commands = K::open(open)?;
        let built = match (open.sqpoll, open.polled) {
            (Some(sq), _) => build_sqpoll_ring(open.entries, sq).map(|r| (r, RingMode::Plain)),
            // `polled::PolledEngine` opens its ring through here.
            (None, true) => build_polled_ring(open.entries),
            (None, false) => build_ring(open.entries),
        };
        let (ring, mode) = built.map_err(K::refused)?;
        if !ring.params().is_feature_submit_stable() {
            // Linux 5.5+: the timers' timespecs (`Timers`) rely on it.
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
            engine: Ring {
                ring,
                mode,
                fds: open.fds.to_vec(),
                fixed_buffers: buf_index.is_some(),
                fixed_files,
                entering: Entering::new(),
                ring_fd: false,
                timers: Timers {
                    timespecs: timespecs.into_boxed_slice(),
                    next: 0,
                },
                sqpoll: open.sqpoll,
                block: discard::block_targets(open.fds),
                uring_discard: discard::uring_discards(),
                done: Vec::new(),
                made: Vec::new(),
                commands,
            },
            buf_index: buf_index.unwrap_or_default(),
        })
    }

    fn live(&mut self) -> RingLive<'_, K> {
        let (mut submitter, sq, cq) = self.ring.split();
        if !self.ring_fd {
            // The loop enters through the ring's registered index: a file lookup less per system
            // call (5.18+; without it the plain descriptor is used). The drain's entries, few,
            // use the descriptor.
            self.ring_fd = true;
            let _ = submitter.register_ring_fd();
        }
        RingLive {
            submitter,
            sq,
            cq,
            targets: Targets {
                fds: &self.fds,
                fixed_files: self.fixed_files,
                fixed_buffers: self.fixed_buffers,
                block: &self.block,
                uring_discard: self.uring_discard,
            },
            entering: &mut self.entering,
            timers: &mut self.timers,
            done: &mut self.done,
            made: &mut self.made,
            commands: &mut self.commands,
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
        .chain(self.commands.option())
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

/// How a ring addresses the targets and the buffers (registered or by descriptor and address),
/// and how it trims them.
#[derive(Clone, Copy)]
pub(crate) struct Targets<'r> {
    pub fds: &'r [RawFd],
    pub fixed_files: bool,
    pub fixed_buffers: bool,
    /// Which targets are block devices.
    pub block: &'r [bool],
    /// Whether the kernel's io_uring discards a block device (6.12+).
    pub uring_discard: bool,
}

/// The ring's parts for one loop or drain.
pub(crate) struct RingLive<'r, K: Commands> {
    submitter: Submitter<'r>,
    sq: squeue::SubmissionQueue<'r, K::S>,
    cq: cqueue::CompletionQueue<'r, K::C>,
    targets: Targets<'r>,
    entering: &'r mut Entering,
    timers: &'r mut Timers,
    done: &'r mut Vec<Completion>,
    made: &'r mut Vec<Completion>,
    commands: &'r mut K,
}

impl<K: Commands> Live for RingLive<'_, K> {
    #[inline(always)]
    unsafe fn push(&mut self, tag: u64, op: Op<'_>) {
        let entry = match op {
            Op::Timer(t) => {
                let k = self.timers.next % self.timers.timespecs.len();
                self.timers.next = self.timers.next.wrapping_add(1);
                self.timers.timespecs[k] = *t.timespec();
                let mut e: K::S = opcode::Timeout::new(&self.timers.timespecs[k])
                    .build()
                    .into();
                e.set_user_data(self.commands.as_is(tag));
                e
            }
            op => match self.commands.entry(&self.targets, tag, op, self.done) {
                Some(entry) => entry,
                None => return,
            },
        };
        // SAFETY: the caller keeps a read or write's buffer range alive and untouched until its
        // completion, inside registered buffer `buf_index` when buffers are registered
        // (setup::register_buffers registered every slot's range); whatever else an entry points
        // to is the engine's own until the kernel is done with it (a timer's timespec, see
        // `Timers`; a trim command's range, `passthru`); the fd or fixed index refers to a target
        // that outlives the point.
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
        if !self.made.is_empty() || !self.done.is_empty() {
            // A request already run: its completion is ready without waiting.
            let _ = self.submitter.submit();
            return Ok(());
        }
        self.entering
            .enter(&self.submitter, &mut self.cq, clock, now, in_flight, until)
    }

    #[inline(always)]
    fn ready(&mut self) -> usize {
        self.cq.sync();
        if !self.done.is_empty() {
            self.made.append(self.done);
        }
        self.cq.len() + self.made.len()
    }

    #[inline(always)]
    fn next(&mut self) -> Option<Completion> {
        if let Some(c) = self.made.pop() {
            return Some(c);
        }
        let c: cqueue::Entry = self.cq.next()?.into();
        Some(self.commands.completion(c.user_data(), c.result()))
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
        // be ready, the timers); I/O already at the device completes normally. Needs 5.19; older
        // kernels answer with an error CQE and the drain simply waits.
        let mut cancel: K::S = opcode::AsyncCancel2::new(types::CancelBuilder::any())
            .build()
            .into();
        cancel.set_user_data(self.commands.as_is(tag));
        // SAFETY: a cancel request references no memory.
        unsafe { push_or_submit(&mut self.sq, &self.submitter, &cancel) };
    }
}
