//! Spec → RunPlan: pure and deterministic (the same spec gives the same plan, byte for byte). Knows
//! ORION's matrix shapes and level rule; never touches storage.

mod compile;
mod matrix;
mod model;
mod sweep;

pub use compile::{MAX_OUTSTANDING, MAX_POINTS, compile};
pub use model::*;
