//! Recording latencies while a point runs, and turning them into the results' figures afterwards.
//! A worker owns one `ClassRecorder` per class (no sharing on the hot path); the executor merges
//! the workers' recorders when the point ends.

use crate::codec::{encode, latency_of};
use crate::model::{
    ClassResult, DirStats, Interval, LatencyStats, PaceResult, ServiceStats, within,
};
use crate::ticks::{Count, TICKS_PER_SECOND, TickRecorder};
use hdrhistogram::Histogram;
use pace::Delays;
pub use pace::SendGaps;

#[path = "recorder_pace.rs"]
mod pace;
#[path = "recorder_touch.rs"]
mod touch;
#[path = "recorder_workload.rs"]
mod workload;

/// Highest latency the histograms hold without clamping: one hour, in ns (the exact max is kept
/// apart, so a clamped outlier still shows as the max).
const HIGHEST_NS: u64 = 3_600_000_000_000;
/// Precision of the point's histograms (the results' percentiles).
const SIGFIG: u8 = 3;
/// Precision of the 1-second interval histograms: they only give each second's p99, and there is
/// one per second per class per worker, so they are kept small.
const INTERVAL_SIGFIG: u8 = 2;
const MIB: f64 = 1024.0 * 1024.0;

/// One direction's counts and latencies.
#[derive(Clone, Debug)]
pub struct DirRecorder {
    hist: Histogram<u64>,
    ios: u64,
    bytes: u64,
    sum_ns: u64,
    min_ns: u64,
    max_ns: u64,
}

/// One second of one class: a latency histogram per direction (kept in the results, for
/// HdrHistogram interval logs), counts of both together.
#[derive(Clone, Debug)]
pub struct IntervalRecorder {
    read: Histogram<u32>,
    write: Histogram<u32>,
    ios: u64,
    bytes: u64,
    sum_ns: u64,
    /// Exact extremes of the second, so its p99 stays within them.
    min_ns: u64,
    max_ns: u64,
}

/// Everything one class records during a point's measured window.
///
/// One histogram record per I/O: an I/O goes only into the open second's histogram of its
/// direction (`open`); when the second changes, that histogram is added to the point's histogram
/// of the direction and folded into the second's coarser interval histogram, then cleared. The
/// figures come out exactly as if every I/O had been recorded in both the point's and the
/// second's histograms, as before (a bucket at the point's precision lies inside one bucket at the
/// intervals' precision), for half the histogram work and cache lines per I/O (the two records
/// were about 1% of the worker's CPU on page-cache reads, `perf record`).
#[derive(Clone, Debug)]
pub struct ClassRecorder {
    /// The point's figures per direction, up to the open second.
    read: DirRecorder,
    write: DirRecorder,
    /// The open second (index into `intervals`) and what it recorded so far.
    open: Box<OpenSecond>,
    intervals: Vec<IntervalRecorder>,
    /// Per 100 ms tick: counts and latency sums (the open tick's are in `open`).
    ticks: TickRecorder,
    /// The last tick index: later completions count in it.
    last_tick: usize,
    /// Open loop only: service latencies (reads, writes), apart from the response latencies
    /// `read` and `write` then hold.
    service: Option<Box<(DirRecorder, DirRecorder)>>,
    /// Open loop only: each I/O's wait behind the cap and send lag, and the gaps between sends.
    delays: Option<Box<Delays>>,
    /// Open loop only: send times in the measured window, those still unissued at its end, and
    /// those issued later than [`SEND_TOLERANCE_NS`].
    scheduled: u64,
    backlog: u64,
    late: u64,
    /// `rigel replay`: the trace's requests never sent (None: a drawn schedule).
    unsent: Option<u64>,
    /// Skewed classes: completed I/Os by their rank's bucket (the hottest 1%, to 10%, to 20%,
    /// the rest of the region's blocks).
    ranks: [u64; 4],
    /// A class with a size mix: completed I/Os' figures per size of the mix (`record_size`).
    sizes: Vec<workload::SizeFigures>,
    /// Grouped durable writes: commit latencies, flush latencies and (open loop) commit
    /// latencies from the submission (`record_commit`).
    commits: Option<Box<workload::Commits>>,
    /// `think`: the waits achieved in the window, their count and sum (ns).
    think: (u64, u64),
    /// `burst`: the bursts and idle times achieved in the window.
    burst: workload::BurstTally,
    /// A trimming class: its discards (response latencies, open loop), made at the first.
    trims: Option<Box<DirRecorder>>,
    /// Sampled reads (first touch, re-touch), made at the first (`record_touch`).
    touch: Option<Box<[DirRecorder; 2]>>,
}

/// The second being recorded: per direction at the point's precision.
#[derive(Clone, Debug)]
struct OpenSecond {
    interval: usize,
    read: DirRecorder,
    write: DirRecorder,
    /// The open tick, and the second's counts when it opened (the tick's are the difference).
    tick: usize,
    tick_from: [Count; 2],
}

impl OpenSecond {
    fn is_empty(&self) -> bool {
        self.read.ios == 0 && self.write.ios == 0
    }
}

/// How late an open-loop send may be issued after its send time and still count as on time, ns:
/// far above a timed wait's wake-up (tens of µs) and a loaded host's scheduling delays (a few
/// ms), far below what a device short of the rate makes its sends wait once its cap is full (the
/// wait grows by the shortfall every second).
pub const SEND_TOLERANCE_NS: u64 = 50_000_000;

/// The share of an open-loop class's send times in the window that may be issued late (beyond
/// [`SEND_TOLERANCE_NS`]) with the rate still achieved.
const LATE_SHARE: f64 = 0.01;

/// Whether an open-loop class achieved its rate: every send time due in the window was issued
/// (no backlog at its end) and no more than 1% of them later than [`SEND_TOLERANCE_NS`] (one
/// host's class, or a fleet's summed over its hosts). I/Os still in flight at the window's end
/// are not missed: a device that keeps up holds IOPS × latency of them at every moment. A device
/// short of the rate fills the class's cap, and then its send times wait for a free slot: late
/// sends, and a backlog at the end.
pub(crate) fn rate_achieved(scheduled: u64, backlog: u64, late: u64) -> bool {
    backlog == 0 && late as f64 <= LATE_SHARE * scheduled as f64
}

/// One direction's figures over `window_s` seconds, with its service latencies apart (`service`:
/// open loop only).
fn dir_stats(d: &DirRecorder, service: Option<&DirRecorder>, window_s: f64) -> DirStats {
    let mut stats = d.stats(window_s);
    stats.service = service.map(|s| ServiceStats {
        latency: s.latency(),
        histogram: encode(&s.hist),
    });
    stats
}

fn histogram<T: hdrhistogram::Counter>(sigfig: u8) -> Histogram<T> {
    // Constant, valid bounds: creation cannot fail.
    Histogram::new_with_bounds(1, HIGHEST_NS, sigfig).expect("valid histogram bounds")
}

impl DirRecorder {
    fn new() -> DirRecorder {
        DirRecorder {
            hist: histogram(SIGFIG),
            ios: 0,
            bytes: 0,
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
        }
    }

    #[inline]
    fn record(&mut self, latency_ns: u64, bytes: u64) {
        self.hist.saturating_record(latency_ns.max(1));
        self.ios += 1;
        self.bytes += bytes;
        self.sum_ns += latency_ns;
        self.min_ns = self.min_ns.min(latency_ns);
        self.max_ns = self.max_ns.max(latency_ns);
    }

    fn count(&self) -> Count {
        Count {
            ios: self.ios,
            ns: self.sum_ns,
        }
    }

    fn clear(&mut self) {
        self.hist.reset();
        self.ios = 0;
        self.bytes = 0;
        self.sum_ns = 0;
        self.min_ns = u64::MAX;
        self.max_ns = 0;
    }

    fn merge(&mut self, other: &DirRecorder) {
        // Same bounds on both sides: adding cannot fail.
        self.hist.add(&other.hist).expect("histograms share bounds");
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.sum_ns += other.sum_ns;
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    fn stats(&self, window_s: f64) -> DirStats {
        let per_s = |x: u64| {
            if window_s > 0.0 {
                x as f64 / window_s
            } else {
                0.0
            }
        };
        DirStats {
            ios: self.ios,
            bytes: self.bytes,
            iops: per_s(self.ios),
            mbps: per_s(self.bytes) / MIB,
            latency: self.latency(),
            histogram: encode(&self.hist),
            service: None,
        }
    }

    fn latency(&self) -> LatencyStats {
        latency_of(
            &self.hist,
            self.ios,
            self.sum_ns as f64,
            self.min_ns,
            self.max_ns,
        )
    }
}

impl IntervalRecorder {
    /// An empty second.
    pub fn new() -> IntervalRecorder {
        IntervalRecorder {
            read: histogram(INTERVAL_SIGFIG),
            write: histogram(INTERVAL_SIGFIG),
            ios: 0,
            bytes: 0,
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
        }
    }

    /// Adds another worker's same second.
    pub fn merge(&mut self, other: &IntervalRecorder) {
        self.read.add(&other.read).expect("histograms share bounds");
        self.write
            .add(&other.write)
            .expect("histograms share bounds");
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.sum_ns += other.sum_ns;
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    /// I/Os completed in the second, both directions.
    pub fn ios(&self) -> u64 {
        self.ios
    }

    /// Bytes moved in the second.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Mean latency of the second's I/Os, ns (0 without any).
    pub fn mean_ns(&self) -> f64 {
        if self.ios == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.ios as f64
        }
    }

    /// The latency at quantile `q` of both directions' I/Os, ns, kept within the second's exact
    /// extremes (0 without any): as `results.json`'s interval p99.
    pub fn quantile_ns(&self, q: f64) -> u64 {
        if self.ios == 0 {
            return 0;
        }
        let mut both = self.read.clone();
        both.add(&self.write).expect("histograms share bounds");
        within(both.value_at_quantile(q), self.min_ns, self.max_ns)
    }

    /// The second's slowest I/O, ns (0 without any).
    pub fn max_ns(&self) -> u64 {
        self.max_ns
    }
}

impl Default for IntervalRecorder {
    fn default() -> IntervalRecorder {
        IntervalRecorder::new()
    }
}

impl ClassRecorder {
    /// A recorder for a measured window of `seconds` 1-second intervals (the last may be partial),
    /// each of [`TICKS_PER_SECOND`] ticks.
    pub fn new(seconds: usize) -> ClassRecorder {
        let ticks = TickRecorder::new(seconds);
        ClassRecorder {
            read: DirRecorder::new(),
            write: DirRecorder::new(),
            open: Box::new(OpenSecond {
                interval: 0,
                read: DirRecorder::new(),
                write: DirRecorder::new(),
                tick: 0,
                tick_from: [Count::default(); 2],
            }),
            last_tick: ticks.last(),
            ticks,
            intervals: (0..seconds.max(1))
                .map(|_| IntervalRecorder::new())
                .collect(),
            service: None,
            delays: None,
            scheduled: 0,
            backlog: 0,
            late: 0,
            unsent: None,
            ranks: [0; 4],
            sizes: Vec::new(),
            commits: None,
            think: (0, 0),
            burst: workload::BurstTally::default(),
            trims: None,
            touch: None,
        }
    }

    /// A recorder for an open-loop class: response and service latencies apart.
    pub fn paced(seconds: usize) -> ClassRecorder {
        ClassRecorder {
            service: Some(Box::new((DirRecorder::new(), DirRecorder::new()))),
            delays: Some(Box::new(Delays::new())),
            ..ClassRecorder::new(seconds)
        }
    }

    /// Records one open-loop I/O: its response latency (from its scheduled send time) as the
    /// class's latency, its service latency (from its submission) apart.
    #[inline]
    pub fn record_paced(
        &mut self,
        write: bool,
        response_ns: u64,
        service_ns: u64,
        bytes: u64,
        tick: usize,
    ) {
        self.record(write, response_ns, bytes, tick);
        if let Some(s) = &mut self.service {
            let dir = if write { &mut s.1 } else { &mut s.0 };
            dir.record(service_ns, bytes);
        }
    }

    /// Records one open-loop I/O's delays before its submission (with `record_paced`, for the
    /// same I/Os): `queued_ns` waiting for a free slot, `lag_ns` rigel's own lateness after.
    #[inline]
    pub fn record_delays(&mut self, queued_ns: u64, lag_ns: u64) {
        if let Some(d) = &mut self.delays {
            d.record(queued_ns, lag_ns);
        }
    }

    /// Counts one I/O completed in the window whose send time fell before it (with
    /// `record_paced`, for the same I/O).
    #[inline]
    pub fn record_carried(&mut self) {
        if let Some(d) = &mut self.delays {
            d.carried += 1;
        }
    }

    /// Adds the gaps between one worker's sends of the class in the window.
    pub fn add_send_gaps(&mut self, gaps: &SendGaps) {
        if let Some(d) = &mut self.delays {
            d.add_gaps(gaps);
        }
    }

    /// Counts send times of the schedule: `scheduled` in the measured window, `backlog` of them
    /// still unissued at its end, `late` of them issued later than [`SEND_TOLERANCE_NS`].
    pub fn add_schedule(&mut self, scheduled: u64, backlog: u64, late: u64) {
        self.scheduled += scheduled;
        self.backlog += backlog;
        self.late += late;
    }

    /// Counts a replay's requests never sent (`PaceResult::unsent`).
    pub fn add_unsent(&mut self, unsent: u64) {
        *self.unsent.get_or_insert(0) += unsent;
    }

    /// Requested against achieved rate over a window of `window_s` seconds (None: closed loop).
    pub fn pace(
        &self,
        requested_iops: f64,
        arrival: rigel_expr::Arrival,
        window_s: f64,
    ) -> Option<PaceResult> {
        self.service.as_ref()?;
        // The window's own send times: a backlog carried in from before the window completes in
        // it too (as fast as the device goes), and counted would put the achieved rate above the
        // requested one.
        let carried = self.delays.as_ref().map_or(0, |d| d.carried);
        let ios = self.ios().saturating_sub(carried);
        let achieved_iops = if window_s > 0.0 {
            ios as f64 / window_s
        } else {
            0.0
        };
        let (queued, lag, send_gap_cv) = self
            .delays
            .as_ref()
            .map_or((None, None, None), |d| d.figures());
        Some(PaceResult {
            requested_iops,
            arrival,
            scheduled: self.scheduled,
            achieved_iops,
            carried,
            backlog: self.backlog,
            late: self.late,
            // A replay that left requests unsent did not hold the trace's pace either.
            achieved: rate_achieved(self.scheduled, self.backlog, self.late)
                && self.unsent.unwrap_or(0) == 0,
            queued,
            lag,
            send_gap_cv,
            unsent: self.unsent,
        })
    }

    /// Records one I/O completed in tick `tick` of the window ([`TICKS_PER_SECOND`] a second):
    /// one histogram record, into the open second's (see the type's comment).
    #[inline]
    pub fn record(&mut self, write: bool, latency_ns: u64, bytes: u64, tick: usize) {
        let tick = tick.min(self.last_tick);
        if tick != self.open.tick {
            self.change_tick(tick);
        }
        let dir = if write {
            &mut self.open.write
        } else {
            &mut self.open.read
        };
        dir.record(latency_ns, bytes);
    }

    /// Counts one completed I/O of a skewed class by its rank's bucket (0 to 3).
    #[inline]
    pub fn count_rank(&mut self, bucket: u8) {
        if let Some(c) = self.ranks.get_mut(bucket as usize) {
            *c += 1;
        }
    }

    /// Completed I/Os per rank bucket (see `count_rank`).
    pub fn ranks(&self) -> [u64; 4] {
        self.ranks
    }

    /// Folds what the open second holds into the point's figures (when the recording ends; the
    /// figures read the same without it, at the cost of a copy).
    pub fn seal(&mut self) {
        self.close_second();
    }

    /// Counts the open tick and opens `tick` (ten times a second), closing the second when it
    /// changes too.
    #[cold]
    fn change_tick(&mut self, tick: usize) {
        self.flush_tick();
        let second = (tick / TICKS_PER_SECOND).min(self.intervals.len() - 1);
        if second != self.open.interval {
            self.close_second();
            self.open.interval = second;
        }
        self.open.tick = tick;
    }

    /// Adds what the open second recorded since the open tick began to that tick.
    fn flush_tick(&mut self) {
        let o = &mut *self.open;
        let now = [o.read.count(), o.write.count()];
        let delta = |i: usize| Count {
            ios: now[i].ios - o.tick_from[i].ios,
            ns: now[i].ns - o.tick_from[i].ns,
        };
        self.ticks.add(o.tick, delta(0), delta(1));
        o.tick_from = now;
    }

    /// Folds the open second into the point's figures and into its interval, and clears it (once
    /// a second, and before the figures are read).
    #[cold]
    fn close_second(&mut self) {
        self.flush_tick();
        let open = &mut *self.open;
        open.tick_from = [Count::default(); 2];
        if open.is_empty() {
            return;
        }
        let iv = &mut self.intervals[open.interval];
        for (dir, total, coarse) in [
            (&mut open.read, &mut self.read, &mut iv.read),
            (&mut open.write, &mut self.write, &mut iv.write),
        ] {
            if dir.ios == 0 {
                continue;
            }
            total.merge(dir);
            // Each bucket at the point's precision lies inside one bucket at the interval's: its
            // highest value lands where each of its I/Os would have.
            for v in dir.hist.iter_recorded() {
                let n = u32::try_from(v.count_at_value()).unwrap_or(u32::MAX);
                coarse.saturating_record_n(v.value_iterated_to(), n);
            }
            iv.ios += dir.ios;
            iv.bytes += dir.bytes;
            iv.sum_ns += dir.sum_ns;
            iv.min_ns = iv.min_ns.min(dir.min_ns);
            iv.max_ns = iv.max_ns.max(dir.max_ns);
            dir.clear();
        }
    }

    /// This recorder with its open second folded in (a copy only when it holds something).
    fn closed(&self) -> std::borrow::Cow<'_, ClassRecorder> {
        if self.open.is_empty() {
            std::borrow::Cow::Borrowed(self)
        } else {
            let mut c = self.clone();
            c.close_second();
            std::borrow::Cow::Owned(c)
        }
    }

    /// I/Os recorded so far, both directions.
    pub fn ios(&self) -> u64 {
        let trims = self.trims.as_ref().map_or(0, |t| t.ios);
        self.read.ios + self.write.ios + self.open.read.ios + self.open.write.ios + trims
    }

    /// Sum of the recorded latencies, ns (Little's law: divided by the window, the mean in-flight).
    pub fn latency_sum_ns(&self) -> u64 {
        let trims = self.trims.as_ref().map_or(0, |t| t.sum_ns);
        self.read.sum_ns
            + self.write.sum_ns
            + self.open.read.sum_ns
            + self.open.write.sum_ns
            + trims
    }

    pub fn merge(&mut self, other: &ClassRecorder) {
        self.close_second();
        let other = other.closed();
        self.read.merge(&other.read);
        self.write.merge(&other.write);
        if let (Some(mine), Some(theirs)) = (&mut self.service, &other.service) {
            mine.0.merge(&theirs.0);
            mine.1.merge(&theirs.1);
        }
        if let (Some(mine), Some(theirs)) = (&mut self.delays, &other.delays) {
            mine.merge(theirs);
        }
        self.scheduled += other.scheduled;
        self.backlog += other.backlog;
        self.late += other.late;
        if let Some(n) = other.unsent {
            self.add_unsent(n);
        }
        for (mine, theirs) in self.ranks.iter_mut().zip(other.ranks) {
            *mine += theirs;
        }
        self.merge_workload(&other);
        self.merge_touch(&other);
        self.ticks.merge(&other.ticks);
        for (mine, theirs) in self.intervals.iter_mut().zip(&other.intervals) {
            mine.merge(theirs);
        }
    }

    /// Closes the open second when the window's clock (`tick`) has left it with no completion
    /// since (a worker calls it now and then, off the per-I/O path): the seconds before the one
    /// returned are then final.
    pub fn settle(&mut self, tick: usize) -> usize {
        let tick = tick.min(self.last_tick);
        if tick > self.open.tick {
            self.change_tick(tick);
        }
        self.open.interval
    }

    /// Second `s` of the window as recorded so far (final once [`ClassRecorder::settle`] has
    /// moved past it; the open second's I/Os are not in it yet).
    pub fn interval(&self, s: usize) -> Option<&IntervalRecorder> {
        self.intervals.get(s)
    }

    /// The number of 1-second intervals of the window.
    pub fn seconds(&self) -> usize {
        self.intervals.len()
    }

    /// The class's figures over a measured window of `window_s` seconds. `reads`/`writes` say
    /// which directions the class's mix has (a direction it never does is `None`).
    pub fn finish(
        &self,
        class: &str,
        size: u64,
        outstanding: u32,
        reads: bool,
        writes: bool,
        window_s: f64,
    ) -> ClassResult {
        let closed = self.closed();
        let this: &ClassRecorder = &closed;
        let mut total = this.read.clone();
        total.merge(&this.write);
        if let Some(t) = &this.trims {
            total.merge(t);
        }
        let with_service = |d: &DirRecorder, s: Option<&DirRecorder>| dir_stats(d, s, window_s);
        let s = this.service.as_deref();
        let s_total = s.map(|(r, w)| {
            let mut t = r.clone();
            t.merge(w);
            t
        });
        ClassResult {
            read: reads.then(|| with_service(&this.read, s.map(|s| &s.0))),
            write: writes.then(|| with_service(&this.write, s.map(|s| &s.1))),
            trim: this.trims.as_deref().map(|t| dir_stats(t, None, window_s)),
            intervals: this.interval_series(window_s, reads, writes),
            ticks: Some(this.ticks.finish(window_s, reads, writes)),
            touch: this.touch_result(),
            ..ClassResult::new(
                class,
                size,
                outstanding,
                with_service(&total, s_total.as_ref()),
            )
        }
    }

    fn interval_series(&self, window_s: f64, reads: bool, writes: bool) -> Vec<Interval> {
        let whole = window_s.ceil().max(0.0) as usize;
        self.intervals
            .iter()
            .take(whole.min(self.intervals.len()))
            .enumerate()
            .map(|(k, iv)| {
                let start = k as f64;
                let end = (start + 1.0).min(window_s);
                let len = end - start;
                Interval {
                    t_s: end,
                    ios: iv.ios,
                    iops: if len > 0.0 { iv.ios as f64 / len } else { 0.0 },
                    mbps: if len > 0.0 {
                        iv.bytes as f64 / len / MIB
                    } else {
                        0.0
                    },
                    mean_ns: iv.mean_ns(),
                    p99_ns: iv.quantile_ns(0.99),
                    read_histogram: reads.then(|| encode(&iv.read)),
                    write_histogram: writes.then(|| encode(&iv.write)),
                }
            })
            .collect()
    }
}

#[cfg(test)]
#[path = "recorder_tests.rs"]
mod tests;
