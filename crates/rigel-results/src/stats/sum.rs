//! Adding one class's results from many hosts (a fleet's point): counts, bytes and rates add, HDR
//! histograms add exactly and the percentiles come from the sum (never an average of percentiles),
//! min and max take the extremes, the mean is weighted by the I/Os. An open-loop class's service
//! latencies add the same way, and its schedule's figures (requested and achieved rates, send
//! times, backlog) sum. First touch's sampled reads add as the latencies do.

use crate::codec::{HdrAdder, HdrSum, encode, latency_of};
use crate::rate_achieved;
use crate::stream::{LightClass, LightDir};
use crate::{
    ClassResult, DirStats, Interval, LatencyStats, PaceResult, ServiceStats, TouchReads,
    TouchResult,
};

/// One class's figures summed over hosts.
#[derive(Debug)]
pub struct ClassSum {
    class: String,
    size: u64,
    outstanding: u32,
    total: DirSum,
    read: Option<DirSum>,
    write: Option<DirSum>,
    trim: Option<DirSum>,
    intervals: Vec<IntervalSum>,
    pace: Option<PaceResult>,
    /// First touch's sampled reads: first touches, re-touches.
    touch: Option<Box<[LatSum; 2]>>,
}

/// Latencies of one direction summed over hosts.
#[derive(Debug)]
struct LatSum {
    ios: u64,
    sum_ns: f64,
    min_ns: u64,
    max_ns: u64,
    hist: HdrSum,
}

#[derive(Debug)]
struct DirSum {
    ios: u64,
    bytes: u64,
    iops: f64,
    mbps: f64,
    latency: LatSum,
    /// Open loop: the service latencies, beside the response ones in `latency`.
    service: Option<LatSum>,
}

#[derive(Debug, Default)]
struct IntervalSum {
    t_s: f64,
    ios: u64,
    iops: f64,
    mbps: f64,
    sum_ns: f64,
    p99_ns: u64,
}

/// The mean of `ios` latencies that add to `sum_ns` (the hosts' means weighted by their I/Os);
/// 0 without I/Os.
fn mean_ns(sum_ns: f64, ios: u64) -> f64 {
    if ios > 0 { sum_ns / ios as f64 } else { 0.0 }
}

impl LatSum {
    fn new() -> LatSum {
        LatSum {
            ios: 0,
            sum_ns: 0.0,
            min_ns: u64::MAX,
            max_ns: 0,
            hist: HdrSum::default(),
        }
    }

    /// Adds one host's `ios` latencies; their histogram too when given.
    fn add(&mut self, ios: u64, l: &LatencyStats, histogram: Option<&str>, hdr: &mut HdrAdder) {
        self.ios += ios;
        self.sum_ns += l.mean_ns * ios as f64;
        if ios > 0 {
            self.min_ns = self.min_ns.min(l.min_ns);
            self.max_ns = self.max_ns.max(l.max_ns);
        }
        if let Some(text) = histogram {
            // Every rigel histogram has the same bounds; one that does not fit is left out.
            hdr.add(&mut self.hist, text);
        }
    }

    fn join(&mut self, other: LatSum) {
        self.ios += other.ios;
        self.sum_ns += other.sum_ns;
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
        self.hist.join(&other.hist);
    }

    fn mean_ns(&self) -> f64 {
        mean_ns(self.sum_ns, self.ios)
    }

    fn stats(&self) -> (LatencyStats, String) {
        match self.hist.histogram() {
            Some(h) => (
                latency_of(&h, self.ios, self.sum_ns, self.min_ns, self.max_ns),
                encode(&h),
            ),
            None => (Default::default(), String::new()),
        }
    }
}

impl DirSum {
    fn new() -> DirSum {
        DirSum {
            ios: 0,
            bytes: 0,
            iops: 0.0,
            mbps: 0.0,
            latency: LatSum::new(),
            service: None,
        }
    }

    /// Adds one host's figures; its histograms too when `with_histogram`.
    fn add(&mut self, d: &LightDir, with_histogram: bool, hdr: &mut HdrAdder) {
        self.ios += d.ios;
        self.bytes += d.bytes;
        self.iops += d.iops;
        self.mbps += d.mbps;
        let hist = |t| with_histogram.then_some(t);
        self.latency
            .add(d.ios, &d.latency, hist(d.histogram.as_ref()), hdr);
        if let Some(s) = &d.service {
            self.service.get_or_insert_with(LatSum::new).add(
                d.ios,
                &s.latency,
                hist(s.histogram.as_ref()),
                hdr,
            );
        }
    }

    /// Adds another partial sum of the same direction (hosts summed on another thread).
    fn join(&mut self, other: DirSum) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.iops += other.iops;
        self.mbps += other.mbps;
        self.latency.join(other.latency);
        if let Some(s) = other.service {
            self.service.get_or_insert_with(LatSum::new).join(s);
        }
    }

    fn stats(&self) -> DirStats {
        let (latency, histogram) = self.latency.stats();
        DirStats {
            ios: self.ios,
            bytes: self.bytes,
            iops: self.iops,
            mbps: self.mbps,
            latency,
            histogram,
            service: self.service.as_ref().map(|s| {
                let (latency, histogram) = s.stats();
                ServiceStats { latency, histogram }
            }),
        }
    }
}

impl ClassSum {
    /// A sum starting from one host's result of the class.
    pub fn new(first: &LightClass, hdr: &mut HdrAdder) -> ClassSum {
        let mut sum = ClassSum {
            class: first.class.to_string(),
            size: first.size,
            outstanding: first.outstanding,
            total: DirSum::new(),
            read: first.read.as_ref().map(|_| DirSum::new()),
            write: first.write.as_ref().map(|_| DirSum::new()),
            trim: first.trim.as_ref().map(|_| DirSum::new()),
            intervals: Vec::new(),
            pace: None,
            touch: None,
        };
        sum.add(first, hdr);
        sum
    }

    /// The class's name.
    pub fn name(&self) -> &str {
        &self.class
    }

    /// Adds one more host's result of the same class.
    pub fn add(&mut self, c: &LightClass, hdr: &mut HdrAdder) {
        // The total's histograms are the sums of the directions': only read them when it has none.
        let directions = c.read.is_some() || c.write.is_some() || c.trim.is_some();
        self.total.add(&c.total, !directions, hdr);
        let dirs = [
            (&mut self.read, &c.read),
            (&mut self.write, &c.write),
            (&mut self.trim, &c.trim),
        ];
        for (sum, d) in dirs {
            if let Some(d) = d {
                sum.get_or_insert_with(DirSum::new).add(d, true, hdr);
            }
        }
        if self.intervals.len() < c.intervals.len() {
            self.intervals
                .resize_with(c.intervals.len(), IntervalSum::default);
        }
        for (sum, iv) in self.intervals.iter_mut().zip(&c.intervals) {
            sum.t_s = sum.t_s.max(iv.t_s);
            sum.ios += iv.ios;
            sum.iops += iv.iops;
            sum.mbps += iv.mbps;
            sum.sum_ns += iv.mean_ns * iv.ios as f64;
            sum.p99_ns = sum.p99_ns.max(iv.p99_ns);
        }
        if let Some(p) = &c.pace {
            self.add_pace(p);
        }
        if let Some(t) = &c.touch {
            let sums = self
                .touch
                .get_or_insert_with(|| Box::new([LatSum::new(), LatSum::new()]));
            for (sum, r) in sums.iter_mut().zip([&t.first, &t.retouch]) {
                // No exact extremes are kept for sampled reads: the percentiles are the
                // histogram's, unclamped.
                let l = LatencyStats {
                    mean_ns: r.mean_ns,
                    min_ns: 0,
                    max_ns: u64::MAX,
                    ..Default::default()
                };
                sum.add(r.reads, &l, r.histogram.as_deref(), hdr);
            }
        }
    }

    /// The hosts' schedules together: rates, send times and backlogs add.
    fn add_pace(&mut self, p: &PaceResult) {
        match &mut self.pace {
            Some(sum) => {
                sum.requested_iops += p.requested_iops;
                sum.scheduled += p.scheduled;
                sum.achieved_iops += p.achieved_iops;
                sum.carried += p.carried;
                sum.backlog += p.backlog;
                sum.late += p.late;
                if let Some(n) = p.unsent {
                    *sum.unsent.get_or_insert(0) += n;
                }
                // One host's delays and send gaps are its own: not summed across hosts.
                (sum.queued, sum.lag, sum.send_gap_cv) = (None, None, None);
            }
            None => self.pace = Some(p.clone()),
        }
    }

    /// Adds another partial sum of the same class: summing hosts in groups, then the groups, gives
    /// the figures of summing them one by one.
    pub fn join(&mut self, other: ClassSum) {
        self.total.join(other.total);
        let dirs = [
            (&mut self.read, other.read),
            (&mut self.write, other.write),
            (&mut self.trim, other.trim),
        ];
        for (mine, theirs) in dirs {
            if let Some(d) = theirs {
                mine.get_or_insert_with(DirSum::new).join(d);
            }
        }
        if self.intervals.len() < other.intervals.len() {
            self.intervals
                .resize_with(other.intervals.len(), IntervalSum::default);
        }
        for (sum, iv) in self.intervals.iter_mut().zip(other.intervals) {
            sum.t_s = sum.t_s.max(iv.t_s);
            sum.ios += iv.ios;
            sum.iops += iv.iops;
            sum.mbps += iv.mbps;
            sum.sum_ns += iv.sum_ns;
            sum.p99_ns = sum.p99_ns.max(iv.p99_ns);
        }
        if let Some(p) = &other.pace {
            self.add_pace(p);
        }
        if let Some(theirs) = other.touch {
            let mine = self
                .touch
                .get_or_insert_with(|| Box::new([LatSum::new(), LatSum::new()]));
            let [first, again] = *theirs;
            mine[0].join(first);
            mine[1].join(again);
        }
    }

    /// The summed class. Each second's p99 is the highest host's: an upper bound of the fleet's
    /// (no host has more than 1% of its I/Os above it), since the per-second histograms are not kept.
    /// An open-loop class achieved its rate when the fleet as a whole did, by the rule one host's
    /// run uses: no backlog left, and 99% of the send times issued on time.
    pub fn finish(mut self) -> ClassResult {
        for d in [&self.read, &self.write, &self.trim].into_iter().flatten() {
            self.total.latency.hist.join(&d.latency.hist);
            if let Some(s) = &d.service {
                let total = self.total.service.get_or_insert_with(LatSum::new);
                total.hist.join(&s.hist);
            }
        }
        let pace = self.pace.take().map(|p| PaceResult {
            achieved: rate_achieved(p.scheduled, p.backlog, p.late) && p.unsent.unwrap_or(0) == 0,
            ..p
        });
        // Ticks are not summed across hosts (their clocks' ticks do not line up), nor the parts
        // one host measures alone (depth held, skew, size shares, commits, think, bursts).
        let reads = |s: &LatSum| {
            let (l, histogram) = s.stats();
            TouchReads {
                reads: s.ios,
                p50_ns: l.p50_ns,
                p99_ns: l.p99_ns,
                mean_ns: s.mean_ns(),
                histogram: (s.ios > 0).then_some(histogram),
            }
        };
        let touch = self.touch.as_deref().map(|[f, a]| TouchResult {
            first: reads(f),
            retouch: reads(a),
        });
        ClassResult {
            touch,
            read: self.read.as_ref().map(DirSum::stats),
            write: self.write.as_ref().map(DirSum::stats),
            trim: self.trim.as_ref().map(DirSum::stats),
            pace,
            intervals: self
                .intervals
                .iter()
                .map(|s| Interval {
                    t_s: s.t_s,
                    ios: s.ios,
                    iops: s.iops,
                    mbps: s.mbps,
                    mean_ns: mean_ns(s.sum_ns, s.ios),
                    p99_ns: s.p99_ns,
                    // Per-second histograms are not merged across hosts (hlog reads rank folders).
                    read_histogram: None,
                    write_histogram: None,
                })
                .collect(),
            ..ClassResult::new(self.class, self.size, self.outstanding, self.total.stats())
        }
    }
}

#[cfg(test)]
#[path = "sum_tests.rs"]
mod tests;
