//! Data integrity (`verify`): stamped writes and checked reads. `block` is the on-storage format
//! of a verified block, `map` the run's generation map, `worker` a worker's part (claim, stamp,
//! commit, check), `after` the re-read of every written block at a point's end, `report` the
//! findings named for results.json; `journal` keeps the map in the run folder (its header,
//! `journal_header`, binds it to its run), `check` reads a finished or crashed run's volume back
//! against it (`rigel verify DIR`).

pub mod after;
pub mod block;
#[cfg(test)]
mod block_tests;
pub mod check;
pub mod journal;
mod journal_header;
pub mod map;
pub mod report;
pub mod worker;

pub use map::after_trim;
