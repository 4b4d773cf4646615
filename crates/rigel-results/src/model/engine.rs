//! Which engine took a class's I/O in a point, as asked and as got, and why they differ.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One class's engine in one point (results.json keeps one per class, in the plan's class order).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineRecord {
    /// The class, as the plan names it.
    pub class: String,
    /// The engine that did the I/O: `io_uring`, `libaio` or `psync`.
    pub name: String,
    /// What the spec or the command line asked for (`auto`, or an engine's name).
    pub requested: String,
    /// Why `auto` did not get io_uring (the kernel's refusal, in a sentence); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// The engine's options as they were set (`registered_buffers = "yes"`, `threads = "32"`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, String>,
}

/// Where a point's workers ran, and what serves the device: the figures people compare to explain
/// a result that changed between two runs of one spec.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    /// The CPUs the workers ran on (each worker's, in worker order).
    pub worker_cpus: Vec<u32>,
    /// What placed them: `cpus = "0-3"`, `cpus = "node:0"`, `the device's node 1`; absent when
    /// the workers were not pinned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned_by: Option<String>,
    /// Each block device's hardware queues and the CPUs that serve them (`/sys/block/DEV/mq`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub device_queues: Vec<DeviceQueues>,
    /// The CPU frequency governor of the workers' CPUs (`performance`, `powersave`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub governor: Option<String>,
    /// Whether two workers shared one core's SMT siblings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smt_shared: Option<bool>,
    /// What a reader must know: `workers on node 0, the device on node 1`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One block device's hardware queues.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceQueues {
    pub device: String,
    /// Each queue's CPU list as the kernel writes it (`0-3`, `4,6`), in queue order.
    pub queues: Vec<String>,
}
