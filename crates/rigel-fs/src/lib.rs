//! The one place rigel's file-safety rules live. rigel runs as root beside other users' data, in
//! folders (a run folder, a fleet's shared folder, ORION's working directory) where others may
//! plant links: every file under such a folder is opened relative to the folder's descriptor,
//! never following a symlink, and atomic writes go through a unique `O_EXCL` temporary name and
//! `renameat`. A pre-existing folder rigel is to fill must be empty and owned by the user running
//! rigel. Files the user names (templates) are read through no symlink. Two rigels keep apart by
//! advisory locks ([`lock`]) on a run folder's lock file and on each target.

#![forbid(unsafe_code)]

mod dir;
mod error;
pub mod limits;
pub mod lock;
mod openers;
mod read;

pub use dir::{Dir, Fresh};
pub use error::FsError;
pub use read::{open_no_follow, read_beneath, read_no_follow};
