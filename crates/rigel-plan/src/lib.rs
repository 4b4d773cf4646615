//! Spec → RunPlan: pure and deterministic (the same spec gives the same plan, byte for byte). Knows
//! ORION's matrix shapes and level rule; never touches storage.

#![forbid(unsafe_code)]

mod burst;
mod check;
#[cfg(test)]
mod check_tests;
mod compile;
mod conditioning;
#[cfg(test)]
mod conditioning_tests;
mod dialect;
mod drain;
mod engine_rule;
pub mod fast_rng;
pub mod limits;
mod matrix;
mod model;
pub mod pattern;
mod pattern_describe;
mod polled;
pub mod replay;
mod search;
#[cfg(test)]
mod search_tests;
mod selectors;
mod sqpoll;
mod sweep;
mod verify;

pub use burst::Burst;
pub use check::{Checked, check, check_loaded};
pub use compile::compile;
pub use conditioning::CLASS as PRECONDITION_CLASS;
pub use dialect::Dialect;
pub use drain::MIN_LIMIT as MIN_DRAIN;
pub use limits::{MAX_OUTSTANDING, MAX_POINTS};
pub use matrix::LISTED_IDLE_CLASSES;
pub use model::*;
pub use pattern::{Flush, Pattern};
pub use search::{Contradiction, FLAT_LOAD, FLAT_RISE, Tried, bracket};
pub use selectors::{check_selectors, point_matches};
pub use sqpoll::SqPoll;
pub use verify::{DEFAULT_UNIT as DEFAULT_VERIFY_UNIT, MAP_BYTES_PER_BLOCK};
