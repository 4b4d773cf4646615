//! The integration tests: one binary driving the real `rigel` through a small builder.

mod builder;
mod check;
mod orion;
mod plan;
mod run;

pub use builder::{Output, rigel};
