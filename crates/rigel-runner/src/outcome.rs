//! How a run ended, what it leaves, and why it could not start or finish.

use rigel_record::RecordError;
use rigel_results::{PointResult, PointStatus, ResultsDoc};
use rigel_target::TargetError;
use std::path::PathBuf;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Every point of the plan finished (some may have been recorded as failed before: see the doc).
    Complete,
    /// SIGINT or SIGTERM stopped it; every finished point is kept.
    Interrupted,
    /// A failed point, an executor error or a write to the run folder stopped it (already reported
    /// through the observer).
    Failed,
}

/// How a run went: how it ended and, when the run folder was finished, the results document.
pub struct Ran {
    pub ended: Ended,
    pub doc: Option<ResultsDoc>,
    pub dir: PathBuf,
}

/// Why a run could not start, or could not finish its folder.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("cannot install the SIGINT/SIGTERM handlers: {0}")]
    Signals(std::io::Error),
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error(transparent)]
    Folder(#[from] RecordError),
    /// io_uring is refused to this process: no point could run, and a resume cannot help.
    #[error(transparent)]
    Ring(#[from] rigel_exec::RingRefused),
    /// `[run] cpus` names CPUs this process may not run on, or a node the host lacks.
    #[error(transparent)]
    Placement(#[from] rigel_target::PlacementError),
}

impl RunError {
    /// A signal arrived while the targets were being opened or filled.
    pub fn interrupted(&self) -> bool {
        matches!(
            self,
            RunError::Target(TargetError::Interrupted { .. } | TargetError::StoppedOpening)
        )
    }
}

pub(crate) fn is_failed(p: &PointResult) -> bool {
    matches!(p.status, PointStatus::Failed { .. })
}
