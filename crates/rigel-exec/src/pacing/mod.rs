//! Open-loop pacing: a rate class's send times, fixed in advance from the seed (even gaps, or
//! exponential ones for Poisson arrivals), never from completions. A worker issues each I/O at its
//! scheduled time when one of the class's slots is free; when all are busy the send time waits in
//! the backlog, and the I/O's response latency (scheduled time → completion) keeps the wait, so a
//! stalled device shows in the percentiles instead of vanishing (coordinated omission).

mod punctual;

use punctual::Punctual;
use rigel_expr::Arrival;
use rigel_plan::replay::{Replay, Request};
use rigel_results::{SEND_TOLERANCE_NS, SendGaps};
use std::sync::Arc;

/// A schedule of send times, ns since the point's start.
#[derive(Clone, Debug)]
pub struct Schedule {
    gap_ns: f64,
    arrival: Arrival,
    rng: fastrand::Rng,
    start: f64,
    /// Send times taken so far.
    k: u64,
    /// The next send time, ns (uniform: `start + (k + 1) × gap`, computed, never summed, so it
    /// does not drift; Poisson: the running sum of random gaps; a trace: `start` + the trace's
    /// own send time, absolute too; infinite once the trace is sent).
    next: f64,
    /// A replayed trace: the requests whose send times these are (`k - 1` is the next one's).
    trace: Option<Arc<Replay>>,
}

impl Schedule {
    /// Send times at `iops` per second from `start_ns`; the first falls one gap after it (a Poisson
    /// process has no send at time zero).
    pub fn new(iops: f64, arrival: Arrival, seed: u64, start_ns: u64) -> Schedule {
        let mut s = Schedule {
            gap_ns: 1e9 / iops.max(1e-9),
            arrival,
            rng: fastrand::Rng::with_seed(seed),
            start: start_ns as f64,
            k: 0,
            next: start_ns as f64,
            trace: None,
        };
        s.advance();
        s
    }

    /// The send times of a trace's requests, from `start_ns` on (`Replay::requests`' `at_ns`
    /// after it): a late send never moves the ones after it.
    pub fn replay(replay: Arc<Replay>, start_ns: u64) -> Schedule {
        let mut s = Schedule {
            gap_ns: 0.0,
            arrival: Arrival::Uniform,
            rng: fastrand::Rng::with_seed(0),
            start: start_ns as f64,
            k: 0,
            next: start_ns as f64,
            trace: Some(replay),
        };
        s.advance();
        s
    }

    /// The request of the send time taken last (a replay; None for a drawn schedule).
    #[inline]
    pub fn taken_request(&self) -> Option<Request> {
        let t = self.trace.as_ref()?;
        t.requests.get((self.k as usize).checked_sub(2)?).copied()
    }

    /// How many requests a replay holds (None for a drawn schedule).
    pub fn requests(&self) -> Option<u64> {
        Some(self.trace.as_ref()?.requests.len() as u64)
    }

    /// A replay whose every request was sent.
    #[cfg(test)]
    pub fn replayed(&self) -> bool {
        self.trace
            .as_ref()
            .is_some_and(|t| self.k as usize > t.requests.len())
    }

    fn advance(&mut self) {
        self.k += 1;
        if let Some(t) = &self.trace {
            self.next = t
                .requests
                .get(self.k as usize - 1)
                .map_or(f64::INFINITY, |r| self.start + r.at_ns as f64);
            return;
        }
        self.next = match self.arrival {
            Arrival::Uniform => self.start + self.k as f64 * self.gap_ns,
            // Inverse transform: 1 - U lies in (0, 1], so the logarithm is finite.
            Arrival::Poisson => self.next - (1.0 - self.rng.f64()).ln() * self.gap_ns,
        };
    }

    /// Moves the whole schedule `ns` later (it is made before the point's start is known).
    pub fn shift(&mut self, ns: u64) {
        self.start += ns as f64;
        self.next += ns as f64;
    }

    /// The next send time, ns (`u64::MAX` once a replay is sent).
    #[inline]
    pub fn peek(&self) -> u64 {
        // A float's cast saturates: infinity is u64::MAX.
        self.next as u64
    }

    /// Takes the next send time and moves to the one after.
    #[inline]
    pub fn take(&mut self) -> u64 {
        let t = self.peek();
        self.advance();
        t
    }
}

/// A rate class's pacing state inside one worker.
pub(super) struct Pacer {
    pub(super) schedule: Schedule,
    /// Slots of the class with no I/O in flight (capacity = the class's cap; never grows).
    pub(super) free: Vec<usize>,
    /// Send times taken inside the measured window, and those of them issued later than
    /// `SEND_TOLERANCE_NS` after their time (the results' rule for a rate achieved).
    pub(super) scheduled: u64,
    pub(super) late: u64,
    /// Every send issued, in the window or not (a replay's unsent requests are the rest).
    sent: u64,
    /// A punctual sender's slots: what of each I/O's wait was queueing behind the cap.
    pub(super) punctual: Punctual,
    /// The clock reading of the last send, and the gaps between sends inside the window.
    last_send: Option<u64>,
    pub(super) gaps: SendGaps,
}

impl Pacer {
    pub(super) fn new(schedule: Schedule, cap: usize) -> Pacer {
        Pacer {
            schedule,
            free: Vec::with_capacity(cap),
            scheduled: 0,
            late: 0,
            sent: 0,
            punctual: Punctual::new(cap),
            last_send: None,
            gaps: SendGaps::default(),
        }
    }

    /// Slot `i` is free again.
    #[inline]
    pub(super) fn release(&mut self, i: usize) {
        self.free.push(i);
    }

    /// The next send, when one is due by `now` (the clock reading it goes out at) and a slot is
    /// free. `window` is the measured window [from, end) (ns), for counting the send times and
    /// the gaps between sends in it.
    #[inline]
    pub(super) fn due(&mut self, now: u64, window: (u64, u64)) -> Option<(usize, u64)> {
        if self.schedule.peek() > now {
            return None;
        }
        let slot = self.free.pop()?;
        let t = self.schedule.take();
        self.sent += 1;
        self.count(t, window);
        if t >= window.0 && t < window.1 && now.saturating_sub(t) > SEND_TOLERANCE_NS {
            self.late += 1;
        }
        if let Some(last) = self.last_send
            && last >= window.0
        {
            self.gaps.add(now - last);
        }
        self.last_send = Some(now);
        Some((slot, t))
    }

    fn count(&mut self, t: u64, (from, end): (u64, u64)) {
        if t >= from && t < end {
            self.scheduled += 1;
        }
    }

    /// At the window's end: takes every send time due by `end` that was not issued and returns
    /// how many of them no free slot could have taken (the backlog; those a free slot would have
    /// taken only fell due in the loop's last moment).
    pub(super) fn backlog(&mut self, window: (u64, u64)) -> u64 {
        let mut n = 0u64;
        while self.schedule.peek() < window.1 {
            let t = self.schedule.take();
            self.count(t, window);
            n += 1;
        }
        n.saturating_sub(self.free.len() as u64)
    }

    /// At the loop's end: a replay's requests never sent, whether their time came or not (None
    /// for a drawn schedule).
    pub(super) fn unsent(&self) -> Option<u64> {
        Some(self.schedule.requests()?.saturating_sub(self.sent))
    }
}

/// Makes this thread's timed waits end on time: the kernel's default timer slack (50 µs) would
/// delay every paced send by up to that much. Best effort: failing leaves the default.
pub(super) fn tight_timer_slack() {
    let _ = rustix::thread::set_current_timer_slack(std::num::NonZeroU64::new(1));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gaps(arrival: Arrival, iops: f64, n: usize, seed: u64) -> Vec<f64> {
        let mut s = Schedule::new(iops, arrival, seed, 0);
        let mut prev = 0u64;
        (0..n)
            .map(|_| {
                let t = s.take();
                let g = (t - prev) as f64;
                prev = t;
                g
            })
            .collect()
    }

    #[test]
    #[serial_test::parallel]
    fn uniform_send_times_do_not_drift() {
        // 3 per second: each gap is 333,333,333.3 ns; rounding each would lose 0.3 ns a send.
        let mut s = Schedule::new(3.0, Arrival::Uniform, 1, 1_000);
        let mut last = 0;
        for _ in 0..3_000_000 {
            last = s.take();
        }
        assert_eq!(last, 1_000 + 1_000_000_000_000_000);
    }

    /// Kolmogorov–Smirnov: Poisson inter-arrival times against the exponential distribution of the
    /// same mean. D·√n stays below 1.63 (the 1% critical value) for the right distribution, and a
    /// uniform schedule of the same rate fails it by far.
    #[test]
    #[serial_test::parallel]
    fn poisson_gaps_pass_a_ks_test_against_the_exponential() {
        let ks = |mut g: Vec<f64>, mean: f64| {
            g.sort_by(f64::total_cmp);
            let n = g.len() as f64;
            let d = g
                .iter()
                .enumerate()
                .map(|(i, &x)| {
                    let f = 1.0 - (-x / mean).exp();
                    (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
                })
                .fold(0.0, f64::max);
            d * n.sqrt()
        };
        let mean = 1e9 / 20_000.0;
        for seed in [1, 2, 3] {
            let stat = ks(gaps(Arrival::Poisson, 20_000.0, 20_000, seed), mean);
            assert!(stat < 1.63, "seed {seed}: KS statistic {stat}");
        }
        assert!(ks(gaps(Arrival::Uniform, 20_000.0, 20_000, 1), mean) > 10.0);
        // The rate holds: 20,000 Poisson gaps sum to about one second (σ = 0.7%).
        let total: f64 = gaps(Arrival::Poisson, 20_000.0, 20_000, 9).iter().sum();
        assert!((total / 1e9 - 1.0).abs() < 0.03, "{total}");
    }

    #[test]
    #[serial_test::parallel]
    fn the_same_seed_gives_the_same_schedule() {
        assert_eq!(
            gaps(Arrival::Poisson, 1000.0, 100, 5),
            gaps(Arrival::Poisson, 1000.0, 100, 5)
        );
        assert_ne!(
            gaps(Arrival::Poisson, 1000.0, 100, 5),
            gaps(Arrival::Poisson, 1000.0, 100, 6)
        );
    }

    #[test]
    #[serial_test::parallel]
    fn a_replay_schedule_keeps_the_traces_absolute_times_and_hands_out_its_requests() {
        use rigel_plan::replay::ReplayOp;
        let req = |at_ns, offset| Request {
            at_ns,
            offset,
            len: 4096,
            op: ReplayOp::Read,
        };
        let replay = Replay {
            requests: vec![req(0, 0), req(10, 4096), req(10, 8192), req(1_000, 0)],
            ..Replay::default()
        };
        let mut s = Schedule::replay(Arc::new(replay), 500);
        s.shift(1_000_000);
        assert_eq!(s.taken_request(), None);
        let mut got = Vec::new();
        while s.peek() != u64::MAX {
            let t = s.take();
            got.push((t, s.taken_request().map(|r| r.offset)));
        }
        assert!(s.replayed());
        assert_eq!(
            got,
            [
                (1_000_500, Some(0)),
                (1_000_510, Some(4096)),
                (1_000_510, Some(8192)),
                (1_001_500, Some(0))
            ]
        );
        // A pacer late by far sends at once, in order, each still stamped with its own time.
        let mut p = Pacer::new(s.clone(), 4);
        p.schedule = Schedule::replay(
            Arc::new(Replay {
                requests: vec![req(0, 0), req(10, 4096)],
                ..Replay::default()
            }),
            0,
        );
        (0..4).for_each(|i| p.release(i));
        assert_eq!(p.due(5_000, (0, 10_000)).map(|d| d.1), Some(0));
        assert_eq!(p.due(5_000, (0, 10_000)).map(|d| d.1), Some(10));
        assert_eq!(p.due(5_000, (0, 10_000)), None);
        assert_eq!(p.backlog((0, 10_000)), 0);
    }

    #[test]
    #[serial_test::parallel]
    fn a_busy_class_builds_a_backlog_and_counts_only_the_window() {
        let mut p = Pacer::new(Schedule::new(1000.0, Arrival::Uniform, 1, 0), 1);
        p.release(7);
        let window = (2_000_000, 10_000_000);
        // Due at 1 ms (before the window): issued, not counted.
        assert_eq!(p.due(1_500_000, window), Some((7, 1_000_000)));
        // Due at 2 ms but no free slot: waits.
        assert_eq!(p.due(5_000_000, window), None);
        p.release(7);
        assert_eq!(p.due(5_000_000, window), Some((7, 2_000_000)));
        assert_eq!(
            p.gaps.n, 0,
            "the first send in the window has no gap inside it"
        );
        p.release(7);
        assert_eq!(p.due(6_000_000, window), Some((7, 3_000_000)));
        assert_eq!((p.gaps.n, p.gaps.sum_ns), (1, 1_000_000.0));
        // 4..=9 ms still due by the end, no slot free: the backlog.
        assert_eq!(p.backlog(window), 6);
        let mut q = Pacer::new(Schedule::new(1000.0, Arrival::Uniform, 1, 0), 2);
        q.release(1);
        q.release(2);
        // Three due at the end with two slots free: one is backlog.
        assert_eq!(q.backlog((0, 3_500_000)), 1);
        assert_eq!(p.scheduled, 8);
    }
}
