//! What is computed from results: one class summed over a fleet's hosts, the validity warnings
//! every report shows, and the steady-state judgement of a point's rounds.

mod device_share;
mod lateness;
mod settle;
pub mod steady;
mod sum;
mod validity;
mod warning;

pub use lateness::{GAP_CV_SLACK, LAG_FLOOR_NS, LAG_SHARE};
pub use sum::ClassSum;
pub use validity::{
    DEFAULT_SEED, MIN_SECONDS, PastRun, ValidityConfig, Warning, full_seconds, iops_spread,
    warnings,
};
