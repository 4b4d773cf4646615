//! What a comparison gives: its options, the run's and each point's comparison, every metric's
//! change and its verdict. Kept apart from the matching so the line and summary builders use them
//! without importing the module that calls them.

use rigel_expr::{Direction, LatencyStat, Stat};
use serde::Serialize;
/// What to compare and how strictly.
#[derive(Clone, Debug)]
pub struct CompareOptions {
    /// A change worse than this, in percent, is a regression (unless inside the noise).
    pub threshold_percent: f64,
    /// Per-metric thresholds by stat name (`iops`, `latency.p99`), overriding the default.
    pub thresholds: Vec<(String, f64)>,
    /// The figures compared for each class and direction.
    pub stats: Vec<Stat>,
    /// The drift between back-to-back runs that one run's own spread cannot show, ± percent
    /// (see `band`); used when a side has a single run.
    pub drift_floor_percent: f64,
}

/// The default drift floor, ± percent: the largest change of an unchanged spec's lines between
/// back-to-back runs on a loop device over tmpfs on a loaded host (benches/noise.sh), rounded up.
pub const DRIFT_FLOOR_PERCENT: f64 = 10.0;

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            threshold_percent: 5.0,
            thresholds: Vec::new(),
            stats: vec![
                Stat::Iops,
                Stat::Mbps,
                Stat::Latency(LatencyStat::Mean),
                Stat::Latency(LatencyStat::P99),
            ],
            drift_floor_percent: DRIFT_FLOOR_PERCENT,
        }
    }
}

/// The whole comparison (`--format json` prints it as is).
#[derive(Clone, Debug, Serialize)]
pub struct RunComparison {
    pub base: RunSummary,
    pub new: RunSummary,
    pub threshold_percent: f64,
    /// Differences between the runs that make the comparison less like-for-like.
    pub warnings: Vec<String>,
    /// Matched points, in the base run's order.
    pub points: Vec<PointComparison>,
    /// Labels of points that ran in only one of the runs.
    pub only_in_base: Vec<String>,
    pub only_in_new: Vec<String>,
    /// Figures worse than the threshold and the noise, plus points that failed only in the new run.
    pub regressions: usize,
    pub improvements: usize,
    /// Lines (figures) compared, and those judged: regressed, improved or within the threshold.
    /// The rest are inconclusive: beyond the threshold but inside the noise, or without a band.
    pub lines: usize,
    pub judged: usize,
    pub inconclusive: usize,
    /// Every answer of BASE that NEW gives too (by name and group), compared; counted apart from
    /// the points' lines (an answer is one of them, taken where its rule says).
    pub answers: Vec<AnswerChange>,
    pub answer_regressions: usize,
    pub answer_inconclusive: usize,
    /// No point runs the same workload and no answer is shared: nothing was compared.
    pub nothing_in_common: bool,
}

/// One answer in both runs: its values, where each was taken, its change and verdict.
#[derive(Clone, Debug, Serialize)]
pub struct AnswerChange {
    /// The answer's name, with its group (`commit p99 (wal=4)`).
    pub answer: String,
    pub base: Option<f64>,
    pub new: Option<f64>,
    pub base_text: String,
    pub new_text: String,
    /// The points it was taken at.
    pub base_point: String,
    pub new_point: String,
    pub change_percent: Option<f64>,
    pub change_text: String,
    pub verdict: Change,
    /// Why a line has no change, why it is inconclusive, or that the runs took it at different points.
    pub note: String,
    /// A flagged line (regressed, inconclusive): the validity warnings either run has at its point.
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RunSummary {
    /// Where the run was read from (set by the caller).
    pub path: String,
    pub name: String,
    pub started: String,
    pub host: String,
    pub rigel_version: String,
    pub points: usize,
    /// Runs on this side (more than one: repeats; figures are the runs' means).
    pub runs: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct PointComparison {
    /// The base run's label: `small=4 large=0`.
    pub label: String,
    pub base_id: u32,
    pub new_id: u32,
    /// A point that failed in either run: what happened (its figures are not compared).
    pub status: Option<String>,
    pub regressed: bool,
    pub metrics: Vec<MetricChange>,
}

#[derive(Clone, Debug, Serialize)]
pub struct MetricChange {
    pub class: String,
    pub direction: Direction,
    /// `iops`, `mbps`, `latency.p99`.
    pub stat: String,
    /// In the figure's unit: IOPS, MiB/s, or nanoseconds.
    pub base: f64,
    pub new: f64,
    pub base_text: String,
    pub new_text: String,
    /// (new - base) / base in percent; none when the base is 0.
    pub change_percent: Option<f64>,
    /// ± percent the figure moves by itself (see `band`); none when it cannot be told.
    pub noise_percent: Option<f64>,
    /// What the band comes from (`ticks`: each run's 100 ms spread and the drift floor; `runs`:
    /// the between-run variance of repeats), or why there is none.
    pub noise_basis: String,
    /// The threshold this figure was judged by, percent.
    pub threshold_percent: f64,
    pub change_text: String,
    pub verdict: Change,
    /// A change the host may explain (rigel's own CPU per I/O moved with it): why the line is
    /// inconclusive rather than regressed or improved (see `host.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// A rate line whose figure moved beyond the band while its typical 100 ms tick did not:
    /// why it is inconclusive; or whose typical tick moved beyond the band while its figure,
    /// beyond the threshold, did not: why it is flagged (see `rate.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ticks: Option<String>,
    /// The typical tick's change, percent of BASE's, where it flagged the line (the figure's
    /// change was inside the band): what the host rules weigh instead of the figure's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub typical_percent: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// Within the threshold either way.
    Within,
    Improved,
    Regressed,
    /// Beyond the threshold but inside the noise band (or without a band): neither regressed nor
    /// ok.
    Inconclusive,
}

impl CompareOptions {
    /// The threshold for `stat`: its own when given (`--threshold p99=10%`), else the default.
    pub fn threshold_for(&self, stat: Stat) -> f64 {
        self.thresholds
            .iter()
            .find(|(name, _)| *name == stat.name())
            .map_or(self.threshold_percent, |(_, t)| *t)
    }
}
