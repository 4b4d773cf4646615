//! Why opening, creating or validating a target failed: every error names the path and the step.

use super::refusal::Refusal;
use rigel_fs::lock::{LockKind, lock};
use std::fs::File;
use std::io;
use std::path::Path;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("{path}: cannot {what}: {source}")]
    Io {
        path: PathBuf,
        /// The step that failed, as a verb phrase ("open read-only", "read the first blocks").
        what: &'static str,
        #[source]
        source: io::Error,
    },

    #[error("{path}: cannot {what} at offset {offset}: {source}")]
    IoAt {
        path: PathBuf,
        what: &'static str,
        offset: u64,
        #[source]
        source: io::Error,
    },

    #[error(
        "{path}: no such file; declare its size on the target (size = \"1GiB\") to let rigel create it"
    )]
    Missing { path: PathBuf },

    #[error(
        "{path}: no such device: the path does not exist; rigel creates test files, but not among \
         devices (check the path)"
    )]
    NoDevice { path: PathBuf },

    #[error(
        "{path}: its filesystem refuses O_DIRECT; use buffered I/O (direct = false in [run]) or \
         another filesystem"
    )]
    NoDirectIo { path: PathBuf },

    #[error(
        "{path}: is a {kind}, not a regular file, a block device or an NVMe namespace's \
         generic device (/dev/ngXnY)"
    )]
    Unsupported { path: PathBuf, kind: &'static str },

    #[error(
        "{path}: holds {}, less than the declared {}; rigel extends only files it created and uses \
         a device up to its declared size: lower the size, or use another path",
        rigel_expr::Size(*.actual),
        rigel_expr::Size(*.declared)
    )]
    TooSmall {
        path: PathBuf,
        actual: u64,
        declared: u64,
    },

    #[error(
        "{path}: stopped while filling at {done} of {total} bytes; the next run fills it again"
    )]
    Interrupted {
        path: PathBuf,
        done: u64,
        total: u64,
    },

    /// A signal arrived while a target's `open()` had not returned (a stalled server).
    #[error("stopped while opening the targets: an open did not return")]
    StoppedOpening,

    #[error(transparent)]
    Refused(#[from] Box<Refusal>),

    #[error(
        "class {class}: I/O size {size} is not a multiple of {path}'s direct-I/O alignment {align}; \
         use a multiple of {align}, or buffered I/O (direct = false)"
    )]
    Misaligned {
        class: String,
        size: u64,
        path: PathBuf,
        align: u32,
    },

    #[error(
        "class {class}: I/O size {size} is above what {path} takes in one NVMe command ({max} \
         bytes, its queue's max_hw_sectors_kb): a passthrough command is not split as the block \
         layer splits a bio; use I/Os of {max} bytes or less, or the namespace's block device"
    )]
    PassthruTooLarge {
        class: String,
        size: u64,
        path: PathBuf,
        max: u64,
    },

    #[error(
        "{path}: {size} bytes hold no whole {} (each target's usable size is trimmed to a \
         multiple of every class's I/O size and of the raid0 stripe); use a larger target or \
         smaller I/Os",
        rigel_plan::limits::unit_text(*.need)
    )]
    TargetTooSmall { path: PathBuf, size: u64, need: u64 },

    #[error(transparent)]
    Locked(#[from] rigel_fs::lock::Held),

    #[error("the plan has no targets")]
    NoTargets,

    #[error("the raid0 stripe must be larger than zero")]
    ZeroStripe,
}

impl TargetError {
    /// The target (file or device) the error is about; `None` for the plan-wide ones.
    pub fn path(&self) -> Option<&Path> {
        match self {
            TargetError::Io { path, .. }
            | TargetError::IoAt { path, .. }
            | TargetError::Missing { path }
            | TargetError::NoDevice { path }
            | TargetError::NoDirectIo { path }
            | TargetError::Unsupported { path, .. }
            | TargetError::TooSmall { path, .. }
            | TargetError::Interrupted { path, .. }
            | TargetError::Misaligned { path, .. }
            | TargetError::PassthruTooLarge { path, .. }
            | TargetError::TargetTooSmall { path, .. } => Some(path),
            TargetError::Refused(r) => Some(&r.path),
            TargetError::Locked(h) => Some(&h.path),
            TargetError::NoTargets | TargetError::ZeroStripe | TargetError::StoppedOpening => None,
        }
    }

    pub(crate) fn io(
        path: impl Into<PathBuf>,
        what: &'static str,
    ) -> impl FnOnce(io::Error) -> Self {
        let path = path.into();
        move |source| TargetError::Io { path, what, source }
    }

    pub(crate) fn io_at(
        path: impl Into<PathBuf>,
        what: &'static str,
        offset: u64,
    ) -> impl FnOnce(io::Error) -> Self {
        let path = path.into();
        move |source| TargetError::IoAt {
            path,
            what,
            offset,
            source,
        }
    }
}

/// [`lock`] with its failures as target errors: `Locked` naming the holder, or `Io`.
pub(crate) fn lock_target(file: &File, path: &Path, kind: LockKind) -> Result<(), TargetError> {
    lock(file, path, kind)
        .map_err(TargetError::io(path, "lock"))?
        .map_err(TargetError::Locked)
}
