//! Storage targets: opening files and block devices, probing them, creating test files, the
//! destructive-write guard, environment capture, and the virtual volume over them.

mod volume;

pub use volume::*;
