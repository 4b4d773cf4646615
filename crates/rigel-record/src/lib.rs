//! The run folder: what a run leaves on disk, written so that nothing finished is ever lost. Each
//! point is appended to `results.jsonl` and fsynced as it finishes; `results.json` is the whole
//! document, rewritten atomically at the end (and on resume). One rigel at a time holds a folder.

#![forbid(unsafe_code)]

mod error;
mod folder;
mod history;
mod journal;
mod lock;
mod points;
mod read;

pub use error::*;
pub use folder::*;
pub use history::past_runs;
pub use journal::{JOURNAL_FILE, VERIFY_FILE, read_journal, write_check};
pub use lock::{FolderLock, LOCK_FILE};
pub use points::{BadLine, PointLines, ReadError, Torn, latest, parse_lines, read_lines};
pub use read::*;
