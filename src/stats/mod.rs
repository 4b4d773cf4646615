//! Measurements: what a data point produced (per class and direction), and the versioned results
//! document that the run folder holds and every report renders.

mod model;
mod recorder;
mod validity;

pub use model::*;
pub use recorder::{ClassRecorder, decode_histogram};
pub use validity::{
    DEFAULT_SEED, PastRun, ValidityConfig, Warning, full_seconds, iops_spread, warnings,
};
