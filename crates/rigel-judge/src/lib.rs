//! Verdicts on measured results: `answers`, the figures a spec exists to give, each taken where
//! its rule says; `expect`, a spec's `[expect]` requirements judged against a run
//! (with their JUnit report), and `compare`, two runs judged against each other and their noise.

#![forbid(unsafe_code)]

pub mod answers;
pub mod compare;
pub mod expect;
