//! The results document's types. `mbps` everywhere is MiB/s (2^20 bytes per second), as ORION's MBPS.
//! Latencies are nanoseconds.

use crate::plan::{DataPoint, RunPlan};
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
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuTime {
    pub user_s: f64,
    pub system_s: f64,
}

impl PointResult {
    pub fn class(&self, name: &str) -> Option<&ClassResult> {
        self.classes.iter().find(|c| c.class == name)
    }
}
