//! The results document's types. `mbps` everywhere is MiB/s (2^20 bytes per second), as ORION's MBPS.
//! Latencies are nanoseconds.

use super::rank_rows::RankRows;
pub use super::rank_rows::{RankClass, RankPoint};
pub use super::wall_window::WallWindow;
use rigel_plan::{DataPoint, RunPlan};
use serde::{Deserialize, Serialize};

/// The whole run: written as `results.json` at the end of a run, rebuilt from `results.jsonl` on resume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultsDoc {
    pub schema_version: u32,
    pub rigel_version: String,
    /// The command line that made the run, as typed.
    pub command: Vec<String>,
    /// RFC 3339 start and end (end is empty while the run is incomplete).
    pub started: String,
    pub finished: String,
    pub host: HostInfo,
    pub targets: Vec<TargetInfo>,
    /// The resolved spec (extends, vars and --set applied), as TOML text.
    pub spec_toml: String,
    pub plan: RunPlan,
    /// Finished points in run order.
    pub points: Vec<PointResult>,
    /// A fleet's merged run: the ranks it merges (absent for one host's run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fleet: Option<FleetInfo>,
    /// `[search]`: every trial and the answer (absent for runs without a search).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchRecord>,
}

/// A search's outcome: each trial judged against the target, and the highest value that held.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchRecord {
    /// The requirement as written: `small.read.latency.p99 <= 2ms`.
    pub target: String,
    pub class: String,
    /// `rate` (I/Os per second) or `load`.
    pub knob: String,
    pub trials: Vec<SearchTrial>,
    /// The highest value at which the target held (none: it failed at `low`, or nothing ran).
    pub answer: Option<f64>,
    /// The lowest value at which it failed (none: it held at `high`).
    pub failed_at: Option<f64>,
    /// The search ended (bracket within the precision, a bound reached, or the trial cap).
    pub finished: bool,
    /// One line: `max 41,200 IOPS with small.read.latency.p99 <= 2ms`.
    pub summary: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchTrial {
    pub point_id: u32,
    pub value: f64,
    pub passed: bool,
    /// The target's figure at this trial, with its unit (`1.9 ms`), or `-`.
    pub measured: String,
}

/// The hosts of a fleet run (`rigel run --fleet`, `rigel merge`), one per rank.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetInfo {
    /// Ranks the launcher started (hosts expected at every point).
    pub ranks: u32,
    pub hosts: Vec<FleetHost>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetHost {
    pub rank: u32,
    pub hostname: String,
    /// The rank's own run folder, relative to the fleet folder (`rank-0007`).
    pub dir: String,
    /// Points this rank finished without error.
    pub points: usize,
    /// Why the merge left this rank out, when it did (a plan differing from rank 0's, an unreadable
    /// folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HostInfo {
    pub hostname: String,
    pub kernel: String,
    pub cpu_model: String,
    pub cores: u32,
    pub memory_bytes: u64,
}

/// What rigel learnt about a target when it opened it (sysfs facts are empty where absent).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TargetInfo {
    pub path: String,
    /// `block` or `file`.
    pub kind: String,
    pub size: u64,
    pub model: String,
    pub rotational: Option<bool>,
    pub scheduler: String,
    pub queue_depth: Option<u32>,
    pub logical_block_size: u32,
    pub physical_block_size: u32,
    /// rigel created this file (and may write it without consent).
    pub created_by_rigel: bool,
    /// Filesystem, mount options and device queue facts (absent in older results).
    #[serde(default)]
    pub env: TargetEnv,
}

/// What else the report's environment section says about a target; empty where unknown.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TargetEnv {
    /// A file's filesystem type (`ext4`, `xfs`, `tmpfs`) and mount options.
    pub filesystem: String,
    pub mount_options: String,
    /// The device's `queue/write_cache`: `write back` or `write through`.
    pub write_cache: String,
    pub nr_requests: Option<u32>,
    pub numa_node: Option<i32>,
    pub firmware: String,
}

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
    /// A fleet point's per-host figures, beside the summed ones in `classes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fleet: Option<FleetPoint>,
    /// `run.steady`: the rounds before the measured run, and whether they reached steady state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<super::steady_record::SteadyRecord>,
    /// The block devices under the targets, their kernel counters over the window (none for
    /// targets on tmpfs or FUSE, and in a fleet's merged point, whose hosts' devices differ).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<super::DeviceWindow>,
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassResult {
    pub class: String,
    pub size: u64,
    pub outstanding: u32,
    /// Reads and writes together.
    pub total: DirStats,
    pub read: Option<DirStats>,
    pub write: Option<DirStats>,
    /// One entry per second of the measured window (reads and writes together).
    pub intervals: Vec<Interval>,
    /// Open loop only: requested against achieved rate. The class's `latency` figures are then
    /// response times (from each I/O's scheduled send time), `service` the submit-to-complete ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pace: Option<PaceResult>,
}

/// What an open-loop class was asked for and what it did over the measured window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PaceResult {
    /// The requested rate, I/Os per second.
    pub requested_iops: f64,
    pub arrival: rigel_expr::Arrival,
    /// Send times of the schedule that fell in the measured window.
    pub scheduled: u64,
    /// I/Os completed in the window per second (the class's `total.iops`).
    pub achieved_iops: f64,
    /// Send times due by the window's end that were not yet issued (every slot was busy).
    pub backlog: u64,
    /// False: the device could not keep up (fewer than 99% of the scheduled I/Os completed in the
    /// window, or a backlog remained). The point is still valid; the rate was not achieved.
    pub achieved: bool,
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

/// Service latencies of an open-loop class: figures and their histogram.
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

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuTime {
    pub user_s: f64,
    pub system_s: f64,
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
