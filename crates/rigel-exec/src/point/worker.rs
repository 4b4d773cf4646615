//! One worker thread: its CPU, its engine, its setup, its loop (`policy::turn`), and the end of its
//! point. The engine and the state it runs on (the buffer arena among them) belong to a `Worker`,
//! whose drop drains every I/O still in flight, or leaks the engine and the arena when that fails:
//! whatever ends the worker (the loop's end, an early return, a panic unwinding through it), no
//! memory the kernel may still write into is freed.

use crate::Shared;
use crate::engines::{self, Engine, Visit};
use crate::failure::Failure;
use crate::policy::drain::drain;
use crate::policy::setup::{WorkerSpec, setup};
use crate::policy::slots::State;
use crate::policy::turn::{End, run_loop};
use crate::reuse::Reuse;
use rigel_results::ClassRecorder;
use std::io;
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
    /// The engine's name, its options as results record them, and what its setup got.
    pub engine: &'static str,
    pub engine_options: std::collections::BTreeMap<String, String>,
    pub facts: engines::Facts,
    /// The CPU the worker ran on at its end (the one it was pinned to, when pinned).
    pub cpu: Option<u32>,
    /// The measured window's time this worker did not run, and the longest gap, ns (`pause.rs`).
    pub paused: (u64, u64),
    /// How long a replay's window stayed open past the spec's end, ns (`Window::follow`).
    pub held_open_ns: u64,
    /// The timer completed inside the window: this worker ran and waited there.
    pub ticked_in_window: bool,
    /// `verify`: what the worker's reads checked and found.
    pub tally: Option<crate::verify::worker::Tally>,
    /// `sqpoll`: the ring's submission thread (its name) and its CPU seconds at the loop's end,
    /// read before the drain closes the ring and the thread with it.
    pub sq_thread: Option<(String, f64)>,
}

/// Runs one worker to the end of the point. Never panics on I/O or setup errors: they come back
/// in the outcome.
pub fn run(spec: WorkerSpec<'_>, shared: &Shared<'_>) -> WorkerOutcome {
    let _ended = Ended(shared);
    // Pinned first: the arena's pages are then taken on the CPU's node. A CPU the kernel refuses
    // (offline, outside the cpuset) leaves the worker to the scheduler; the CPU recorded is the
    // one it ran on, read at its end, so a pin that did not hold shows.
    if let Some(c) = spec.cpu {
        let _ = super::cpu::pin(c);
    }
    #[cfg(test)]
    let fake = spec.options.fake_engine;
    let run = Run { spec, shared };
    #[cfg(test)]
    if fake {
        let mut outcome = run.visit::<engines::fake::FakeEngine>();
        outcome.cpu = super::cpu::current();
        return outcome;
    }
    let passthru = engines::nvme::any_passthru(run.spec.fds);
    let mut outcome = engines::visit(run.spec.engine, run.spec.polled, passthru, run);
    outcome.cpu = super::cpu::current();
    outcome
}

/// A worker's run on the engine its classes got (`engines::visit` picks it).
struct Run<'a, 's, 'r> {
    spec: WorkerSpec<'a>,
    shared: &'r Shared<'s>,
}

impl Visit for Run<'_, '_, '_> {
    type Out = WorkerOutcome;

    fn visit<E: Engine>(self) -> WorkerOutcome {
        run_inner::<E>(self.spec, self.shared)
    }
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

impl WorkerOutcome {
    /// The outcome of a worker that did nothing yet.
    fn empty() -> WorkerOutcome {
        WorkerOutcome {
            recorders: Vec::new(),
            in_flight_area: Vec::new(),
            end: End::Abort,
            failure: None,
            setup_error: None,
            batches: 0,
            submit_only: 0,
            inline_turns: 0,
            requeued: 0,
            engine: "",
            engine_options: Default::default(),
            facts: engines::Facts::default(),
            cpu: None,
            paused: (0, 0),
            held_open_ns: 0,
            ticked_in_window: false,
            tally: None,
            sq_thread: None,
        }
    }
}

fn run_inner<E: Engine>(spec: WorkerSpec<'_>, shared: &Shared<'_>) -> WorkerOutcome {
    let mut outcome = WorkerOutcome {
        engine: E::NAME,
        ..WorkerOutcome::empty()
    };
    let setup = setup::<E>(&spec, shared.reuse);
    shared.ready.fetch_add(1, Ordering::AcqRel);
    shared.wake();
    let (engine, state) = match setup {
        Ok(s) => s,
        Err(e) => {
            shared.abort.store(true, Ordering::Relaxed);
            outcome.setup_error = Some(e);
            return outcome;
        }
    };
    // From here on the worker's drop settles the engine and the arena, however this function ends.
    let mut worker = Worker::new(engine, state, shared.reuse);
    let start = shared.wait_for_start();
    outcome.engine_options = worker.engine().options();
    let (Some(engine), Some(st)) = (worker.engine.as_mut(), worker.st.as_mut()) else {
        unreachable!("the worker's engine and state are taken only by its drop");
    };
    let ended = run_loop(
        engine.live(),
        st,
        shared,
        start,
        #[cfg(test)]
        spec.options.panic_after_turns,
    );
    outcome.end = ended.end;
    if spec.sqpoll.is_some() {
        outcome.sq_thread = super::sq_thread::of_this_worker();
    }
    outcome.failure = ended.failure;
    outcome.batches = ended.batches;
    outcome.requeued = ended.requeued;
    outcome.paused = ended.paused;
    outcome.held_open_ns = ended.held_open_ns;
    outcome.ticked_in_window = ended.ticked_in_window;
    let limit = match outcome.end {
        End::Window => Duration::from_nanos(shared.io_timeout_ns),
        End::Stop | End::Abort | End::Failed => STOP_DRAIN_LIMIT,
    };
    worker.drain(limit);
    outcome.facts = worker.engine().facts();
    (outcome.submit_only, outcome.inline_turns) =
        (outcome.facts.submit_only, outcome.facts.inline_turns);
    let st = worker.st();
    outcome.tally = st.verify.take().map(|v| v.tally);
    outcome.in_flight_area = st.classes.iter().map(|c| c.area as f64).collect();
    for c in &mut st.classes {
        c.recorder.seal();
    }
    // Every second left, the last (perhaps partial) one included: the point has ended.
    st.publish_seconds(shared.live, usize::MAX, None);
    // The recorders are moved out, their last second folded in here (not copied: a class's
    // histograms are about a megabyte, copied at every point's end before).
    outcome.recorders = std::mem::take(&mut st.classes)
        .into_iter()
        .map(|c| (c.point_class, c.recorder))
        .collect();
    outcome
}

/// A worker's engine and the state it runs on (its buffer arena among them), owned together so
/// that dropping them is settled in one place: after every I/O completed, the engine is closed
/// first (a ring unregisters the buffers) and the arena goes back to the run's pool; while some
/// I/O may still be in flight, both are leaked instead (`mem::forget`: leaking is what happens
/// unless a drain proved otherwise). Both are `Some` until the drop takes them.
struct Worker<'a, 'r, E: Engine> {
    engine: Option<E>,
    st: Option<State<'a>>,
    reuse: &'r Reuse,
    /// Reads left the target's data in the buffers: a later write point fills them again.
    reads: bool,
    /// Once drained: whether every I/O completed (the kernel then uses neither the engine's
    /// requests nor the arena any more). `None` before the drain.
    drained: Option<bool>,
}

impl<'a, 'r, E: Engine> Worker<'a, 'r, E> {
    fn new(engine: E, st: State<'a>, reuse: &'r Reuse) -> Worker<'a, 'r, E> {
        let reads = st.classes.iter().any(|c| c.read_percent > 0);
        Worker {
            engine: Some(engine),
            st: Some(st),
            reuse,
            reads,
            drained: None,
        }
    }

    /// The engine (until the drop takes it).
    fn engine(&mut self) -> &mut E {
        self.engine
            .as_mut()
            .expect("the worker's engine is taken only by its drop")
    }

    /// The worker's state (until the drop takes it).
    fn st(&mut self) -> &mut State<'a> {
        self.st
            .as_mut()
            .expect("the worker's state is taken only by its drop")
    }

    /// Waits up to `limit` for every I/O still in flight (once: a later call gives the first
    /// one's answer); whether all completed.
    fn drain(&mut self, limit: Duration) -> bool {
        *self.drained.get_or_insert_with(|| {
            let (Some(engine), Some(st)) = (self.engine.as_mut(), self.st.as_mut()) else {
                return false;
            };
            let in_flight = st.in_flight();
            drain(&mut engine.live(), st, in_flight, limit)
        })
    }
}

impl<E: Engine> Drop for Worker<'_, '_, E> {
    fn drop(&mut self) {
        // Not drained yet: the loop did not end normally (a panic unwinding, an early return).
        // Its in-flight count is then an upper bound (a slot counts before its I/O is queued and
        // until its completion is taken), so a drain that ends is a true one.
        if !self.drain(STOP_DRAIN_LIMIT) {
            // Some I/O may still target the arena: freeing it (or closing the engine) could let
            // the kernel write into reused memory. Both stay leaked.
            std::mem::forget(self.engine.take());
            std::mem::forget(self.st.take());
            return;
        }
        // Every I/O completed (drained): closing the engine withdraws nothing the kernel still
        // uses, and it is closed (a ring unregisters the arena's pages) before the arena is
        // reused or unmapped.
        let (Some(engine), Some(st)) = (self.engine.take(), self.st.take()) else {
            return;
        };
        engine.close();
        // Nothing is lent after a drain that ended (every completion was returned); were it
        // otherwise, the arena stays leaked.
        let Some(mut arena) = st.bufs.into_arena() else {
            return;
        };
        arena.random &= !self.reads;
        self.reuse.give(arena);
    }
}
