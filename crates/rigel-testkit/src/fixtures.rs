//! The checked-in results documents the tests read (`cargo xtask fixtures` writes them): kept in
//! this crate, so a crate whose tests read them builds from its own folder and this one's. The
//! repository's `tests/fixtures` is a link to this crate's `fixtures/`.

/// Synthetic results from the report tests' queueing model: one class, a sweep of loads.
pub const BASIC: &str = include_str!("../fixtures/results-basic.json");
/// Synthetic results: two classes, every combination of their loads.
pub const DETAILED: &str = include_str!("../fixtures/results-detailed.json");
/// A short real run, with its per-second samples.
pub const QUICK_REAL_RUN: &str = include_str!("../fixtures/results-quick-real-run.json");
/// A real run of `fixtures/specs/two-classes.toml`.
pub const REAL_TWO_CLASSES: &str = include_str!("../fixtures/results-real-two-classes.json");
/// A real run of `fixtures/specs/sweep-size-mix.toml`.
pub const REAL_SWEEP_SIZE_MIX: &str = include_str!("../fixtures/results-real-sweep-size-mix.json");
