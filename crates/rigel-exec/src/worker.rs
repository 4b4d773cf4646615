//! One worker thread: the closed loop that keeps its share of every class in flight, and the
//! drain when the point ends. The hot path (`run_loop`) reads the clock once per completion batch
//! and reaps every completion already queued before waiting again; replacements go to the kernel
//! one by one when completions trickle in, or all in the system call that waits when many complete
//! at once (`submit_each`). It allocates nothing and takes no lock.

use super::drain::drain;
use super::entering::{Entering, since};
use super::failure::{Failure, failure, stalled, transient};
use super::ring::RingMode;
use super::slots::{PARKED, State, WorkerSpec, setup};
use super::tick::{TICK_TAG, arm_tick};
use super::window::Window;
use super::{LiveCounters, NOT_YET, Shared};
use io_uring::{IoUring, squeue};
use rigel_results::ClassRecorder;
use std::io;

use std::sync::atomic::Ordering;
use std::time::Duration;

/// How long a worker waits for its in-flight I/O after a stop, a failure or a stall before giving
/// up on it (the I/O is left to the kernel; its buffers are leaked). After a normal end it waits
/// up to `run.io_timeout`.
const STOP_DRAIN_LIMIT: Duration = Duration::from_millis(500);
/// The live counters are updated this often (ns): shared atomics on every batch would cost.
const LIVE_EVERY_NS: u64 = 50_000_000;

/// Why a worker's loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The measured window elapsed.
    Window,
    /// The stop flag (SIGINT/SIGTERM) was raised.
    Stop,
    /// Another worker failed or could not start.
    Abort,
    /// One of this worker's I/Os failed.
    Failed,
}

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
}

/// Runs one worker to the end of the point. Never panics on I/O or setup errors: they come back
/// in the outcome.
pub fn run(spec: WorkerSpec<'_>, shared: &Shared<'_>) -> WorkerOutcome {
    let outcome = run_inner(spec, shared);
    shared.ended.fetch_add(1, Ordering::AcqRel);
    shared.wake();
    outcome
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
    };
    let setup = setup(&spec, shared.reuse);
    shared.ready.fetch_add(1, Ordering::AcqRel);
    shared.wake();
    let (mut ring, mut state) = match setup {
        Ok(s) => s,
        Err(e) => {
            shared.abort.store(true, Ordering::Relaxed);
            outcome.setup_error = Some(e);
            return outcome;
        }
    };
    let start = shared.wait_for_start();
    outcome.mode = Some(ring.1);
    outcome.fixed_buffers = state.fixed_buffers;
    outcome.fixed_files = state.fixed_files;
    let drained = run_loop(&mut ring.0, &mut state, shared, start, &mut outcome);
    outcome.in_flight_area = state.classes.iter().map(|c| c.area as f64).collect();
    // Reads left the target's data in the buffers: a later write point fills them again.
    let reads = state.classes.iter().any(|c| c.read_percent > 0);
    // The recorders are moved out, their last second folded in here (not copied: a class's
    // histograms are about a megabyte, copied at every point's end before).
    outcome.recorders = std::mem::take(&mut state.classes)
        .into_iter()
        .map(|mut c| {
            c.recorder.seal();
            (c.point_class, c.recorder)
        })
        .collect();
    if drained {
        // The ring first: closing it unregisters the buffers; then the arena serves the next
        // point.
        drop(ring);
        let mut arena = state.arena;
        arena.random &= !reads;
        shared.reuse.give(arena);
    } else {
        // Some I/O may still target the arena: freeing it (or closing the ring) could let the
        // kernel write into reused memory. Leak both instead.
        std::mem::forget(ring);
        std::mem::forget(state);
    }
    outcome
}

/// Whether the replacements of a batch of `batch` completions go to the kernel one by one (each as
/// soon as it is chosen) rather than together with the next wait. Completions from a device
/// (a part of what is in flight, whenever it finishes) are replaced one by one, as fio does: a
/// batch held back while the rest are chosen, then issued under one block plug, reaches the device
/// as a burst and changes how it serves them (8 KiB random reads at QD 32 on a virtio disk: fio
/// 1.00 block plug per request, rigel 0.09 before this). When everything in flight completed at
/// once (page-cache reads completing inline during the submission, queue depth 1), one system call
/// for all is faster and no device sees the difference.
#[inline]
fn submit_each(batch: usize, in_flight: usize) -> bool {
    batch > 1 && batch < in_flight
}

/// What became of one completion.
enum Reaped {
    /// The slot's I/O finished: the slot is free for its next I/O.
    Done,
    /// The rest of the I/O (short transfer, EINTR/EAGAIN) was queued again.
    Requeued,
    /// The I/O failed (or the point already failed): the slot is retired.
    Retired,
    /// Not an I/O (the timer).
    Tick,
}

/// The closed loop, then the drain. Returns whether every I/O was drained.
///
/// Each turn: enter the kernel (submit, wait for one completion; or only submit while I/Os
/// complete during their submission, `entering.rs`), read the clock once, update the window, then
/// reap every completion already queued. A closed-loop slot gets its next I/O the moment its last
/// one is reaped; a class issuing at scheduled times would instead keep its free
/// slots and issue from them when their time comes (and bound the wait by the next one).
fn run_loop(
    ring: &mut IoUring,
    st: &mut State<'_>,
    shared: &Shared<'_>,
    start: u64,
    out: &mut WorkerOutcome,
) -> bool {
    let live: &LiveCounters = shared.live;
    let clock = super::clock::clock().clone();
    let (mut submitter, mut sq, mut cq) = ring.split();
    // Enter through the ring's registered index: saves a file lookup per system call (5.18+;
    // without it the plain descriptor is used).
    let _ = submitter.register_ring_fd();
    arm_tick(&mut sq, &submitter);
    let now = since(&clock, start);
    // Open loop: rate classes' slots wait for their send times (pace.rs).
    let paced = st.start_pacing(now);
    for i in 0..st.slots.len() {
        if st.slots[i].submitted_ns != PARKED && st.take_budget(i) {
            st.next_io(i, now, &mut sq, &submitter);
        }
    }
    if shared.running.fetch_add(1, Ordering::AcqRel) + 1 == shared.workers {
        let from = (since(&clock, start) + shared.warmup_ns)
            .max(shared.not_before.load(Ordering::Acquire));
        shared.measure_from.store(from, Ordering::Release);
        shared.wake();
    }
    let mut window = Window {
        from: NOT_YET,
        end: NOT_YET,
        prev: now,
        second: 0,
        next_second: NOT_YET,
    };
    let mut published = now;
    // Whether the timer completed since the stop and abort flags were last read (true: read
    // them at the first turn).
    let mut ticked = true;
    let mut in_flight_total = st.classes.iter().map(|c| c.in_flight as usize).sum();
    let mut entering = Entering::new();
    out.end = loop {
        sq.sync();
        let until = if paced { st.next_send() } else { None };
        let entered = entering.enter(
            &submitter,
            &mut cq,
            &clock,
            start,
            window.prev,
            in_flight_total,
            until,
        );
        if let Err(f) = entered {
            out.failure = Some(f);
            shared.abort.store(true, Ordering::Relaxed);
            break End::Failed;
        }
        let now = since(&clock, start);
        out.batches += 1;
        window.advance(now, shared, st);
        if now >= window.end {
            break End::Window;
        }
        if ticked {
            // Looked at when the timer completes (every 100 ms at most), not at every batch:
            // the shared flags' cache lines are then not read once per I/O at queue depth 1.
            ticked = false;
            if shared.stop.load(Ordering::Relaxed) {
                break End::Stop;
            }
            if shared.abort.load(Ordering::Relaxed) {
                break End::Abort;
            }
        }
        let measuring = now >= window.from;
        let interval = window.second;
        cq.sync();
        let mut left = cq.len();
        let each = submit_each(left, in_flight_total);
        let mut failed = false;
        for cqe in &mut cq {
            left -= 1;
            let i = cqe.user_data() as usize;
            let reaped = if cqe.user_data() == TICK_TAG {
                ticked = true;
                arm_tick(&mut sq, &submitter);
                // The timer bounds every wait, so a stalled I/O is seen within 100 ms of its
                // timeout; checking here costs nothing per I/O.
                if !failed && let Some(f) = stalled(st, now, shared.io_timeout_ns) {
                    failed = true;
                    out.failure = Some(f);
                }
                Reaped::Tick
            } else {
                reap(
                    st,
                    i,
                    cqe.result(),
                    now,
                    &mut failed,
                    out,
                    &mut sq,
                    &submitter,
                )
            };
            match reaped {
                Reaped::Done => {
                    if paced && st.complete_paced(i, now, measuring, interval) {
                        in_flight_total -= 1;
                        continue;
                    }
                    let slot = &st.slots[i];
                    let (len, write, latency) =
                        (slot.len as u64, slot.write, now - slot.submitted_ns);
                    if st.take_budget(i) {
                        // One by one, a replacement reaches the kernel only after those chosen
                        // before it were submitted (a system call each, a virtio notification
                        // each on this VM's disk): its latency starts when it is chosen, not
                        // at the turn's clock reading, or the batch's last replacements would
                        // count their predecessors' submissions (up to 0.4 ms at QD 32).
                        let issued = if each { since(&clock, start) } else { now };
                        st.next_io(i, issued, &mut sq, &submitter);
                    } else {
                        in_flight_total -= 1;
                    }
                    if each && left > 0 {
                        // The last replacement goes with the next wait.
                        sq.sync();
                        let _ = submitter.submit();
                    }
                    let class = &mut st.classes[st.slots[i].class];
                    class.ios_delta += 1;
                    class.bytes_delta += len;
                    if measuring {
                        class.recorder.record(write, latency, len, interval);
                    }
                }
                Reaped::Retired => in_flight_total -= 1,
                Reaped::Requeued | Reaped::Tick => {}
            }
        }
        if paced {
            in_flight_total += st.issue_due(now, (window.from, window.end), &mut sq, &submitter);
        }
        // Publish the consumed head before entering again, or the kernel would see the old
        // entries and return at once.
        cq.sync();
        if now - published >= LIVE_EVERY_NS {
            st.publish(live);
            published = now;
        }
        if failed {
            shared.abort.store(true, Ordering::Relaxed);
            break End::Failed;
        }
        if in_flight_total == 0 && st.budget == 0 {
            break End::Window;
        }
    };
    (out.submit_only, out.inline_turns) = (entering.submit_only, entering.inline_turns);
    st.publish(live);
    st.end_pacing((window.from, window.end));
    drop(sq);
    drop(cq);
    let limit = match out.end {
        End::Window => Duration::from_nanos(shared.io_timeout_ns),
        End::Stop | End::Abort | End::Failed => STOP_DRAIN_LIMIT,
    };
    drain(ring, st, in_flight_total, limit)
}

/// Takes slot `i`'s completion `res`: a finished I/O frees the slot; the rest of a short or
/// interrupted one is queued again; an error (the first one fails the point) retires the slot.
#[allow(clippy::too_many_arguments)]
#[inline]
fn reap(
    st: &mut State<'_>,
    i: usize,
    res: i32,
    now: u64,
    failed: &mut bool,
    out: &mut WorkerOutcome,
    sq: &mut squeue::SubmissionQueue<'_>,
    submitter: &io_uring::Submitter<'_>,
) -> Reaped {
    if res < 0 && transient(-res) && !*failed {
        st.queue(i, sq, submitter);
        out.requeued += 1;
        return Reaped::Requeued;
    }
    if res <= 0 || *failed {
        st.classes[st.slots[i].class].in_flight -= 1;
        if !*failed {
            *failed = true;
            out.failure = Some(failure(&st.slots[i], res, now));
        }
        return Reaped::Retired;
    }
    let slot = &mut st.slots[i];
    slot.done += res as u32;
    if slot.done < slot.len {
        st.queue(i, sq, submitter);
        out.requeued += 1;
        return Reaped::Requeued;
    }
    st.classes[slot.class].in_flight -= 1;
    Reaped::Done
}
