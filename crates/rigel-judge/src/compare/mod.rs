//! Comparing two runs: points matched by their workload (each running class's load, size, access,
//! mix and streams), each figure's change, and regressions beyond a threshold in the direction that
//! hurts (fewer IOPS or MB/s, more latency). Pure; `rigel compare` prints and picks the exit code.

mod noise;
mod render;
mod spec_diff;
#[cfg(test)]
mod tests;

pub use render::{html, markdown, text};

use rigel_expr::units;
use rigel_expr::{Direction, LatencyStat, Stat};
use rigel_results::view::PointRead;
use rigel_results::{PointResult, PointStatus, ResultsDoc};
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
}

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
    /// Figures worse than the threshold, plus points that failed only in the new run.
    pub regressions: usize,
    pub improvements: usize,
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
    /// ± percent the figure moves by itself (from both runs' per-second intervals); none without them.
    pub noise_percent: Option<f64>,
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
}

/// Compares `new` against `base`.
pub fn compare(base: &ResultsDoc, new: &ResultsDoc, opts: &CompareOptions) -> RunComparison {
    let mut taken = vec![false; new.points().len()];
    let mut points = Vec::new();
    let mut only_in_base = Vec::new();
    for b in base.points() {
        let key = workload(b);
        let found = new
            .points()
            .iter()
            .enumerate()
            .position(|(i, n)| !taken[i] && workload(n) == key);
        match found {
            Some(i) => {
                taken[i] = true;
                points.push(compare_point(b, &new.points()[i], opts));
            }
            None => only_in_base.push(b.point.label()),
        }
    }
    let only_in_new = new
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
    let mut warnings = warnings(base, new);
    if points.is_empty() && !base.points().is_empty() && !new.points().is_empty() {
        warnings.push(
            "no point of NEW runs the workload of a point of BASE: nothing was compared".into(),
        );
    }
    RunComparison {
        base: summary(base),
        new: summary(new),
        threshold_percent: opts.threshold_percent,
        warnings,
        regressions: count(Change::Regressed) + failed_only_in_new,
        improvements: count(Change::Improved),
        points,
        only_in_base,
        only_in_new,
    }
}

/// What identifies a point's workload across runs: each running class with its load and
/// parameters, by class name (idle classes and the order of classes do not matter).
fn workload(p: &PointResult) -> Vec<(String, u32, u64, bool, u8, u32)> {
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

fn compare_point(b: &PointResult, n: &PointResult, opts: &CompareOptions) -> PointComparison {
    let mut out = PointComparison {
        label: b.point.label(),
        base_id: b.point.id,
        new_id: n.point.id,
        status: None,
        regressed: false,
        metrics: Vec::new(),
    };
    let failed = |p: &PointResult| match &p.status {
        PointStatus::Ok => None,
        PointStatus::Failed { error } => {
            Some(format!("{} at offset {}", error.message, error.offset))
        }
    };
    match (failed(b), failed(n)) {
        (None, None) => {}
        (Some(e), None) => {
            out.status = Some(format!("failed in BASE ({e}), ran in NEW"));
            return out;
        }
        (None, Some(e)) => {
            out.status = Some(format!("failed in NEW: {e}"));
            out.regressed = true;
            return out;
        }
        (Some(_), Some(e)) => {
            out.status = Some(format!("failed in both runs (NEW: {e})"));
            return out;
        }
    }
    let (b, n) = (PointRead::new(b), PointRead::new(n));
    for bc in b.running() {
        let Some(nc) = n.class(bc.name()) else {
            continue;
        };
        // A class that only reads (or writes) has the same figures in total and that direction.
        let directions = if bc.mixed() {
            bc.directions()
        } else {
            &[Direction::Total]
        };
        for &direction in directions {
            let (Some(bd), Some(nd)) = (bc.counted(direction), nc.counted(direction)) else {
                continue;
            };
            for &stat in &opts.stats {
                // Intervals count reads and writes together: they speak for the total only.
                let noise = (direction == Direction::Total)
                    .then(|| noise::noise_percent(bc.result?, nc.result?, stat))
                    .flatten();
                let change = metric_change(
                    (bc.name(), direction, stat),
                    bd.value(stat),
                    nd.value(stat),
                    opts.threshold_for(stat),
                    noise,
                );
                out.regressed |= change.verdict == Change::Regressed;
                out.metrics.push(change);
            }
        }
    }
    out
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

fn metric_change(
    (class, direction, stat): (&str, Direction, Stat),
    base: f64,
    new: f64,
    threshold: f64,
    noise: Option<f64>,
) -> MetricChange {
    let change = (base != 0.0).then(|| (new - base) / base * 100.0);
    let worse = |c: f64| {
        if stat.higher_is_better() { -c } else { c }
    };
    // Flagged only beyond both the threshold and the noise band.
    let bar = threshold.max(noise.unwrap_or(0.0));
    let verdict = match change.map(worse) {
        Some(w) if w > bar => Change::Regressed,
        Some(w) if w < -bar => Change::Improved,
        _ => Change::Within,
    };
    let text = |v: f64| match stat {
        Stat::Latency(_) | Stat::Service(_) => units::latency(v),
        _ => units::number(v),
    };
    MetricChange {
        class: class.to_owned(),
        direction,
        stat: stat.name(),
        base,
        new,
        base_text: text(base),
        new_text: text(new),
        change_percent: change,
        change_text: match (change, noise) {
            (Some(c), Some(n)) => format!("{} (noise ±{n:.1}%)", units::change(c)),
            (Some(c), None) => units::change(c),
            (None, _) => "-".to_owned(),
        },
        noise_percent: noise,
        threshold_percent: threshold,
        verdict,
    }
}

fn summary(doc: &ResultsDoc) -> RunSummary {
    RunSummary {
        path: String::new(),
        name: doc.plan().name.clone(),
        started: doc.started().to_owned(),
        host: doc.host().hostname.clone(),
        rigel_version: doc.rigel_version().to_owned(),
        points: doc.points().len(),
    }
}

/// What differs between the runs beyond the figures.
fn warnings(base: &ResultsDoc, new: &ResultsDoc) -> Vec<String> {
    let mut w = Vec::new();
    let diff = spec_diff::spec_diff(base.spec_toml(), new.spec_toml());
    if !diff.is_empty() {
        let names = if base.plan().name == new.plan().name {
            String::new()
        } else {
            format!(" (BASE `{}`, NEW `{}`)", base.plan().name, new.plan().name)
        };
        w.push(format!(
            "the runs come from different specs{names}: points are compared where their workloads match; differing keys ([expect] left out): {}",
            diff.join("; ")
        ));
    }
    let (b, n) = (&base.plan().run, &new.plan().run);
    let mut differ = |what: &str, x: String, y: String| {
        if x != y {
            w.push(format!("{what} differs: BASE {x}, NEW {y}"));
        }
    };
    differ(
        "the duration per point",
        ms(b.duration_ms),
        ms(n.duration_ms),
    );
    differ("the warmup", ms(b.warmup_ms), ms(n.warmup_ms));
    differ("direct I/O", b.direct.to_string(), n.direct.to_string());
    differ(
        "the worker count",
        b.workers.to_string(),
        n.workers.to_string(),
    );
    let paths = |d: &ResultsDoc| {
        let p: Vec<&str> = d.plan().targets.iter().map(|t| t.path.as_str()).collect();
        p.join(", ")
    };
    differ("the targets", paths(base), paths(new));
    differ(
        "the host",
        base.host().hostname.clone(),
        new.host().hostname.clone(),
    );
    for (which, d) in [("BASE", base), ("NEW", new)] {
        if d.points().len() < d.plan().points.len() {
            w.push(format!(
                "{which} is incomplete: {} of {} points ran",
                d.points().len(),
                d.plan().points.len()
            ));
        }
    }
    w
}

fn ms(v: u64) -> String {
    units::duration(std::time::Duration::from_millis(v))
}
