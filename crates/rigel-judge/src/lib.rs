//! Verdicts on measured results: `expect`, a spec's `[expect]` requirements judged against a run
//! (with their JUnit report), and `compare`, two runs judged against each other and their noise.

#![forbid(unsafe_code)]

pub mod compare;
pub mod expect;
