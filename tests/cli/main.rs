//! The integration tests: one binary driving the real `rigel` through a small builder.

mod builder;
mod check;
mod compare;
mod devices;
mod ecosystem;
mod errors;
mod expect;
mod faults;
mod fixtures;
mod fleet;
mod guard;
mod hlog;
mod hostile;
mod junit;
mod library;
mod openloop;
mod orion;
mod orion_run;
mod overhead;
mod plan;
mod precondition;
mod report;
mod resume;
mod run;
mod schema;
mod search;
mod sweep_report;
mod unsteady;

pub use builder::{Output, rigel};
