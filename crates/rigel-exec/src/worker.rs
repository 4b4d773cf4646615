//! One worker thread: its setup, its loop (`turn.rs`), and the end of its point. The ring and the
//! state it runs on (the buffer arena among them) belong to a `Worker`, whose drop drains every
//! I/O still in flight, or leaks the ring and the arena when that fails: whatever ends the worker
//! (the loop's end, an early return, a panic unwinding through it), no memory the kernel may
//! still write into is freed.

use super::Shared;
use super::drain::drain;
use super::failure::Failure;
use super::reuse::Reuse;
use super::ring::RingMode;
use super::slots::{State, WorkerSpec, setup};
use super::turn::{End, run_loop};
use io_uring::IoUring;
use rigel_results::ClassRecorder;
use std::io;
use std::mem::ManuallyDrop;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// How long a worker waits for its in-flight I/O after a stop, a failure, a stall or a panic
/// before giving up on it (the I/O is left to the kernel; its buffers are leaked). After a normal
/// end it waits up to `run.io_timeout`.
const STOP_DRAIN_LIMIT: Duration = Duration::from_millis(500);

/// What a worker hands back when it ends.
pub struct WorkerOutcome {
    /// Per share (same order as the spec's shares): the point class index and its recorder.
    pub recorders: Vec<(usize, ClassRecorder)>,
    /// Per share: ∫ in-flight I/Os dt over the measured window, in I/O·ns.
    pub in_flight_area: Vec<f64>,
    pub end: End,
    pub failure: Option<Failure>,
    pub setup_error: Option<io::Error>,
    pub batches: u64,
    /// Entries that only submitted, and the turns whose completions they found (`entering.rs`).
    pub submit_only: u64,
    pub inline_turns: u64,
    /// I/Os submitted again: the rest of a short transfer, or after EINTR/EAGAIN.
    pub requeued: u64,
    pub mode: Option<RingMode>,
    pub fixed_buffers: bool,
    pub fixed_files: bool,
    /// The measured window's time this worker did not run, and the longest gap, ns (`pause.rs`).
    pub paused: (u64, u64),
    /// The timer completed inside the window: this worker ran and waited there.
    pub ticked_in_window: bool,
    /// `verify`: what the worker's reads checked and found.
    pub tally: Option<super::verify::worker::Tally>,
}

/// Runs one worker to the end of the point. Never panics on I/O or setup errors: they come back
/// in the outcome.
pub fn run(spec: WorkerSpec<'_>, shared: &Shared<'_>) -> WorkerOutcome {
    let _ended = Ended(shared);
    run_inner(spec, shared)
}

/// Tells the coordinator the worker ended, once its ring and arena are settled (drained or
/// leaked): declared before the `Worker`, it is dropped after it. A panicking worker also
/// aborts the point, so the others stop rather than run to the window's end.
struct Ended<'r, 's>(&'r Shared<'s>);

impl Drop for Ended<'_, '_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.abort.store(true, Ordering::Relaxed);
        }
        self.0.ended.fetch_add(1, Ordering::AcqRel);
        self.0.wake();
    }
}

fn run_inner(spec: WorkerSpec<'_>, shared: &Shared<'_>) -> WorkerOutcome {
    let mut outcome = WorkerOutcome {
        recorders: Vec::new(),
        in_flight_area: Vec::new(),
        end: End::Abort,
        failure: None,
        setup_error: None,
        batches: 0,
        submit_only: 0,
        inline_turns: 0,
        requeued: 0,
        mode: None,
        fixed_buffers: false,
        fixed_files: false,
        paused: (0, 0),
        ticked_in_window: false,
        tally: None,
    };
    let setup = setup(&spec, shared.reuse);
    shared.ready.fetch_add(1, Ordering::AcqRel);
    shared.wake();
    let ((ring, mode), state) = match setup {
        Ok(s) => s,
        Err(e) => {
            shared.abort.store(true, Ordering::Relaxed);
            outcome.setup_error = Some(e);
            return outcome;
        }
    };
    // From here on the worker's drop settles the ring and the arena, however this function ends.
    let mut worker = Worker::new(ring, state, shared.reuse);
    let start = shared.wait_for_start();
    outcome.mode = Some(mode);
    outcome.fixed_buffers = worker.st.fixed_buffers;
    outcome.fixed_files = worker.st.fixed_files;
    let ended = run_loop(
        &mut worker.ring,
        &mut worker.st,
        shared,
        start,
        #[cfg(test)]
        spec.options.panic_after_turns,
    );
    outcome.end = ended.end;
    outcome.failure = ended.failure;
    outcome.batches = ended.batches;
    outcome.requeued = ended.requeued;
    outcome.paused = ended.paused;
    outcome.ticked_in_window = ended.ticked_in_window;
    (outcome.submit_only, outcome.inline_turns) = (ended.submit_only, ended.inline_turns);
    let limit = match outcome.end {
        End::Window => Duration::from_nanos(shared.io_timeout_ns),
        End::Stop | End::Abort | End::Failed => STOP_DRAIN_LIMIT,
    };
    worker.drain(limit);
    let st = &mut *worker.st;
    outcome.tally = st.verify.take().map(|v| v.tally);
    outcome.in_flight_area = st.classes.iter().map(|c| c.area as f64).collect();
    // The recorders are moved out, their last second folded in here (not copied: a class's
    // histograms are about a megabyte, copied at every point's end before).
    outcome.recorders = std::mem::take(&mut st.classes)
        .into_iter()
        .map(|mut c| {
            c.recorder.seal();
            (c.point_class, c.recorder)
        })
        .collect();
    outcome
}

/// A worker's ring and the state it runs on (its buffer arena among them), owned together so that
/// dropping them is settled in one place: after every I/O completed, the ring is closed first
/// (which unregisters the buffers) and the arena goes back to the run's pool; while some I/O may
/// still be in flight, both are leaked instead (fields in `ManuallyDrop`: leaking is what happens
/// unless a drain proved otherwise).
struct Worker<'a, 'r> {
    ring: ManuallyDrop<IoUring>,
    st: ManuallyDrop<State<'a>>,
    reuse: &'r Reuse,
    /// Reads left the target's data in the buffers: a later write point fills them again.
    reads: bool,
    /// Once drained: whether every I/O completed (the kernel then uses neither the ring's requests
    /// nor the arena any more). `None` before the drain.
    drained: Option<bool>,
}

impl<'a, 'r> Worker<'a, 'r> {
    fn new(ring: IoUring, st: State<'a>, reuse: &'r Reuse) -> Worker<'a, 'r> {
        let reads = st.classes.iter().any(|c| c.read_percent > 0);
        Worker {
            ring: ManuallyDrop::new(ring),
            st: ManuallyDrop::new(st),
            reuse,
            reads,
            drained: None,
        }
    }

    /// Waits up to `limit` for every I/O still in flight (once: a later call gives the first
    /// one's answer); whether all completed.
    fn drain(&mut self, limit: Duration) -> bool {
        *self.drained.get_or_insert_with(|| {
            let in_flight = self.st.in_flight();
            drain(&mut self.ring, &mut self.st, in_flight, limit)
        })
    }
}

impl Drop for Worker<'_, '_> {
    fn drop(&mut self) {
        // Not drained yet: the loop did not end normally (a panic unwinding, an early return).
        // Its in-flight count is then an upper bound (a slot counts before its I/O is queued and
        // until its completion is taken), so a drain that ends is a true one.
        if !self.drain(STOP_DRAIN_LIMIT) {
            // Some I/O may still target the arena: freeing it (or closing the ring) could let the
            // kernel write into reused memory. Both stay leaked.
            return;
        }
        // The ring's references to the targets go now, not whenever the kernel's asynchronous
        // teardown of a closed ring gets to them: until the last reference goes, a test file's
        // flock and a block device's O_EXCL claim stay held, and the next rigel is refused.
        if self.st.fixed_files {
            let _ = self.ring.submitter().unregister_files();
        }
        // SAFETY: every I/O completed (drained), so the kernel no longer uses the ring's
        // requests; the ring is dropped once, here, and never used after.
        unsafe { ManuallyDrop::drop(&mut self.ring) };
        // SAFETY: taken once, here, and `self.st` is never used after; the ring that registered
        // the arena's pages is closed (above) before the arena is reused or unmapped.
        let st = unsafe { ManuallyDrop::take(&mut self.st) };
        let mut arena = st.arena;
        arena.random &= !self.reads;
        self.reuse.give(arena);
    }
}
