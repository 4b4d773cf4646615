//! Comparing two runs (or two sets of repeated runs): points matched by their workload (each
//! running class's load, size, access, mix and streams), each figure's change and its noise band,
//! and regressions beyond both the threshold and the band in the direction that hurts (fewer IOPS
//! or MB/s, more latency); a change beyond the threshold but inside the band is inconclusive.
//! Pure; `rigel compare` prints and picks the exit code.

mod band;
mod differences;
mod noise;
mod point_lines;
mod render;
mod spec_diff;
#[cfg(test)]
mod tests;

pub use render::{html, markdown, text};

use differences::{summary, warnings};
use point_lines::compare_point;
use rigel_expr::{Direction, LatencyStat, Stat};
use rigel_results::view::PointRead;
use rigel_results::{PointResult, ResultsDoc};
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

/// Compares `new` against `base`.
pub fn compare(base: &ResultsDoc, new: &ResultsDoc, opts: &CompareOptions) -> RunComparison {
    compare_runs(std::slice::from_ref(base), std::slice::from_ref(new), opts)
}

/// Compares the runs of `new` against those of `base` (repeats of one spec on each side; the
/// first run of each side gives the points' order, labels and ids). Both sides have at least one
/// run.
pub fn compare_runs(
    base: &[ResultsDoc],
    new: &[ResultsDoc],
    opts: &CompareOptions,
) -> RunComparison {
    let (b0, n0) = (&base[0], &new[0]);
    let mut taken = vec![false; n0.points().len()];
    // Every further run's points, taken as they are matched.
    let mut taken_b: Vec<Vec<bool>> = base.iter().map(|d| vec![false; d.points().len()]).collect();
    let mut taken_n: Vec<Vec<bool>> = new.iter().map(|d| vec![false; d.points().len()]).collect();
    let mut points = Vec::new();
    let mut only_in_base = Vec::new();
    for b in b0.points() {
        let key = workload(b);
        let found = n0
            .points()
            .iter()
            .enumerate()
            .position(|(i, n)| !taken[i] && workload(n) == key);
        match found {
            Some(i) => {
                taken[i] = true;
                let bs = matching(base, &mut taken_b, &key);
                let ns = matching(new, &mut taken_n, &key);
                points.push(compare_point(&bs, &ns, opts));
            }
            None => only_in_base.push(b.point.label()),
        }
    }
    let only_in_new = n0
        .points()
        .iter()
        .zip(&taken)
        .filter(|(_, t)| !**t)
        .map(|(p, _)| p.point.label())
        .collect();
    let count = |c: Change| {
        points
            .iter()
            .flat_map(|p| &p.metrics)
            .filter(|m| m.verdict == c)
            .count()
    };
    let failed_only_in_new = points
        .iter()
        .filter(|p| p.regressed && p.metrics.is_empty())
        .count();
    let mut warnings = warnings(b0, n0);
    for (which, side) in [("BASE", base), ("NEW", new)] {
        for d in &side[1..] {
            let diff = spec_diff::spec_diff(side[0].spec_toml(), d.spec_toml());
            if !diff.is_empty() {
                warnings.push(format!(
                    "the runs of {which} come from different specs ({}): their figures are averaged where workloads match",
                    diff.join("; ")
                ));
            }
        }
    }
    if points.is_empty() && !b0.points().is_empty() && !n0.points().is_empty() {
        warnings.push(
            "no point of NEW runs the workload of a point of BASE: nothing was compared".into(),
        );
    }
    let lines = points.iter().map(|p| p.metrics.len()).sum();
    let inconclusive = count(Change::Inconclusive);
    RunComparison {
        base: summary(b0, base.len()),
        new: summary(n0, new.len()),
        threshold_percent: opts.threshold_percent,
        warnings,
        regressions: count(Change::Regressed) + failed_only_in_new,
        improvements: count(Change::Improved),
        lines,
        judged: lines - inconclusive,
        inconclusive,
        points,
        only_in_base,
        only_in_new,
    }
}

/// The point of each run of a side that runs `key`'s workload (the first not yet taken), in the
/// side's run order.
fn matching<'a>(
    side: &'a [ResultsDoc],
    taken: &mut [Vec<bool>],
    key: &Workload,
) -> Vec<&'a PointResult> {
    let mut out = Vec::new();
    for (d, taken) in side.iter().zip(taken.iter_mut()) {
        let found = d
            .points()
            .iter()
            .enumerate()
            .position(|(i, p)| !taken[i] && workload(p) == *key);
        if let Some(i) = found {
            taken[i] = true;
            out.push(&d.points()[i]);
        }
    }
    out
}

type Workload = Vec<(String, u32, u64, bool, u8, u32)>;

/// What identifies a point's workload across runs: each running class with its load and
/// parameters, by class name (idle classes and the order of classes do not matter).
fn workload(p: &PointResult) -> Workload {
    let mut key: Vec<_> = PointRead::new(p)
        .running()
        .map(|c| c.params)
        .map(|c| {
            (
                c.class.clone(),
                c.load,
                c.size,
                c.access == rigel_expr::Access::Sequential,
                c.mix.read_percent,
                c.per_stream,
            )
        })
        .collect();
    key.sort();
    key
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
