//! The run folder: what a run leaves on disk, written so that nothing finished is ever lost. Each
//! point is appended to `results.jsonl` and fsynced as it finishes; `results.json` is the whole
//! document, rewritten atomically at the end (and on resume).

mod folder;
mod history;

pub use folder::*;
pub use history::past_runs;
