//! What a fleet's merge reads of one point's line of `results.jsonl`: the figures it sums, with the
//! histograms borrowed from the line as base64 text. Everything else (the planned point, the
//! per-second histograms, the start time) is skipped unparsed, so a 20 KB line costs a scan, not
//! a tree of owned strings.

use crate::{CpuTime, LatencyStats, PaceResult, PointStatus, WallWindow};
use serde::Deserialize;
use std::borrow::Cow;

/// One point's line, as summed across hosts.
#[derive(Debug, Deserialize)]
pub struct LightPoint<'a> {
    pub point: LightId,
    pub status: PointStatus,
    pub elapsed_s: f64,
    #[serde(borrow)]
    pub classes: Vec<LightClass<'a>>,
    pub cpu: CpuTime,
    #[serde(default)]
    pub window: Option<WallWindow>,
}

/// The planned point's id (the rest of it is the plan's, the same on every host).
#[derive(Debug, Deserialize)]
pub struct LightId {
    pub id: u32,
}

/// One class's figures ([`super::ClassResult`] without the per-second histograms).
#[derive(Debug, Deserialize)]
pub struct LightClass<'a> {
    #[serde(borrow)]
    pub class: Cow<'a, str>,
    pub size: u64,
    pub outstanding: u32,
    #[serde(borrow)]
    pub total: LightDir<'a>,
    #[serde(borrow)]
    pub read: Option<LightDir<'a>>,
    #[serde(borrow)]
    pub write: Option<LightDir<'a>>,
    pub intervals: Vec<LightInterval>,
    #[serde(default)]
    pub pace: Option<PaceResult>,
}

#[derive(Debug, Deserialize)]
pub struct LightDir<'a> {
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    pub mbps: f64,
    pub latency: LatencyStats,
    #[serde(borrow)]
    pub histogram: Cow<'a, str>,
    #[serde(default, borrow)]
    pub service: Option<LightService<'a>>,
}

#[derive(Debug, Deserialize)]
pub struct LightService<'a> {
    pub latency: LatencyStats,
    #[serde(borrow)]
    pub histogram: Cow<'a, str>,
}

#[derive(Debug, Deserialize)]
pub struct LightInterval {
    pub t_s: f64,
    pub ios: u64,
    pub iops: f64,
    pub mbps: f64,
    pub mean_ns: f64,
    pub p99_ns: u64,
}
