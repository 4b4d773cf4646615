//! `[drain]` as the results keep it: the phase before the first measured point that ran the
//! point's workload until a burst bucket ran out (stats/drain.rs watches for the step and tells
//! what the record means for the figures).

use serde::{Deserialize, Serialize};

/// What the drain did, kept with the first point measured after it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DrainRecord {
    /// How long it ran, seconds.
    pub seconds: f64,
    /// Its limit, seconds (`[drain] limit`).
    pub limit_s: f64,
    /// It saw a sustained step down (a burst bucket ran out) before its limit.
    pub stepped: bool,
    /// I/Os it completed, all told.
    pub ios: u64,
    /// Its IOPS in each second, in order (the series the step was seen in).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub iops: Vec<f64>,
    /// The step, when seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<DrainStep>,
    /// For people: `a burst bucket ran out after 29 min 40 s (3,000 → 300 IOPS); measured after`.
    pub summary: String,
}

/// The step the drain saw.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DrainStep {
    /// Seconds into the drain when the last second at the burst rate ended.
    pub at_s: f64,
    /// IOPS before and after (each side's median second).
    pub before: f64,
    pub after: f64,
    /// Mean latency (ns) before and after.
    pub latency_before_ns: f64,
    pub latency_after_ns: f64,
    /// Welch's t of the split: the step's confidence.
    pub t: f64,
    /// The I/Os served before the step: what the bucket's credit and its refill paid for.
    pub ios_before: u64,
    /// The I/Os served above the sustained rate before the step: the bucket's credit, about.
    pub credit: f64,
}
