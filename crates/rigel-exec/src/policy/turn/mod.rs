//! The hot path of a worker: its closed loop, one turn at a time. A turn enters the kernel, reaps
//! every completion already queued (replacing each finished closed-loop I/O at once), refills the
//! open-loop slots whose send time came, and publishes the consumed completions and the live
//! counters. It reads the clock once per turn, allocates nothing and takes no lock.
//!
//! Replacements go to the kernel one by one when completions trickle in, or all in the system
//! call that waits when many complete at once (`submit_each`).

mod open_loop;
mod replace;
mod take;

use crate::Shared;
use crate::engines::Live;
use crate::engines::clock::Elapsed;
use crate::failure::Failure;
use crate::policy::failed::stalled;
use crate::policy::slots::{PARKED, State};
use crate::policy::tag::Tag;
use crate::policy::tick::arm_tick;
use crate::policy::window::Window;
use std::sync::atomic::Ordering;

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

/// What the loop leaves for the worker's outcome.
pub(crate) struct LoopEnd {
    pub(crate) end: End,
    pub(crate) failure: Option<Failure>,
    pub(crate) batches: u64,
    pub(crate) requeued: u64,
    /// The measured window's time this worker did not run, and the longest such gap, ns (the
    /// window elapsed; zeros when the loop ended otherwise).
    pub(crate) paused: (u64, u64),
    /// The timer completed inside the window (`Pauses::ticked_in_window`).
    pub(crate) ticked_in_window: bool,
    /// How long a replay's window stayed open past the spec's end for its requests in flight, ns.
    pub(crate) held_open_ns: u64,
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
    /// The slot's group of writes is flushed (`durability = "fdatasync:N"`): the commit.
    Committed,
}

/// The clock reading of a turn and what follows from it for the completions it reaps.
struct Batch {
    now: u64,
    /// Inside the measured window: the completions are recorded.
    measuring: bool,
    /// The window's tick `now` falls in.
    tick: usize,
    /// Replacements are submitted one by one (`submit_each`).
    each: bool,
}

/// The loop's state: the engine, the worker's state, and what carries over from one turn to the
/// next. A local of `run_loop`, so its fields live in registers as separate locals would.
struct Turns<'r, 'a, 's, L: Live> {
    eng: L,
    st: &'r mut State<'a>,
    shared: &'r Shared<'s>,
    clock: Elapsed,
    /// Some class is open loop (its slots wait for their send times, `pace.rs`).
    paced: bool,
    /// Some class replays a trace: the window waits for its requests in flight (`Window::follow`).
    replay: bool,
    window: Window,
    /// When the live counters were last updated.
    published: u64,
    /// Whether the timer completed since the stop and abort flags were last read.
    ticked: bool,
    /// I/Os in flight, as `State::in_flight` counts them (kept here: summed once, not per turn).
    in_flight: usize,
    batches: u64,
    requeued: u64,
    failure: Option<Failure>,
    /// Test-only fault: panic at the end of this turn (`ExecOptions::panic_after_turns`).
    #[cfg(test)]
    panic_after_turns: Option<u64>,
}

/// The closed loop on engine `eng` until the point ends for this worker (the drain is the
/// caller's).
///
/// Each turn: enter the engine (submit, wait for one completion), read the clock once, update the window, then
/// reap every completion already queued. A closed-loop slot gets its next I/O the moment its last
/// one is reaped; a class issuing at scheduled times would instead keep its free
/// slots and issue from them when their time comes (and bound the wait by the next one).
pub(crate) fn run_loop<L: Live>(
    mut eng: L,
    st: &mut State<'_>,
    shared: &Shared<'_>,
    start: u64,
    #[cfg(test)] panic_after_turns: Option<u64>,
) -> LoopEnd {
    let clock = Elapsed::new(start);
    arm_tick(&mut eng);
    let now = clock.ns();
    let paced = st.start_pacing(now);
    let replay = st.replays();
    for i in 0..st.slots.len() {
        if st.slots[i].submitted_ns != PARKED && st.burst_first(i, now) && st.take_budget(i) {
            st.next_io(i, now, &mut eng);
        }
    }
    if shared.running.fetch_add(1, Ordering::AcqRel) + 1 == shared.workers {
        let from = (clock.ns() + shared.warmup_ns).max(shared.not_before.load(Ordering::Acquire));
        shared.measure_from.store(from, Ordering::Release);
        shared.wake();
    }
    let in_flight = st.in_flight();
    let mut t = Turns {
        eng,
        st,
        shared,
        clock,
        paced,
        replay,
        window: Window::new(now),
        published: now,
        // Read the flags at the first turn.
        ticked: true,
        in_flight,
        batches: 0,
        requeued: 0,
        failure: None,
        #[cfg(test)]
        panic_after_turns,
    };
    let end = loop {
        if let Some(end) = t.turn() {
            break end;
        }
    };
    debug_assert_eq!(t.in_flight, t.st.in_flight());
    t.st.publish(shared.live);
    t.st.end_pacing((t.window.from, t.window.sends_end));
    let held_open_ns = t.window.held_open_ns();
    LoopEnd {
        end,
        failure: t.failure,
        batches: t.batches,
        requeued: t.requeued,
        paused: if end == End::Window {
            t.window.pauses.of_window(shared.window_ns + held_open_ns)
        } else {
            (0, 0)
        },
        ticked_in_window: t.window.pauses.ticked_in_window,
        held_open_ns,
    }
}

impl<L: Live> Turns<'_, '_, '_, L> {
    /// One turn; `Some` when the loop ends, and why.
    #[inline(always)]
    fn turn(&mut self) -> Option<End> {
        let now = match self.enter() {
            Ok(now) => now,
            Err(end) => return Some(end),
        };
        let failed = self.reap(now);
        self.refill(now);
        #[cfg(test)]
        if self.panic_after_turns.is_some_and(|n| self.batches >= n) {
            panic!("test fault: the worker panics after {} turns", self.batches);
        }
        self.publish(now, failed)
    }

    /// Submits what is queued and waits for a completion (or the next send time), then reads
    /// the clock and, after the timer completed, the stop and abort flags. Returns the clock, or
    /// why the loop ends.
    #[inline(always)]
    fn enter(&mut self) -> Result<u64, End> {
        // No send after the spec's end: a replay's window held open waits for completions only.
        let until = if self.paced && self.window.prev < self.window.sends_end {
            self.st.next_send()
        } else {
            None
        };
        let entered = self
            .eng
            .enter(&self.clock, self.window.prev, self.in_flight, until);
        if let Err(f) = entered {
            self.failure = Some(f);
            self.shared.abort.store(true, Ordering::Relaxed);
            return Err(End::Failed);
        }
        let now = self.clock.ns();
        self.batches += 1;
        if self.replay && self.in_flight > 0 {
            self.window.follow(now, self.shared.io_timeout_ns);
        }
        self.window.advance(now, self.shared, self.st);
        if now >= self.window.end {
            return Err(End::Window);
        }
        if self.ticked {
            // Looked at when the timer completes (every 100 ms at most), not at every batch:
            // the shared flags' cache lines are then not read once per I/O at queue depth 1.
            self.ticked = false;
            if self.shared.stop.load(Ordering::Relaxed) {
                return Err(End::Stop);
            }
            if self.shared.abort.load(Ordering::Relaxed) {
                return Err(End::Abort);
            }
        }
        Ok(now)
    }

    /// Reaps every completion already queued, replacing each finished closed-loop I/O at once.
    /// Returns whether the point failed (an I/O error or a stall).
    #[inline(always)]
    fn reap(&mut self, now: u64) -> bool {
        let mut left = self.eng.ready();
        let batch = Batch {
            now,
            measuring: now >= self.window.from,
            tick: self.window.tick,
            each: submit_each(left, self.in_flight),
        };
        let mut failed = false;
        while let Some(done) = self.eng.next() {
            let done = self.st.bufs.returned(done);
            left -= 1;
            let (i, reaped) = match Tag::of(done.tag()) {
                Tag::Tick => (0, self.tick(now, &mut failed)),
                // Sent only by the drain, after this loop has ended.
                Tag::Cancel => {
                    debug_assert!(false, "a cancel's completion reached the turn");
                    (0, Reaped::Tick)
                }
                Tag::Think(i) => {
                    self.st.wake(i, now, batch.measuring, self.window.from);
                    self.next(i, &batch, false);
                    (i, Reaped::Tick)
                }
                Tag::Idle(c) => {
                    let queued = self.st.burst_wake(
                        c,
                        now,
                        batch.measuring,
                        self.window.from,
                        &mut self.eng,
                    );
                    // The idle timeout was counted in flight in place of the burst's last I/O.
                    self.in_flight = self.in_flight + queued - 1;
                    (c, Reaped::Tick)
                }
                Tag::Io(i) => (i, self.take(i, done.result(), now, &mut failed)),
            };
            match reaped {
                Reaped::Done => self.replace(i, &batch, left > 0),
                Reaped::Committed => self.committed(i, &batch, left > 0),
                Reaped::Retired => self.in_flight -= 1,
                Reaped::Requeued | Reaped::Tick => {}
            }
        }
        failed
    }

    /// The timer completed: arm it again and look for a stalled I/O.
    #[inline(always)]
    fn tick(&mut self, now: u64, failed: &mut bool) -> Reaped {
        self.ticked = true;
        if now >= self.window.from && now < self.window.end {
            self.window.pauses.ticked_in_window = true;
        }
        arm_tick(&mut self.eng);
        // The timer bounds every wait, so a stalled I/O is seen within 100 ms of its
        // timeout; checking here costs nothing per I/O.
        if !*failed
            && let Some(f) = stalled(self.st, now, self.shared.io_timeout_ns, &self.window.pauses)
        {
            *failed = true;
            self.failure = Some(f);
        }
        Reaped::Tick
    }

    /// Issues the open-loop I/Os whose send time came.
    #[inline(always)]
    fn refill(&mut self, now: u64) {
        if self.paced && now < self.window.sends_end {
            let window = (self.window.from, self.window.sends_end);
            self.in_flight += self.st.issue_due(now, window, &mut self.eng);
        }
    }

    /// Hands the consumed completions back to the kernel, updates the live counters now and
    /// then, and says whether the loop ends (a failure, or the I/O budget spent and drained).
    #[inline(always)]
    fn publish(&mut self, now: u64, failed: bool) -> Option<End> {
        // Give the consumed completions back before entering again, or the kernel would see the
        // old entries and return at once.
        self.eng.consumed();
        if now - self.published >= LIVE_EVERY_NS {
            self.st.publish(self.shared.live);
            if now >= self.window.from {
                let tick = self.window.tick;
                let second = tick / rigel_results::TICKS_PER_SECOND;
                self.st
                    .publish_seconds(self.shared.live, second, Some(tick));
            }
            self.published = now;
        }
        if failed {
            self.shared.abort.store(true, Ordering::Relaxed);
            return Some(End::Failed);
        }
        // The budget spent, or a replay's window held open (`Window::follow`) until now.
        if self.in_flight == 0 && (self.st.budget == 0 || now >= self.window.sends_end) {
            return Some(End::Window);
        }
        None
    }
}
