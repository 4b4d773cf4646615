//! A fleet's common schedule: when each point starts on every host, and when its measured window
//! begins (the same wall-clock instant everywhere).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

/// The `i`-th point to do starts at `t0 + drain + i × slot` (wall clock, shared by every host of
/// a fleet); a `[drain]` runs from `t0` until the first point's start on every host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Starts {
    pub t0: SystemTime,
    pub slot: Duration,
    /// The time reserved for the drain (its limit and a slot's setup gap; zero without one).
    pub drain: Duration,
}

/// How long after its agreed start a fleet point's warmup ends and its measured window begins on
/// every host: the executor's setup (rings, buffers, threads) fits in it, so a host that set up
/// slowly still starts its window with the others (a fleet test saw one rank's first window 60 ms
/// late: 94% overlap of 1 s windows). The slot's setup gap (1 s) holds it.
pub const WINDOW_LEAD: Duration = Duration::from_millis(250);

impl Starts {
    pub fn at(&self, i: usize) -> SystemTime {
        self.t0 + self.drain + self.slot * i as u32
    }

    /// The agreed start of the `i`-th point's measured window: its start, the lead, the warmup.
    pub fn window_at(&self, i: usize, warmup: Duration) -> SystemTime {
        self.at(i) + WINDOW_LEAD + warmup
    }
}

/// A fleet's meeting after `[precondition]`: a fill takes each host its own time, so no rank
/// measures until every rank's has ended, and the points' schedule then starts again from a T0
/// after the slowest (`rigel-fleet` implements it through the fleet folder).
pub trait Barrier: Send + Sync + std::fmt::Debug {
    /// Says how this rank's precondition ended (`Ok(filled)`: whether it ran one; `Err(why)`: it
    /// failed), waits for every other rank's, and returns the T0 the points' schedule starts from;
    /// or why this rank measures nothing (another rank's fill failed, or `stop` was set).
    fn preconditioned(
        &self,
        ended: Result<bool, String>,
        stop: &AtomicBool,
    ) -> Result<SystemTime, String>;
}

/// Sleeps until `when` (wall clock); false when a signal asked the run to stop meanwhile.
pub(super) fn wait_until(when: SystemTime, stop: &AtomicBool) -> bool {
    while let Ok(left) = when.duration_since(SystemTime::now()) {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        std::thread::sleep(left.min(Duration::from_millis(20)));
    }
    !stop.load(Ordering::Relaxed)
}
