//! Measurements: what a data point produced (per class and direction), and the versioned results
//! document that the run folder holds and every report renders.

mod model;
mod recorder;
mod sum;

pub use model::*;
pub use recorder::{ClassRecorder, decode_histogram};
pub use sum::ClassSum;
