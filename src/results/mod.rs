//! The results model: the plain types a point's measurement is written into (by `target`'s probes
//! and `exec`'s recorders) and the versioned document the run folder holds. A stage of its own,
//! before `target` and `exec`, so that they write results without importing `stats`, which reads
//! them (`stats` re-exports these types for every later stage).

mod model;
mod rank_rows;
mod recorder;
mod steady_record;
mod wall_window;

pub use model::*;
pub use rank_rows::{RankRows, SpillError};
pub use recorder::{ClassRecorder, decode_histogram};
pub use steady_record::SteadyRecord;

/// For `stats`, which sums recorded points the same way.
pub(crate) use recorder::{encode, latency_of, rate_achieved};
