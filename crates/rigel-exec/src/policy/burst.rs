//! Bursts (`burst = { ios = 64, idle = "10ms" }`), as a checkpoint or a batch job issues them: the
//! class keeps its depth in flight until it has issued the burst's `ios` I/Os, its slots park as
//! their I/Os complete, and when the burst's last I/O completes the class is idle for `idle`: a
//! timer request in the engine (tagged with the class), so the worker sleeps in the kernel as for
//! any completion. When it completes the next burst starts at once on every parked slot. A
//! bursting class runs on one worker (`share.rs`), so a burst is the class's, not a worker's
//! share of it. The bursts (I/Os completed, length) and the idle achieved are recorded, each only
//! when it began and ended in the measured window: one begun before it would count time outside
//! it (as long as the host held rigel across the window's start), as a think wait would.

use crate::engines::Interval;
use rigel_results::ClassRecorder;
use std::ops::Range;

/// What a bursting class's slot does after its I/O completed.
pub(crate) enum AfterIo {
    /// Its next I/O, of the current burst.
    Issue,
    /// Nothing: the burst has issued its I/Os; the slot waits for the next burst.
    Park,
    /// Nothing, and the burst is over: the class's idle timeout is queued (counted in flight in
    /// the slot's place).
    Idle,
}

/// A bursting class's state in its worker (the worker's state holds it; `waits` drives its
/// slots and timers from what it says).
pub(crate) struct BurstState {
    pub(crate) ios: u32,
    pub(crate) idle: Interval,
    /// The class's slots (contiguous: `setup` lays a class's slots out together).
    pub(crate) slots: Range<usize>,
    /// I/Os the current burst may still issue, and those of it completed.
    left: u32,
    done: u32,
    /// When the current burst started, and when the last idle started.
    started_ns: u64,
    idle_from: u64,
}

impl BurstState {
    pub(crate) fn new(b: rigel_plan::Burst, slots: Range<usize>) -> BurstState {
        BurstState {
            ios: b.ios,
            idle: Interval::from_ns(b.idle_ns),
            slots,
            left: b.ios,
            done: 0,
            started_ns: 0,
            idle_from: 0,
        }
    }

    /// The point's first I/Os, started at `now`: one of the first burst (true), or none when the
    /// burst is smaller than the class's depth (false: the slot parks).
    pub(crate) fn first(&mut self, now: u64) -> bool {
        self.started_ns = now;
        self.take()
    }

    /// Takes one I/O of the current burst: false once the burst has issued all of them.
    #[inline]
    pub(crate) fn take(&mut self) -> bool {
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        true
    }

    /// One of the burst's I/Os completed at `now`, `in_flight` of the class's I/Os still out:
    /// the slot's next I/O, or it parks, and the burst ends with its last completion (recorded
    /// in `rec` when it began and ended inside the measured window, from `from`) and the idle
    /// starts.
    #[inline]
    pub(crate) fn completed(
        &mut self,
        in_flight: u32,
        now: u64,
        measuring: bool,
        from: u64,
        rec: &mut ClassRecorder,
    ) -> AfterIo {
        self.done += 1;
        if self.take() {
            return AfterIo::Issue;
        }
        if in_flight > 0 {
            return AfterIo::Park;
        }
        if measuring && self.started_ns >= from {
            rec.record_burst(u64::from(self.done), now.saturating_sub(self.started_ns));
        }
        self.done = 0;
        self.idle_from = now;
        AfterIo::Idle
    }

    /// The idle ended at `now`: records the idle achieved (when it began and ended inside the
    /// measured window, from `from`) and starts the next burst.
    pub(crate) fn wake(&mut self, now: u64, measuring: bool, from: u64, rec: &mut ClassRecorder) {
        if measuring && self.idle_from >= from {
            rec.record_idle(now.saturating_sub(self.idle_from));
        }
        (self.left, self.started_ns) = (self.ios, now);
    }
}
