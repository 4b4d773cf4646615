//! Reading results: [`view`], the full view of a document every report, `[expect]` and `compare`
//! read through, and [`stream`], the light reader of `results.jsonl` lines that a fleet's index
//! and merge use on runs too large to hold whole.

pub mod check;
pub mod stream;
pub mod view;
