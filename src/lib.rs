//! rigel: storage I/O calibration. A declarative workload spec is compiled into a run plan, executed
//! through io_uring against real storage, and rendered as ORION's files or rigel's own reports.
//!
//! Data flows one way: `spec` → `expr` → `plan` → `exec` → `stats` → `report`. `results` holds the
//! types a measurement is written into: `target` and `exec` fill them, `stats` reads them for every
//! later stage. `expect` (requirements) and `compare` (two runs) judge results between `stats` and
//! `report`; `runner` (the run loop) drives them all for one run; `fleet` runs one host's part of a
//! many-host run on a common schedule and merges the hosts' run folders into one. Only `cli`
//! prints. `tests/layering.rs` holds the stage order and fails on an import from a later stage.

pub mod cli;
pub mod compare;
pub mod exec;
pub mod expect;
pub mod expr;
pub mod fleet;
pub mod orion;
pub mod plan;
pub mod record;
pub mod report;
pub mod results;
pub mod runner;
pub mod spec;
pub mod stats;
pub mod target;
pub mod units;
