//! What the run loop tells whoever watches it (the command line's progress bar, or a test).

use rigel_exec::LiveCounters;
use rigel_plan::{DataPoint, RunPlan};
use rigel_results::PointResult;
use std::path::{Path, PathBuf};

/// How often the observer sees the live counters while a point runs.
pub(crate) const TICK: std::time::Duration = std::time::Duration::from_millis(200);

/// A line worth telling a person, by kind; the watcher decides how to show it.
#[derive(Debug, Clone)]
pub enum Message {
    /// Something about how the run is done (e.g. registered buffers not available).
    Note(String),
    /// Something the user may want to fix (e.g. a target that sits in the page cache).
    Warning(String),
    /// Something that stopped the run or one of its outputs.
    Error(String),
    /// A test file removed by `--clean`.
    Removed(PathBuf),
    /// The report files written into the run folder.
    Reports(Vec<PathBuf>),
}

/// Receives the run's events in order. Every method has an empty default, so a silent watcher is
/// `impl Observer for Quiet {}`.
pub trait Observer {
    /// The run's spec: its name and the sha256 of its text (before anything else).
    fn job(&mut self, _spec: &str, _sha256: &str) {}
    /// A test file is being created and filled (`total` bytes).
    fn fill_started(&mut self, _path: &Path, _total: u64) {}
    /// `[precondition]` starts writing `total` bytes, or reading them (`read`; progress through
    /// `fill_progress`, then `fill_finished`).
    fn precondition_started(&mut self, _total: u64, _read: bool) {}
    fn fill_progress(&mut self, _done: u64) {}
    fn fill_finished(&mut self) {}
    /// The points start: `todo` of them.
    fn run_started(&mut self, _plan: &RunPlan, _todo: usize) {}
    /// Point `index` (0-based among those to do) starts.
    fn point_started(&mut self, _index: usize, _point: &DataPoint) {}
    /// About five times a second while a point runs.
    fn tick(&mut self, _live: &LiveCounters) {}
    /// A point finished and is on disk.
    fn point_finished(&mut self, _result: &PointResult) {}
    /// No more points will run.
    fn run_finished(&mut self) {}
    fn message(&mut self, _m: Message) {}
}
