//! A point's measurement: per class and direction, counts, rates, latencies and their histograms.
//! `mbps` everywhere is MiB/s (2^20 bytes per second), as ORION's MBPS. Latencies are nanoseconds.

use super::device::DeviceWindow;
use super::rank_rows::RankRows;
use super::steady_record::SteadyRecord;
use super::wall_window::WallWindow;
use rigel_plan::DataPoint;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    /// The planned point, copied so each line of `results.jsonl` stands alone.
    pub point: DataPoint,
    pub status: PointStatus,
    /// RFC 3339 time the measured window began.
    pub started: String,
    /// Length of the measured window, seconds.
    pub elapsed_s: f64,
    pub classes: Vec<ClassResult>,
    pub cpu: CpuTime,
    /// The measured window in wall-clock time (what a fleet's merge lines up across hosts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WallWindow>,
    /// A fleet point that lacks a host or whose hosts' windows did not overlap enough: why
    /// (`3 of 4 hosts`, `windows overlap 81%`). Such a point is kept but never enters headline
    /// figures or requirements.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<String>,
    /// Time within the measured window in which rigel itself did not run (a stopped process, a
    /// paused VM or container, a worker that never got the CPU): such a point is `partial`, its
    /// figures not the storage's alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<Paused>,
    /// A fleet point's per-host figures, beside the summed ones in `classes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fleet: Option<FleetPoint>,
    /// `run.steady`: the rounds before the measured run, and whether they reached steady state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<SteadyRecord>,
    /// `[drain]`: the phase run before this point (the run's first measured one) until a burst
    /// bucket ran out, or its limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drain: Option<super::DrainRecord>,
    /// The block devices under the targets, their kernel counters over the window (none for
    /// targets on tmpfs or FUSE, and in a fleet's merged point, whose hosts' devices differ).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<DeviceWindow>,
    /// `verify`: the blocks the point read back and checked, and what was corrupted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrity: Option<super::IntegrityResult>,
    /// Each class's engine (absent in results written before engines could be chosen: io_uring).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engines: Vec<super::EngineRecord>,
    /// Where the workers ran and what served the device (absent in older results).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<super::Placement>,
    /// What the host was doing over the window: load, steal, other work, CPU frequency (absent
    /// in older results and in a fleet's merged points).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<super::HostLoad>,
}

/// How long rigel did not run in a point's window: a gap between its own clock readings far
/// beyond any wait it makes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Paused {
    /// The gaps' part of the measured window, seconds.
    pub in_window_s: f64,
    /// The longest gap, seconds (it may reach past the window: a 40 s stop in a 5 s point).
    pub longest_gap_s: f64,
}

impl Paused {
    /// `rigel did not run for 4.1 s of the 5.0 s window (a gap of 40.2 s in its own clock)`.
    pub fn reason(&self, window_s: f64) -> String {
        format!(
            "rigel did not run for {:.1} s of the {window_s:.1} s window (a gap of {:.1} s in its \
             own clock: a stopped process, a paused VM or a starved CPU)",
            self.in_window_s, self.longest_gap_s
        )
    }
}

/// One merged point across the fleet's hosts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetPoint {
    /// Hosts whose result entered the sums, and hosts expected.
    pub hosts: u32,
    pub ranks: u32,
    /// The hosts' windows' common part over their union, percent (100 when they coincide).
    pub overlap_pct: f64,
    pub per_rank: RankRows,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum PointStatus {
    Ok,
    /// An I/O failed: the point stopped; its figures cover what completed before.
    Failed {
        error: IoFailure,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoFailure {
    pub target: String,
    pub offset: u64,
    pub errno: i32,
    pub message: String,
}

impl IoFailure {
    /// ` (errno 5)`, or nothing for a failure no system call returned (a data integrity failure
    /// records errno 0: the reads succeeded, their data was wrong).
    pub fn errno_text(&self) -> String {
        if self.errno == 0 {
            String::new()
        } else {
            format!(" (errno {})", self.errno)
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassResult {
    pub class: String,
    pub size: u64,
    pub outstanding: u32,
    /// Reads and writes together.
    pub total: DirStats,
    pub read: Option<DirStats>,
    pub write: Option<DirStats>,
    /// A class whose mix trims (`10% trim`): its discards' count, bytes and latencies. They are
    /// in `total` too (they held the depth like any I/O), not in `intervals` or `ticks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<DirStats>,
    /// One entry per second of the measured window (reads and writes together).
    pub intervals: Vec<Interval>,
    /// Sub-second counts per direction (100 ms ticks; coarser past 600 ticks), so even a 1 s
    /// point has a spread for `rigel compare`'s noise band. Absent in results written before
    /// rigel kept them, and in a fleet's merged points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticks: Option<Ticks>,
    /// Open loop only: requested against achieved rate. The class's `latency` figures are then
    /// response times (from each I/O's scheduled send time), `service` the submit-to-complete ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pace: Option<PaceResult>,
    /// The depth held: the time-average of the class's I/Os in flight over the measured window,
    /// each counted from the moment it could be submitted (the clock reading its latency starts
    /// at) to the reaping of its completion. Little's law's L: `total.iops` × the mean latency
    /// (the service latency, open loop) equals it within the window's edges. None in results
    /// written before rigel kept it and in a fleet's merged point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth_held: Option<f64>,
    /// A skewed class (`distribution`): the share of its window's I/Os on the hottest blocks of
    /// its region, achieved beside the theory's. Absent for uniform classes and merged points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skew: Option<SkewResult>,
    /// A class with a size mix: each size's share of the window's I/Os, asked and achieved
    /// (empty for a class of one size and in merged points).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<SizeShareResult>,
    /// `durability = "fdatasync:N"` / `"fsync:N"`: the window's commits and their latencies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<CommitResult>,
    /// `think = "200us"`: the wait asked and achieved between a completion and the slot's next
    /// I/O. Little's law then holds for the slots, not only the I/Os in flight: the load equals
    /// `total.iops` × (mean latency + `mean_ns`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think: Option<ThinkResult>,
    /// `burst = { ios = 64, idle = "10ms" }`: the bursts and idle times asked and achieved. The
    /// class's cycle is a burst and its idle: `total.iops` × (`mean_active_ns` + `mean_idle_ns`)
    /// equals `mean_ios`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<BurstResult>,
    /// First touch: the class's sampled reads of blocks first touched in the run beside those
    /// touched before. Absent for a class without sampled reads, and in results written before
    /// rigel kept them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub touch: Option<super::TouchResult>,
}

impl ClassResult {
    /// A class's figures with nothing measured beside `total`: no direction of its own, no
    /// intervals or ticks, and none of the optional parts (pace, depth held, skew, size shares,
    /// commits, think, bursts). Producers fill in what they measured with struct update syntax,
    /// so a part added here later is absent everywhere until one of them sets it.
    pub fn new(class: impl Into<String>, size: u64, outstanding: u32, total: DirStats) -> Self {
        ClassResult {
            class: class.into(),
            size,
            outstanding,
            total,
            read: None,
            write: None,
            trim: None,
            intervals: Vec::new(),
            ticks: None,
            pace: None,
            depth_held: None,
            skew: None,
            sizes: Vec::new(),
            commit: None,
            think: None,
            burst: None,
            touch: None,
        }
    }
}

/// A class's bursts over the measured window.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BurstResult {
    /// I/Os per burst and the idle time between bursts, as asked.
    pub asked_ios: u32,
    pub asked_idle_ns: u64,
    /// Bursts begun (first submission) and ended (last completion) in the window.
    pub bursts: u64,
    /// Their I/Os completed, per burst (`asked_ios` unless the point ended inside one).
    pub mean_ios: f64,
    /// Their length, ns: from the first I/O's submission to the last one's completion.
    pub mean_active_ns: f64,
    /// Idle times begun and ended in the window, and their mean (ns): from the completion of a
    /// burst's last I/O to the next burst's start, above `asked_idle_ns` by the timer's slack.
    pub idles: u64,
    pub mean_idle_ns: f64,
}

/// A class's think time over the measured window.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThinkResult {
    pub asked_ns: u64,
    /// Waits that began and ended in the window (one begun before it would count time outside
    /// it).
    pub waits: u64,
    /// Their mean, ns: above `asked_ns` by the timer's slack.
    pub mean_ns: f64,
}

/// One size of a class's size mix over the measured window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SizeShareResult {
    /// Bytes.
    pub size: u64,
    /// The share of the I/Os the spec asked for (0 to 1).
    pub asked: f64,
    /// I/Os of this size completed in the window.
    pub ios: u64,
    /// `ios` over the class's I/Os in the window (0 to 1).
    pub achieved: f64,
    /// The I/Os of this size alone, as the class's `total`, `read` and `write` are for all of
    /// them (IOPS and MiB/s over the window; latencies from this size's own histograms, merged
    /// across workers). None for a direction without I/O of this size, and in results written
    /// before rigel kept them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<DirStats>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<DirStats>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<DirStats>,
}

/// `durability = "fdatasync:N"` or `"fsync:N"`: the commits completed in the measured window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CommitResult {
    /// Writes per commit (the N of `fdatasync:N`).
    pub every: u32,
    /// `fsync:N` (else fdatasync).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fsync: bool,
    /// Commits (flushes completed) in the window, and per second.
    pub commits: u64,
    pub per_s: f64,
    /// From the send time of a group's first write to its flush's completion: its submission in
    /// a closed loop, its scheduled time in an open loop (the response view).
    pub latency: LatencyStats,
    /// HDR histogram of commit latencies in ns, V2 deflate-compressed, base64.
    pub histogram: String,
    /// The flushes' own latencies, submission to completion.
    pub flush: LatencyStats,
    /// HDR histogram of flush latencies in ns, V2 deflate-compressed, base64.
    pub flush_histogram: String,
    /// Open loop only: from the submission of a group's first write to its flush's completion
    /// (the service view; no wait for a free slot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<LatencyStats>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_histogram: Option<String>,
}

/// What a skewed class drew over the measured window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkewResult {
    pub distribution: rigel_expr::Distribution,
    /// The hot blocks lie from the region's start (`hot_layout = "contiguous"`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub contiguous: bool,
    /// Blocks (slots of the class's I/O size) in the class's region.
    pub blocks: u64,
    /// For the hottest 1%, 10% and 20% of those blocks.
    pub hottest: Vec<HotShare>,
}

/// The share of a class's I/Os on its hottest blocks: counted per completed I/O by the rank its
/// block was drawn at (blocks are ranks through a bijection), beside the distribution's theory.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HotShare {
    /// The share of the region's blocks (0.01 = the hottest 1%).
    pub blocks: f64,
    pub achieved: f64,
    pub theory: f64,
}

/// What an open-loop class was asked for and what it did over the measured window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PaceResult {
    /// The requested rate, I/Os per second.
    pub requested_iops: f64,
    pub arrival: rigel_expr::Arrival,
    /// Send times of the schedule that fell in the measured window.
    pub scheduled: u64,
    /// I/Os of the window's own send times completed in the window, per second: never above
    /// the schedule. The class's `total.iops` also counts `carried`.
    pub achieved_iops: f64,
    /// I/Os due before the window but sent only inside it, completed in it: a backlog carried in
    /// from the warmup (a device that fell behind there catches up in the window, faster than
    /// the rate asked).
    #[serde(default)]
    pub carried: u64,
    /// Send times due by the window's end that were not yet issued (every slot was busy).
    pub backlog: u64,
    /// Send times of the window issued later than `SEND_TOLERANCE_NS` (50 ms) after them: a
    /// full cap's wait for a free slot, or rigel's own lateness. 0 in results written before.
    #[serde(default)]
    pub late: u64,
    /// False: the rate was not held: a backlog remained at the window's end, or more than 1% of
    /// the window's send times were issued `late`. I/Os in flight at the end are not missed. The
    /// point is still valid; the rate was not achieved.
    pub achieved: bool,
    /// How each I/O's response time splits (response = queued + lag + service, exactly, per
    /// I/O; `service` is in `total.service`): `queued` is the wait behind the outstanding cap a
    /// punctual sender would have had with the same service times (the storage's doing), `lag`
    /// the rest of the wait before submission, rigel's own lateness (a timed wait that woke late,
    /// a busy CPU, completions reaped late). None in results written before rigel kept them and
    /// in a fleet's merged point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queued: Option<ServiceStats>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag: Option<ServiceStats>,
    /// The coefficient of variation (stdev / mean) of the gaps between consecutive submissions
    /// of the class in the window, per worker, pooled over workers: ≈ 0 for a uniform schedule
    /// that was held, ≈ 1 for Poisson; far above what the arrival claims, the sends went out in
    /// bursts. Submissions of one turn share its clock reading (a gap of 0: one burst). None with
    /// fewer than 2 gaps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_gap_cv: Option<f64>,
    /// `rigel replay`: the trace's requests never sent (the run ended before their turn came:
    /// the target was slower than the trace at this speed, or rigel did not run). None for a
    /// drawn schedule and in results written before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsent: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DirStats {
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    /// MiB/s.
    pub mbps: f64,
    pub latency: LatencyStats,
    /// HDR histogram of latencies in ns, V2 deflate-compressed, base64.
    pub histogram: String,
    /// Open loop only: service latency (submission to completion); `latency` is then the
    /// response latency (scheduled send time to completion), which includes queueing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<ServiceStats>,
}

/// Latencies of one kind (an open-loop class's service times, its queueing, its send lag):
/// figures and their histogram.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServiceStats {
    pub latency: LatencyStats,
    /// HDR histogram of service latencies in ns, V2 deflate-compressed, base64.
    pub histogram: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyStats {
    pub min_ns: u64,
    pub mean_ns: f64,
    pub stdev_ns: f64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub p99_9_ns: u64,
    pub p99_99_ns: u64,
    /// Exact, not rounded to the histogram's precision.
    pub max_ns: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Seconds since the start of the measured window, at the interval's end.
    pub t_s: f64,
    pub ios: u64,
    pub iops: f64,
    pub mbps: f64,
    pub mean_ns: f64,
    pub p99_ns: u64,
    /// This second's read latencies (HDR histogram, V2 deflate, base64; 2 significant digits),
    /// for HdrHistogram interval logs. Absent for a direction the class never does, and in
    /// results written before rigel kept them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_histogram: Option<String>,
    /// The same for writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_histogram: Option<String>,
}

/// A class's completions per tick of the measured window, per direction: counts and latency sums
/// only (no histogram per tick, which would weigh more than the rest of the point).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ticks {
    /// Length of a tick, ms (100, or a multiple of 100 that keeps a point at 600 ticks at most).
    /// The last tick may be cut short by the window's end.
    pub ms: u32,
    /// Reads completed in each tick, and the sum of their latencies (ns); empty for a class that
    /// does not read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_ios: Vec<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_latency_ns: Vec<u64>,
    /// The same for writes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write_ios: Vec<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write_latency_ns: Vec<u64>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuTime {
    pub user_s: f64,
    pub system_s: f64,
    /// Of `user_s + system_s`, the seconds io_uring's kernel submission threads used
    /// (`sqpoll = true`; absent without them): rigel's cost, counted in the CPU figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sq_thread_s: Option<f64>,
}

/// A percentile read from a histogram, kept within the exact [min, max] of what was recorded: HDR
/// percentiles are bucket bounds (up to 0.1% off), and a bucket's upper bound may lie above the
/// largest latency (p99.99 = 67,711 ns with max = 67,706 ns).
pub fn within(percentile: u64, min: u64, max: u64) -> u64 {
    percentile.clamp(min.min(max), max)
}

impl LatencyStats {
    /// The same figures with every percentile within [min, max]: how the recorder writes them, and
    /// how documents written before the clamp are read.
    pub fn within_extremes(mut self) -> LatencyStats {
        let (min, max) = (self.min_ns, self.max_ns);
        for p in [
            &mut self.p50_ns,
            &mut self.p90_ns,
            &mut self.p99_ns,
            &mut self.p99_9_ns,
            &mut self.p99_99_ns,
        ] {
            *p = within(*p, min, max);
        }
        self
    }
}

impl PointResult {
    /// Finished without error and, in a fleet, with every host over a common window: the points
    /// headline figures and requirements are taken from.
    pub fn counts(&self) -> bool {
        matches!(self.status, PointStatus::Ok) && self.partial.is_none()
    }

    pub fn class(&self, name: &str) -> Option<&ClassResult> {
        self.classes.iter().find(|c| c.class == name)
    }
}
