//! Block-device traces: what a device was really sent, captured through the kernel's block
//! tracepoints or imported from blkparse and fio, kept in a compact file, and turned into a spec
//! whose statistics match the trace's.

#![forbid(unsafe_code)]

pub mod derive;
pub mod device;
pub mod folder;
pub mod format;
pub mod import;
mod pair;
pub mod replay;
pub mod replay_spec;
mod report;
mod rwbs;
pub mod skew;
pub mod spec_doc;
pub mod stats;
pub mod tracefs;

pub use device::BlockDevice;
pub use format::{Cost, Header, Op, Record, Trace, flag};
pub use tracefs::{CaptureOptions, capture};

use std::path::PathBuf;

/// The trace file's name inside a capture folder.
pub const TRACE_FILE: &str = "trace.rtr";

#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Fs(#[from] rigel_fs::FsError),
    /// The trace file is not one rigel wrote, or is damaged.
    #[error("bad trace file: {0}")]
    Format(String),
    /// A line of an imported file that is not what its format says.
    #[error("{}:{line}: {message}", path.display())]
    Import {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{0}")]
    Usage(String),
    /// A spec rigel generated that does not load back as meant: rigel's fault, so none is written.
    #[error("rigel refuses to write the {name} spec it generated: {why}")]
    Generated { name: String, why: String },
}
