//! Comparing two runs (or two sets of repeated runs): points matched by their workload (each
//! running class's load, size, access, mix and streams), each figure's change and its noise band,
//! and regressions beyond both the threshold and the band in the direction that hurts (fewer IOPS
//! or MB/s, more latency); a change beyond the threshold but inside the band is inconclusive.
//! The runs' answers are compared lines too (`answers.rs`).
//! Pure; `rigel compare` prints and picks the exit code.

#[cfg(test)]
mod answer_tests;
mod answers;
mod band;
mod differences;
mod host;
mod noise;
#[cfg(test)]
mod pair_tests;
mod point_lines;
mod rate;
mod render;
mod render_html;
mod spec_diff;
#[cfg(test)]
mod tests;
mod types;

pub use render::{markdown, text};
pub use render_html::html;
pub use types::*;

use differences::{summary, warnings};
use point_lines::compare_point;
use rigel_results::view::PointRead;
use rigel_results::{PointResult, ResultsDoc};

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
    let answers = answers::compare_answers(b0, n0, &points, opts);
    let nothing_in_common = points.is_empty() && answers.is_empty();
    if nothing_in_common {
        warnings.push(
            "BASE and NEW have nothing in common: no point of NEW runs the workload of a point of \
             BASE and no answer has the same name; nothing was compared"
                .into(),
        );
    } else if points.is_empty() && !b0.points().is_empty() && !n0.points().is_empty() {
        warnings.push(
            "no point of NEW runs the workload of a point of BASE: only the answers were compared"
                .into(),
        );
    }
    let of_answers = |c: Change| answers.iter().filter(|a| a.verdict == c).count();
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
        answer_regressions: of_answers(Change::Regressed),
        answer_inconclusive: of_answers(Change::Inconclusive),
        answers,
        nothing_in_common,
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
