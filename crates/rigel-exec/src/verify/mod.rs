//! Data integrity (`verify`): stamped writes and checked reads. `block` is the on-storage format
//! of a verified block, `map` the run's generation map, `worker` a worker's part (claim, stamp,
//! commit, check), `after` the re-read of every written block at a point's end, `report` the
//! findings named for results.json.

pub mod after;
pub mod block;
#[cfg(test)]
mod block_tests;
pub mod map;
pub mod report;
pub mod worker;
