//! Measurements: what a data point produced (per class and direction), the versioned results
//! document that the run folder holds, and `view`: the one way every reader reads it.

mod hdr_add;
mod light;
mod model;
mod rank_rows;
mod recorder;
pub mod steady;
mod sum;
mod validity;
pub mod view;
mod wall_window;
mod warning;

pub use hdr_add::HdrAdder;
pub use light::{LightClass, LightPoint};
pub use model::*;
pub use rank_rows::{RankRows, SpillError};
pub use recorder::{ClassRecorder, decode_histogram};
pub use steady::SteadyRecord;
pub use sum::ClassSum;
pub use validity::{
    DEFAULT_SEED, PastRun, ValidityConfig, Warning, full_seconds, iops_spread, warnings,
};
