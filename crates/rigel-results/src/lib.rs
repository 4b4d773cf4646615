//! The results stage: the model a point's measurement is written into (by `target`'s probes and
//! `exec`'s recorders), the versioned document the run folder holds, its codec, and the two ways
//! every later stage reads it: the full [`view`] and the [`stream`]ing reader of `results.jsonl`.
//! `stats` holds what is computed from results: summed hosts, validity warnings, steady state.
//!
//! The document's fields are the crate's own: other stages build it with [`ResultsDoc::new`] and
//! read it through its accessors and [`view`].

#![forbid(unsafe_code)]

pub mod codec;
mod model;
mod read;
mod recorder;
pub mod stats;
mod ticks;

pub use codec::decode_histogram;
pub use model::*;
pub use read::{check, stream, view};
pub use recorder::{ClassRecorder, IntervalRecorder, SEND_TOLERANCE_NS, SendGaps};
pub use ticks::TICKS_PER_SECOND;

pub(crate) use recorder::rate_achieved;
