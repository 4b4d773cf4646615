//! Adding one class's results from many hosts (a fleet's point): counts, bytes and rates add, HDR
//! histograms add exactly and the percentiles come from the sum (never an average of percentiles),
//! min and max take the extremes, the mean is weighted by the I/Os.

use super::model::{ClassResult, DirStats, Interval};
use super::recorder::{decode_histogram, encode, latency_of};
use hdrhistogram::Histogram;

/// One class's figures summed over hosts.
#[derive(Debug)]
pub struct ClassSum {
    class: String,
    size: u64,
    outstanding: u32,
    total: DirSum,
    read: Option<DirSum>,
    write: Option<DirSum>,
    intervals: Vec<IntervalSum>,
}

#[derive(Debug, Default)]
struct DirSum {
    ios: u64,
    bytes: u64,
    iops: f64,
    mbps: f64,
    sum_ns: f64,
    min_ns: u64,
    max_ns: u64,
    hist: Option<Histogram<u64>>,
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

impl DirSum {
    fn new() -> DirSum {
        DirSum {
            min_ns: u64::MAX,
            ..DirSum::default()
        }
    }

    /// Adds one host's figures; its histogram too when `with_histogram`.
    fn add(&mut self, d: &DirStats, with_histogram: bool) {
        self.ios += d.ios;
        self.bytes += d.bytes;
        self.iops += d.iops;
        self.mbps += d.mbps;
        self.sum_ns += d.latency.mean_ns * d.ios as f64;
        if d.ios > 0 {
            self.min_ns = self.min_ns.min(d.latency.min_ns);
            self.max_ns = self.max_ns.max(d.latency.max_ns);
        }
        if with_histogram && let Some(h) = decode_histogram(&d.histogram) {
            self.add_histogram(&h);
        }
    }

    /// Adds another partial sum of the same direction (hosts summed on another thread).
    fn join(&mut self, other: DirSum) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.iops += other.iops;
        self.mbps += other.mbps;
        self.sum_ns += other.sum_ns;
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
        if let Some(h) = other.hist {
            match &mut self.hist {
                Some(_) => self.add_histogram(&h),
                None => self.hist = Some(h),
            }
        }
    }

    fn add_histogram(&mut self, h: &Histogram<u64>) {
        match &mut self.hist {
            // Every rigel histogram has the same bounds; one that does not fit is left out rather
            // than clamped into a wrong percentile.
            Some(mine) => {
                let _ = mine.add(h);
            }
            None => self.hist = Some(h.clone()),
        }
    }

    fn stats(&self) -> DirStats {
        let (latency, histogram) = match &self.hist {
            Some(h) => (
                latency_of(h, self.ios, self.sum_ns, self.min_ns, self.max_ns),
                encode(h),
            ),
            None => (Default::default(), String::new()),
        };
        DirStats {
            ios: self.ios,
            bytes: self.bytes,
            iops: self.iops,
            mbps: self.mbps,
            latency,
            histogram,
            // Open-loop figures are not merged across ranks yet.
            service: None,
        }
    }
}

impl ClassSum {
    /// A sum starting from one host's result of the class.
    pub fn new(first: &ClassResult) -> ClassSum {
        let mut sum = ClassSum {
            class: first.class.clone(),
            size: first.size,
            outstanding: first.outstanding,
            total: DirSum::new(),
            read: first.read.as_ref().map(|_| DirSum::new()),
            write: first.write.as_ref().map(|_| DirSum::new()),
            intervals: Vec::new(),
        };
        sum.add(first);
        sum
    }

    /// The class's name.
    pub fn name(&self) -> &str {
        &self.class
    }

    /// Adds one more host's result of the same class.
    pub fn add(&mut self, c: &ClassResult) {
        // The total's histogram is the sum of the directions': only decode it when it has none.
        let directions = c.read.is_some() || c.write.is_some();
        self.total.add(&c.total, !directions);
        for (sum, d) in [(&mut self.read, &c.read), (&mut self.write, &c.write)] {
            if let Some(d) = d {
                sum.get_or_insert_with(DirSum::new).add(d, true);
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
    }

    /// Adds another partial sum of the same class: summing hosts in groups, then the groups, gives
    /// the figures of summing them one by one.
    pub fn join(&mut self, other: ClassSum) {
        self.total.join(other.total);
        for (mine, theirs) in [(&mut self.read, other.read), (&mut self.write, other.write)] {
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
    }

    /// The summed class. Each second's p99 is the highest host's: an upper bound of the fleet's
    /// (no host has more than 1% of its I/Os above it), since the per-second histograms are not kept.
    pub fn finish(mut self) -> ClassResult {
        for d in [&self.read, &self.write].into_iter().flatten() {
            if let Some(h) = &d.hist {
                self.total.add_histogram(h);
            }
        }
        ClassResult {
            class: self.class,
            size: self.size,
            outstanding: self.outstanding,
            total: self.total.stats(),
            read: self.read.as_ref().map(DirSum::stats),
            write: self.write.as_ref().map(DirSum::stats),
            pace: None,
            intervals: self
                .intervals
                .iter()
                .map(|s| Interval {
                    t_s: s.t_s,
                    ios: s.ios,
                    iops: s.iops,
                    mbps: s.mbps,
                    mean_ns: if s.ios > 0 {
                        s.sum_ns / s.ios as f64
                    } else {
                        0.0
                    },
                    p99_ns: s.p99_ns,
                    // Per-second histograms are not merged across hosts (hlog reads rank folders).
                    read_histogram: None,
                    write_histogram: None,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::ClassRecorder;

    #[test]
    fn hosts_add_exactly() {
        let mut a = ClassRecorder::new(1);
        let mut b = ClassRecorder::new(1);
        let mut both = ClassRecorder::new(1);
        for i in 1..=2000u64 {
            a.record(false, 10_000 + i, 4096, 0);
            both.record(false, 10_000 + i, 4096, 0);
        }
        for i in 1..=500u64 {
            b.record(i % 5 == 0, 900_000 + i * 100, 4096, 0);
            both.record(i % 5 == 0, 900_000 + i * 100, 4096, 0);
        }
        let (ra, rb) = (
            a.finish("small", 4096, 4, true, true, 1.0),
            b.finish("small", 4096, 4, true, true, 1.0),
        );
        let mut sum = ClassSum::new(&ra);
        sum.add(&rb);
        let merged = sum.finish();
        let truth = both.finish("small", 4096, 4, true, true, 1.0);
        assert_eq!(merged.total.ios, 2500);
        assert_eq!(merged.total.iops, ra.total.iops + rb.total.iops);
        assert_eq!(merged.total.latency.p99_ns, truth.total.latency.p99_ns);
        assert_eq!(merged.total.latency.p50_ns, truth.total.latency.p50_ns);
        assert_eq!(merged.total.latency.max_ns, truth.total.latency.max_ns);
        assert!((merged.total.latency.mean_ns - truth.total.latency.mean_ns).abs() < 1e-6);
        let h = decode_histogram(&merged.total.histogram).expect("decodes");
        assert_eq!(h.len(), 2500);
        let w = merged.write.clone().expect("writes");
        assert_eq!(w.ios, 100);
        assert_eq!(w.latency.p99_ns, truth.write.expect("w").latency.p99_ns);
        assert_eq!(merged.intervals[0].ios, 2500);

        // Summed in two groups (as the merge's threads do) and joined: the same figures.
        let mut left = ClassSum::new(&ra);
        left.join(ClassSum::new(&rb));
        let joined = left.finish();
        assert_eq!(joined.total, merged.total);
        assert_eq!(joined.write, merged.write);
        assert_eq!(joined.intervals, merged.intervals);
    }
}
