//! Test helpers shared by the crates' tests and the CLI tests; a dev-dependency only, outside the
//! stage order (it depends on no rigel crate). `loopdev`: real block devices for the tests that
//! need one; `blocktrace`: the requests the kernel issued to one of them (tracefs); `fixtures`:
//! the checked-in results documents.

#![forbid(unsafe_code)]

pub mod blocktrace;
pub mod fixtures;
pub mod loopdev;

pub use blocktrace::{BlockTrace, Request};
pub use loopdev::{LoopDevice, is_root};
