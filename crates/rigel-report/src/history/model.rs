//! The history's rows: one per run, with its comparison against the previous run of its spec.

use serde::Serialize;

/// One run's row in the history.
#[derive(Clone, Debug, Serialize)]
pub struct RunRow {
    /// The folder, relative to the history's root.
    pub dir: String,
    /// Its report, relative to the site (`report.html`, else `results.json`).
    pub link: String,
    /// The series: the spec's name and the plan's shape, or ORION's command line.
    pub spec: String,
    /// `abc1234` (git), `abc1234+dirty`, or the spec's sha256 prefix; `-` where not recorded.
    pub revision: String,
    pub started: String,
    pub date: String,
    pub host: String,
    pub targets: String,
    /// The targets' paths alone (the table's column; `targets` adds their models).
    pub target_paths: String,
    pub max_iops: Option<f64>,
    pub max_mbps: Option<f64>,
    pub min_latency_ns: Option<f64>,
    pub points: usize,
    pub complete: bool,
    pub requirements: usize,
    pub requirements_met: usize,
    pub warnings: Vec<String>,
    /// Against the previous finished run of the same series (none for its first run).
    pub versus: Option<Versus>,
    /// Why the run was not compared (`in progress: not compared`); empty otherwise.
    pub not_compared: String,
}

/// The outcome of comparing a run with the previous run of its spec.
#[derive(Clone, Debug, Serialize)]
pub struct Versus {
    pub previous: String,
    /// The comparison's own page, relative to the site.
    pub link: String,
    pub regressions: usize,
    pub improvements: usize,
    pub inconclusive: usize,
    pub lines: usize,
}

/// A folder under the root that holds a run but could not be read.
#[derive(Clone, Debug, Serialize)]
pub struct Unread {
    pub dir: String,
    pub error: String,
}
