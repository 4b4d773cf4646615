//! What is computed from results: one class summed over a fleet's hosts, the validity warnings
//! every report shows (with what the volume was doing: rate caps, burst buckets), and the steady-state judgement
//! of a point's rounds.

mod burst_across;
mod burst_step;
mod device_share;
pub mod drain;
pub mod engines;
mod first_touch;
mod lateness;
mod paced;
mod rate_cap;
mod seconds;
mod settle;
pub mod steady;
mod sum;
mod validity;
mod warning;

pub use burst_step::BurstStep;
pub use first_touch::{
    FirstTouch, MIN_READS as FIRST_TOUCH_MIN_READS, SLOWER as FIRST_TOUCH_SLOWER,
};
pub use lateness::{GAP_CV_SLACK, LAG_FLOOR_NS, LAG_SHARE, late};
pub use rate_cap::{CapMetric, DeviceCap, RateCap};
pub use seconds::{MIN_SECONDS, full_seconds};
pub use sum::ClassSum;
pub use validity::{
    DEFAULT_SEED, PastRun, ValidityConfig, Warning, iops_spread, volume_findings, warnings,
};
pub use warning::Evidence;
