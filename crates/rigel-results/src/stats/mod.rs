//! Measurements: what a data point produced (per class and direction), the versioned results
//! document that the run folder holds, and `view`: the one way every reader reads it.

mod hdr_add;
mod light;
pub mod steady;
mod sum;
mod validity;
pub mod view;
mod warning;

pub use hdr_add::HdrAdder;
pub use light::{LightClass, LightPoint};
// The results model lives before `target` and `exec`, which write it; every later stage reads it
// through here.
pub use crate::*;
pub use sum::ClassSum;
pub use validity::{
    DEFAULT_SEED, PastRun, ValidityConfig, Warning, full_seconds, iops_spread, warnings,
};
