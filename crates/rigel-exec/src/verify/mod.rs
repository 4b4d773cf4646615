//! Data integrity (`verify`): stamped writes and checked reads. `block` is the on-storage format
//! of a verified block.

pub mod block;
#[cfg(test)]
mod block_tests;
