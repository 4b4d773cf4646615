//! The results model: the plain types a point's measurement is written into (by `target`'s probes
//! and `exec`'s recorders) and the versioned document the run folder holds. A stage of its own,
//! before `target` and `exec`, so that they write results without importing `stats`, which reads
//! them (`stats` re-exports these types for every later stage).

#![forbid(unsafe_code)]

pub mod stats;

mod device;
mod hdr_codec;
mod model;
mod rank_rows;
mod recorder;
mod steady_record;
mod wall_window;

pub use device::DeviceWindow;
pub use hdr_codec::decode_histogram;
pub use model::*;
pub use rank_rows::{RankRows, SpillError};
pub use recorder::ClassRecorder;
pub use steady_record::SteadyRecord;

/// For `stats`, which sums recorded points the same way.
pub(crate) use hdr_codec::{encode, latency_of};
pub(crate) use recorder::rate_achieved;
