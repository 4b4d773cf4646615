//! The value language: sizes, durations, counts, sweeps, read/write mixes and requirement comparisons
//! written inside spec strings, parsed by the pest grammar in `grammar/values.pest`. Pure: no I/O.

mod api_stub;
mod value;

pub use api_stub::*;
pub use value::*;
