//! An open-loop class's delays beside its response and service times: per I/O, the wait for a
//! free slot behind the outstanding cap and rigel's own send lag; per class, the spread of the
//! gaps between its sends. Each I/O's response time is exactly queued + lag + service, so the
//! three histograms say where a response time came from.

use super::DirRecorder;
use crate::model::ServiceStats;

/// The gaps between consecutive sends of one class on one worker: count, sum and sum of squares
/// (ns, ns²), added over workers (a pooled variance: every worker of a class runs the same rate).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SendGaps {
    pub n: u64,
    pub sum_ns: f64,
    pub sum_sq: f64,
}

impl SendGaps {
    /// Adds one gap.
    #[inline]
    pub fn add(&mut self, gap_ns: u64) {
        let g = gap_ns as f64;
        self.n += 1;
        self.sum_ns += g;
        self.sum_sq += g * g;
    }

    pub fn merge(&mut self, other: &SendGaps) {
        self.n += other.n;
        self.sum_ns += other.sum_ns;
        self.sum_sq += other.sum_sq;
    }

    /// stdev / mean of the gaps; none with fewer than 2 gaps or a mean of 0.
    pub fn cv(&self) -> Option<f64> {
        if self.n < 2 || self.sum_ns <= 0.0 {
            return None;
        }
        let n = self.n as f64;
        let mean = self.sum_ns / n;
        let var = (self.sum_sq / n - mean * mean).max(0.0);
        Some(var.sqrt() / mean)
    }
}

/// What an open-loop class records besides its response and service latencies.
#[derive(Clone, Debug)]
pub(super) struct Delays {
    queued: DirRecorder,
    lag: DirRecorder,
    gaps: SendGaps,
    /// I/Os completed in the window that were due before it but sent only inside it (a backlog
    /// carried in from the warmup): completions, but not of the window's schedule.
    pub(super) carried: u64,
}

impl Delays {
    pub(super) fn new() -> Delays {
        Delays {
            queued: DirRecorder::new(),
            lag: DirRecorder::new(),
            gaps: SendGaps::default(),
            carried: 0,
        }
    }

    #[inline]
    pub(super) fn record(&mut self, queued_ns: u64, lag_ns: u64) {
        self.queued.record(queued_ns, 0);
        self.lag.record(lag_ns, 0);
    }

    pub(super) fn add_gaps(&mut self, gaps: &SendGaps) {
        self.gaps.merge(gaps);
    }

    pub(super) fn merge(&mut self, other: &Delays) {
        self.queued.merge(&other.queued);
        self.lag.merge(&other.lag);
        self.gaps.merge(&other.gaps);
        self.carried += other.carried;
    }

    /// (queued, lag, send-gap CV) as the results give them; none for a histogram with no I/O.
    pub(super) fn figures(&self) -> (Option<ServiceStats>, Option<ServiceStats>, Option<f64>) {
        let stats = |d: &DirRecorder| {
            (d.ios > 0).then(|| ServiceStats {
                latency: d.latency(),
                histogram: crate::codec::encode(&d.hist),
            })
        };
        (stats(&self.queued), stats(&self.lag), self.gaps.cv())
    }
}

#[cfg(test)]
mod tests {
    use super::SendGaps;

    #[test]
    fn the_gap_cv_is_zero_for_even_gaps_and_about_one_for_exponential_ones() {
        let mut even = SendGaps::default();
        (0..1000).for_each(|_| even.add(20_000));
        assert_eq!(even.cv(), Some(0.0));
        // Bursts: pairs sent together (a gap of 0, then 40 µs): CV 1.
        let mut pairs = SendGaps::default();
        (0..1000).for_each(|i| pairs.add(if i % 2 == 0 { 0 } else { 40_000 }));
        assert!((pairs.cv().expect("gaps") - 1.0).abs() < 1e-9);
        // Exponential gaps by inverse transform over an even grid of quantiles: CV → 1.
        let mut exp = SendGaps::default();
        let n = 100_000;
        (0..n).for_each(|i| {
            let u = (i as f64 + 0.5) / n as f64;
            exp.add((-(1.0 - u).ln() * 20_000.0) as u64);
        });
        assert!(
            (exp.cv().expect("gaps") - 1.0).abs() < 0.01,
            "{:?}",
            exp.cv()
        );
        assert_eq!(SendGaps::default().cv(), None);
    }
}
