//! A trace's statistics, per class of requests: the classes are found by sequentiality (a request
//! starting where a recent request of the same direction ended continues that stream), and each
//! class's sizes, read share, region, hits, gaps, depth and durability are measured.

use crate::format::{Op, Record, Trace, flag};
use crate::skew::{SkewFit, fit};
use std::collections::{BTreeMap, HashMap, VecDeque};

/// Recent request ends remembered per direction when looking for streams.
const STREAM_MEMORY: usize = 256;
/// A kind of access holding fewer of the data requests than this is folded into the other.
pub const MIN_CLASS_SHARE: f64 = 0.05;
/// A gap this many times the class's mean gap, within the first or last 1% of its issues, ends
/// or starts the workload ([`ClassStats::steady_issues`]). Poisson arrivals leave such a gap once
/// in e^50 (about 10^21) gaps; a burst's quiet spell in the middle of a trace is kept.
const EDGE_LULL: f64 = 50.0;

/// How one class of requests behaved.
#[derive(Clone, Debug)]
pub struct ClassStats {
    /// `random` or `sequential`.
    pub name: &'static str,
    pub sequential: bool,
    /// Requests whose access was the other kind, folded into this class (too few for a class).
    pub folded: u64,
    pub reads: u64,
    pub writes: u64,
    /// Requests per size (bytes), reads and writes together.
    pub sizes: BTreeMap<u32, u64>,
    /// Lowest offset and highest end (bytes).
    pub region: (u64, u64),
    /// The block-hit curve's fit (random classes).
    pub skew: Option<SkewFit>,
    /// The hit unit: the smallest size.
    pub unit: u32,
    /// Hits of each block (of `unit`) hit at least once, random classes.
    pub hits: Vec<u64>,
    /// Issue times (ns), sorted.
    pub issues: Vec<u64>,
    /// Writes sent with FUA, and with a preflush.
    pub fua_writes: u64,
    pub preflush_writes: u64,
    /// Flush requests (without data) charged to this class: every flush of the trace goes to
    /// the class with the most writes (a flush names no offset).
    pub flushes: u64,
    /// Discards charged to this class: every discard of the trace goes to the class with the
    /// most requests (its share of the class's mix: `10% trim`).
    pub trims: u64,
    /// The most requests of the class in flight at once (issued, not completed).
    pub max_in_flight: u64,
    /// Per second of the trace: the time-average and the peak of requests in flight.
    pub depth: Vec<(f64, u64)>,
}

impl ClassStats {
    pub fn count(&self) -> u64 {
        self.reads + self.writes
    }

    /// The issues the arrival statistics use: the middle 99% (the first and last 0.5% left out),
    /// and then, within the next 1% at either end, whatever lies beyond a lull longer than
    /// [`EDGE_LULL`] mean gaps. So the stray requests before or after the workload (udev's and
    /// rigel's own probe reads of a device being opened or closed: 114 requests, then 63 ms of
    /// nothing, in front of a 4 s run at 5,000 IOPS) stretch neither its span nor its gaps: that
    /// one lull took the round trip's gap CV from 2.8 to 4.5 and its rate 1.5% low.
    pub fn steady_issues(&self) -> &[u64] {
        let cut = self.issues.len() / 200;
        let w = &self.issues[cut..self.issues.len() - cut];
        let (Some(&first), Some(&last)) = (w.first(), w.last()) else {
            return w;
        };
        if w.len() < 3 {
            return w;
        }
        let lull = EDGE_LULL * (last - first) as f64 / (w.len() - 1) as f64;
        let edge = (w.len() / 100).max(1);
        // Gap k lies between issues k and k + 1.
        let long = |&k: &usize| (w[k + 1] - w[k]) as f64 > lull;
        let start = (0..edge).rev().find(long).map_or(0, |k| k + 1);
        let end = (w.len() - 1 - edge..w.len() - 1)
            .find(long)
            .map_or(w.len(), |k| k + 1);
        &w[start..end.max(start)]
    }

    /// Requests per second over [`Self::steady_issues`], first to last (None with fewer than 2,
    /// or a trace without times).
    pub fn rate(&self) -> Option<f64> {
        let w = self.steady_issues();
        let (first, last) = (*w.first()?, *w.last()?);
        (w.len() >= 2 && last > first).then(|| (w.len() - 1) as f64 * 1e9 / (last - first) as f64)
    }

    /// The gaps between consecutive issues of [`Self::steady_issues`], ns.
    pub fn gaps(&self) -> Vec<u64> {
        self.steady_issues()
            .windows(2)
            .map(|w| w[1] - w[0])
            .collect()
    }

    /// The gaps' coefficient of variation (standard deviation over mean).
    pub fn gap_cv(&self) -> Option<f64> {
        let g = self.gaps();
        if g.len() < 2 {
            return None;
        }
        let n = g.len() as f64;
        let mean = g.iter().sum::<u64>() as f64 / n;
        let var = g.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean > 0.0).then(|| var.sqrt() / mean)
    }
}

/// The whole trace's statistics.
#[derive(Clone, Debug)]
pub struct TraceStats {
    pub classes: Vec<ClassStats>,
    /// Flush requests (no data) in the trace.
    pub flushes: u64,
    /// Discards charged to a class (`ClassStats::trims`).
    pub discards: u64,
    /// Empty discards and other requests, left out of every class.
    pub other: u64,
    /// Nanoseconds from the first to the last issue.
    pub span_ns: u64,
}

/// Measures `trace`.
pub fn measure(trace: &Trace) -> TraceStats {
    let data: Vec<&Record> = trace.records.iter().filter(|r| r.is_data()).collect();
    let sequential = streams(&data);
    let seq_count = sequential.iter().filter(|&&s| s).count() as f64;
    let share = if data.is_empty() {
        0.0
    } else {
        seq_count / data.len() as f64
    };
    // Which kinds get a class of their own; a rare kind joins the other.
    let kinds: Vec<bool> = match (share >= MIN_CLASS_SHARE, share <= 1.0 - MIN_CLASS_SHARE) {
        (true, true) => vec![false, true],
        (true, false) => vec![true],
        _ => vec![false],
    };
    let mut classes: Vec<ClassStats> = kinds
        .iter()
        .map(|&seq| {
            let members: Vec<&Record> = data
                .iter()
                .zip(&sequential)
                .filter(|&(_, &s)| kinds.len() == 1 || s == seq)
                .map(|(r, _)| *r)
                .collect();
            let folded = if kinds.len() == 1 {
                sequential.iter().filter(|&&s| s != seq).count() as u64
            } else {
                0
            };
            class(
                if seq { "sequential" } else { "random" },
                seq,
                folded,
                &members,
            )
        })
        .collect();
    let flushes = trace.records.iter().filter(|r| r.op == Op::Flush).count() as u64;
    if let Some(c) = classes.iter_mut().max_by_key(|c| c.writes) {
        c.flushes = flushes;
    }
    let is_discard = |r: &&Record| r.op == Op::Discard && r.size > 0;
    let discards = trace.records.iter().filter(is_discard).count() as u64;
    if let Some(c) = classes.iter_mut().max_by_key(|c| c.reads + c.writes) {
        c.trims = discards;
    }
    let first = trace.records.first().map_or(0, |r| r.issue_ns);
    let last = trace.records.iter().map(|r| r.issue_ns).max().unwrap_or(0);
    TraceStats {
        classes,
        flushes,
        discards,
        other: trace
            .records
            .iter()
            .filter(|r| matches!(r.op, Op::Discard | Op::Other) && !is_discard(r))
            .count() as u64,
        span_ns: last - first,
    }
}

/// For each request, whether it continues a stream: it starts where one of the last
/// [`STREAM_MEMORY`] requests of its direction ended.
fn streams(data: &[&Record]) -> Vec<bool> {
    let mut ends: [(HashMap<u64, u32>, VecDeque<u64>); 2] = Default::default();
    data.iter()
        .map(|r| {
            let (set, order) = &mut ends[usize::from(r.op == Op::Write)];
            let continues = set.contains_key(&r.offset);
            let end = r.offset + u64::from(r.size);
            *set.entry(end).or_insert(0) += 1;
            order.push_back(end);
            if order.len() > STREAM_MEMORY {
                if let Some(old) = order.pop_front() {
                    if let Some(n) = set.get_mut(&old) {
                        *n -= 1;
                        if *n == 0 {
                            set.remove(&old);
                        }
                    }
                }
            }
            continues
        })
        .collect()
}

fn class(name: &'static str, sequential: bool, folded: u64, rs: &[&Record]) -> ClassStats {
    let mut sizes = BTreeMap::new();
    let (mut reads, mut writes, mut fua, mut preflush) = (0, 0, 0, 0);
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for r in rs {
        *sizes.entry(r.size).or_insert(0u64) += 1;
        if r.op == Op::Write {
            writes += 1;
            fua += u64::from(r.has(flag::FUA));
            preflush += u64::from(r.has(flag::PREFLUSH));
        } else {
            reads += 1;
        }
        lo = lo.min(r.offset);
        hi = hi.max(r.offset + u64::from(r.size));
    }
    let unit = sizes.keys().next().copied().unwrap_or(512).max(512);
    let mut hits: HashMap<u64, u64> = HashMap::new();
    if !sequential {
        for r in rs {
            *hits.entry(r.offset / u64::from(unit)).or_insert(0) += 1;
        }
    }
    let hits: Vec<u64> = hits.into_values().collect();
    let skew = (!sequential && !rs.is_empty()).then(|| {
        let blocks = hi.div_ceil(u64::from(unit)) - lo / u64::from(unit);
        fit(hits.clone(), blocks)
    });
    let mut issues: Vec<u64> = rs.iter().map(|r| r.issue_ns).collect();
    issues.sort_unstable();
    let (max_in_flight, depth) = depth(rs);
    ClassStats {
        name,
        sequential,
        folded,
        reads,
        writes,
        sizes,
        region: if rs.is_empty() { (0, 0) } else { (lo, hi) },
        skew,
        unit,
        hits,
        issues,
        fua_writes: fua,
        preflush_writes: preflush,
        flushes: 0,
        trims: 0,
        max_in_flight,
        depth,
    }
}

/// The peak of requests in flight, and per second the time-average and peak. A request
/// without a completion stays in flight to the end.
fn depth(rs: &[&Record]) -> (u64, Vec<(f64, u64)>) {
    let end = rs
        .iter()
        .map(|r| r.complete_ns.unwrap_or(r.issue_ns))
        .max()
        .unwrap_or(0);
    let mut events: Vec<(u64, i64)> = Vec::with_capacity(rs.len() * 2);
    for r in rs {
        events.push((r.issue_ns, 1));
        events.push((r.complete_ns.unwrap_or(end), -1));
    }
    // Completions before issues at one instant: a request done at t does not overlap one sent at t.
    events.sort_unstable();
    let seconds = (end / 1_000_000_000 + 1) as usize;
    let mut per_second = vec![(0.0f64, 0u64); seconds];
    let (mut now, mut level, mut peak) = (0u64, 0i64, 0u64);
    for (t, d) in events {
        accumulate(&mut per_second, now, t, level);
        now = t;
        level += d;
        let l = level.max(0) as u64;
        peak = peak.max(l);
        let s = (t / 1_000_000_000) as usize;
        if let Some(slot) = per_second.get_mut(s) {
            slot.1 = slot.1.max(l);
        }
    }
    (peak, per_second)
}

/// Adds `level` × the time from `a` to `b` to each second's average.
fn accumulate(per_second: &mut [(f64, u64)], a: u64, b: u64, level: i64) {
    if level <= 0 || b <= a {
        return;
    }
    let mut t = a;
    while t < b {
        let s = t / 1_000_000_000;
        let next = ((s + 1) * 1_000_000_000).min(b);
        if let Some(slot) = per_second.get_mut(s as usize) {
            slot.0 += level as f64 * (next - t) as f64 / 1e9;
        }
        t = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Header;

    fn rec(t: u64, offset: u64, size: u32, op: Op) -> Record {
        Record {
            issue_ns: t,
            complete_ns: Some(t + 500_000),
            offset,
            size,
            op,
            flags: 0,
        }
    }

    #[test]
    fn streams_and_random_requests_become_two_classes() {
        let mut records = Vec::new();
        for i in 0..100u64 {
            // A read stream of 64 KiB requests and random 8 KiB writes between them.
            records.push(rec(i * 1_000_000, (1 << 30) + i * 65536, 65536, Op::Read));
            let off = (i * 7919 % 1000) * 8192;
            records.push(rec(i * 1_000_000 + 500, off, 8192, Op::Write));
        }
        records.push(Record {
            size: 0,
            ..rec(5, 0, 0, Op::Flush)
        });
        let s = measure(&Trace {
            header: Header::default(),
            records,
        });
        let names: Vec<&str> = s.classes.iter().map(|c| c.name).collect();
        assert_eq!(names, ["random", "sequential"]);
        let (r, q) = (&s.classes[0], &s.classes[1]);
        // The stream's first request starts it: it looks random.
        assert_eq!((r.reads, r.writes, q.reads, q.writes), (1, 100, 99, 0));
        assert_eq!(r.flushes, 1);
        assert_eq!(q.sizes.get(&65536), Some(&99));
        // Each request is in flight 0.5 ms and they come 1 ms apart per class.
        assert_eq!((q.max_in_flight, r.max_in_flight), (1, 2));
        let rate = q.rate().expect("a rate");
        assert!((rate - 1000.0).abs() < 1e-6, "{rate}");
        assert!(q.gap_cv().expect("cv") < 1e-9);
        assert!((q.depth[0].0 - 0.0495).abs() < 1e-6, "{:?}", q.depth);
    }

    #[test]
    fn probe_reads_before_a_lull_and_after_the_workload_are_left_out_of_its_arrivals() {
        // 20,000 requests 200 µs apart; before them, 114 probe reads 10 µs apart and then 63 ms of
        // nothing (more than the 0.5% trimmed at each end); after them, 30 ms and 150 more.
        let mut issues: Vec<u64> = (0..114).map(|i| i * 10_000).collect();
        let start = issues[113] + 63_000_000;
        issues.extend((0..20_000).map(|i| start + i * 200_000));
        let end = issues[issues.len() - 1] + 30_000_000;
        issues.extend((0..150).map(|i| end + i * 10_000));
        let mut c = measure(&Trace {
            header: Header::default(),
            records: issues
                .iter()
                .enumerate()
                .map(|(i, &t)| rec(t, (i as u64 * 7919 % 10_000) * 4096, 4096, Op::Read))
                .collect(),
        })
        .classes
        .remove(0);
        let w = c.steady_issues();
        assert_eq!((w[0], w[w.len() - 1]), (start, end - 30_000_000));
        assert!(c.gap_cv().expect("cv") < 1e-9);
        assert!((c.rate().expect("a rate") - 5000.0).abs() < 1e-6);
        // Without the lulls, nothing more than the 0.5% at each end is left out.
        c.issues = (0..20_000).map(|i| i * 200_000).collect();
        assert_eq!(c.steady_issues().len(), 20_000 - 2 * 100);
    }
}
