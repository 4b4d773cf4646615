//! Spec → RunPlan: pure and deterministic (the same spec gives the same plan, byte for byte). Knows
//! ORION's matrix shapes and level rule; never touches storage.

mod model;

pub use model::*;
