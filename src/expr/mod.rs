//! The value language: sizes, durations, counts, sweeps, read/write mixes and requirement comparisons
//! written inside spec strings, parsed by the pest grammar in `grammar/values.pest`. Pure: no I/O.

mod comparison;
mod count;
mod duration;
mod grammar;
mod mix;
mod number;
mod size;
mod size_list;
mod sweep;
mod value;

#[cfg(test)]
mod proptests;

pub use comparison::parse_comparison;
pub use count::{CountExpr, parse_count};
pub use duration::{format_duration, parse_duration};
pub use mix::{parse_mix, parse_mix_list};
pub use size::parse_size;
pub use size_list::parse_size_list;
pub use sweep::{MAX_LEVELS, Sweep, orion_level_count, orion_levels, parse_sweep};
pub use value::*;
