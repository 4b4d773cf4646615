//! First touch: a class's sampled reads split by whether their block had been touched (read or
//! written) before in the run, so a volume still being initialized (restored from a snapshot, a
//! thin LUN) shows as first reads much slower than re-reads.

use serde::{Deserialize, Serialize};

/// A class's sampled reads over the measured window: about one 4 KiB block in 1,024 of each
/// target is watched (`rigel-exec`'s touch map), and a read covering one counts here.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TouchResult {
    /// Reads of a watched block nobody had read or written before in the run.
    pub first: TouchReads,
    /// Reads of a watched block touched before (at this point or an earlier one).
    pub retouch: TouchReads,
}

/// Sampled reads of one kind: their count and latency (the service latency in an open loop:
/// what the device took, not the wait for a send slot).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TouchReads {
    pub reads: u64,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub mean_ns: f64,
    /// The reads' latency histogram (as the class's), so points and hosts add exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<String>,
}
