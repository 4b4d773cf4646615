//! The measured window as a worker sees it: learnt once every worker runs, the 100 ms tick each
//! batch falls in, and the time-weighted count of I/Os in flight (Little's law's L) integrated over it.
//!
//! The in-flight count is integrated over the spans between clock readings, each span counted
//! whole when the reading that ends it falls in the window: the same readings decide which
//! completions are recorded. A worker that lost its CPU across the window's start or end (a
//! loaded host) then neither counts time in flight it records no I/O for, nor the reverse, and
//! the depth held equals IOPS × mean latency up to the I/Os in flight at the first and last
//! readings (clipped to the window's edges instead: 0.92 of it in a 300 ms point under load).

use super::pause::Pauses;
use super::slots::State;
use crate::{NOT_YET, Shared};
use std::sync::atomic::Ordering;

/// How long the workers wait for each other to start before measuring anyway.
const START_LIMIT_NS: u64 = 5_000_000_000;

/// The measured window as one worker sees it: unknown until every worker runs (nothing is
/// measured and nothing ends before), then `[from, end)` in ns since the point's start.
pub(crate) struct Window {
    pub(crate) from: u64,
    pub(crate) end: u64,
    /// No send after it: the window's end as the spec set it. A replay's `end` then follows the
    /// completions of the requests still in flight (`follow`); any other window ends here.
    pub(crate) sends_end: u64,
    /// The clock at the previous batch: the in-flight area is integrated between batches.
    pub(crate) prev: u64,
    /// The window's tick `now` falls in (0 before the window; `TICKS_PER_SECOND` a second, so
    /// the recorder finds the second too), and when the next one starts: found by a comparison per
    /// batch, not a division.
    pub(crate) tick: usize,
    pub(crate) next_tick: u64,
    /// The gaps in which this worker did not run.
    pub(crate) pauses: Pauses,
}

/// A tick's length, ns.
const TICK_NS: u64 = 1_000_000_000 / rigel_results::TICKS_PER_SECOND as u64;

impl Window {
    /// Before the window is known, at the clock reading `now`.
    pub(crate) fn new(now: u64) -> Window {
        Window {
            from: NOT_YET,
            end: NOT_YET,
            sends_end: NOT_YET,
            prev: now,
            tick: 0,
            next_tick: NOT_YET,
            pauses: Pauses::default(),
        }
    }

    /// A replay's window stays open at `now` while requests it sent are in flight, up to `limit_ns`
    /// past the spec's end: each request went out at its trace time, and cutting the window at
    /// the spec's end would drop the latencies of the last ones sent (on a slow host, the
    /// completions of the last half of a trace's discards, all of which reached the device). The
    /// window then ends at the last completion's reading, and the time held open is measured
    /// like the rest of it.
    #[inline]
    pub(crate) fn follow(&mut self, now: u64, limit_ns: u64) {
        if now >= self.end && now < self.sends_end.saturating_add(limit_ns) {
            self.end = now + 1;
        }
    }

    /// How long the window stayed open past the spec's end (`follow`), ns.
    pub(crate) fn held_open_ns(&self) -> u64 {
        if self.end == NOT_YET {
            return 0;
        }
        self.end.saturating_sub(self.sends_end)
    }

    /// Learns the window once the last worker has set it, and adds the time-weighted in-flight
    /// count since the previous batch when `now` falls in the window.
    #[inline]
    pub(crate) fn advance(&mut self, now: u64, shared: &Shared<'_>, st: &mut State<'_>) {
        if self.from == NOT_YET {
            self.from = shared.measure_from.load(Ordering::Acquire);
            if self.from == NOT_YET && now > START_LIMIT_NS {
                // Some worker cannot get the CPU to start (several workers pinned to one CPU
                // under a real-time policy): measure without it rather than never end.
                let from = (now + shared.warmup_ns).max(shared.not_before.load(Ordering::Acquire));
                self.from = match shared.measure_from.compare_exchange(
                    NOT_YET,
                    from,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                ) {
                    Ok(_) => from,
                    Err(set) => set,
                };
            }
            self.end = self.from.saturating_add(shared.window_ns);
            self.sends_end = self.end;
            self.next_tick = self.from;
        }
        if now >= self.next_tick {
            let tick = (now - self.from) / TICK_NS;
            self.tick = tick as usize;
            self.next_tick = self.from + (tick + 1) * TICK_NS;
        }
        self.pauses.span(self.prev, now, self.from, self.end);
        if now >= self.from && now < self.end {
            let dt = now - self.prev;
            for c in &mut st.classes {
                c.area += u128::from(c.in_flight) * u128::from(dt);
            }
        }
        self.prev = now;
    }
}
