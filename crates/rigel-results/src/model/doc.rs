//! The results document: the run's header (command, host, targets, spec, plan), its points, and a
//! fleet's or a search's record. Its fields are the crate's; other stages read them through the
//! accessors in `doc_access.rs` and the views in `read`.

use super::point::PointResult;
use super::provenance::Provenance;
use rigel_plan::RunPlan;
use serde::{Deserialize, Serialize};

/// The whole run: written as `results.json` at the end of a run, rebuilt from `results.jsonl` on resume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultsDoc {
    pub(crate) schema_version: u32,
    pub(crate) rigel_version: String,
    /// The command line that made the run, as typed.
    pub(crate) command: Vec<String>,
    /// RFC 3339 start and end (end is empty while the run is incomplete).
    pub(crate) started: String,
    pub(crate) finished: String,
    pub(crate) host: HostInfo,
    pub(crate) targets: Vec<TargetInfo>,
    /// The resolved spec (extends, vars and --set applied), as TOML text.
    pub(crate) spec_toml: String,
    pub(crate) plan: RunPlan,
    /// Finished points in run order.
    pub(crate) points: Vec<PointResult>,
    /// A fleet's merged run: the ranks it merges (absent for one host's run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fleet: Option<FleetInfo>,
    /// `[search]`: every trial and the answer (absent for runs without a search).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) search: Option<SearchRecord>,
    /// Where the run came from: the spec's digest and commit, who ran it (absent in older documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) provenance: Option<Provenance>,
    /// What each writing class's writes carried, from the run's header (absent in documents
    /// written before rigel recorded it, and for runs that do not write).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) write_data: Vec<super::WriteData>,
}

/// What a run knows when it starts: everything in `results.json` except the spec, the plan and
/// the points (the run folder keeps it as `run.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunHeader {
    pub schema_version: u32,
    pub rigel_version: String,
    pub command: Vec<String>,
    pub started: String,
    pub host: HostInfo,
    pub targets: Vec<TargetInfo>,
    /// Where the run came from (absent in run folders written before rigel kept it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// What each writing class's writes carry, as the rigel that starts the run writes them
    /// ([`super::WriteData::of_plan`]; absent in run folders written before rigel kept it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write_data: Vec<super::WriteData>,
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
    /// The search ended (bracket within the precision, a bound reached, a contradiction, or the
    /// trial cap).
    pub finished: bool,
    /// The answer's value passed again in a repeat trial (false: its one trial is all there is,
    /// the trial cap came first).
    #[serde(default)]
    pub confirmed: bool,
    /// Why the trials give no answer although some passed and some failed: a pass above a fail
    /// that stood after both ran again, or a figure that did not follow the load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contradiction: Option<String>,
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
    /// Failed while rigel fell behind its own schedule: run again, not counted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spoiled: bool,
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
