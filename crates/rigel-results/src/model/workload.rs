//! What a class with a size mix or grouped durable writes achieved over a point's window: each
//! size's share of the I/Os beside the share asked, and the commits' latencies (a group of writes
//! and its flush) beside the flushes' own.

use super::point::LatencyStats;
use serde::{Deserialize, Serialize};

/// One size of a class's size mix over the measured window.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SizeShareResult {
    /// Bytes.
    pub size: u64,
    /// The share of the I/Os the spec asked for (0 to 1).
    pub asked: f64,
    /// I/Os of this size completed in the window.
    pub ios: u64,
    /// `ios` over the class's I/Os in the window (0 to 1).
    pub achieved: f64,
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
    /// From the submission of a group's first write (its send time, open loop) to its flush's
    /// completion.
    pub latency: LatencyStats,
    /// HDR histogram of commit latencies in ns, V2 deflate-compressed, base64.
    pub histogram: String,
    /// The flushes' own latencies, submission to completion.
    pub flush: LatencyStats,
    /// HDR histogram of flush latencies in ns, V2 deflate-compressed, base64.
    pub flush_histogram: String,
}
