//! The integration tests: one binary driving the real `rigel` through a small builder.

mod builder;
mod check;
mod compare;
mod expect;
mod loopdev;
mod orion;
mod orion_run;
mod plan;
mod report;
mod run;
mod unsteady;

pub use builder::{Output, rigel};
