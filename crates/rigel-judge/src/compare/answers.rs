//! The answers of two runs compared: every answer (commit latency included) matched by its name and
//! group is a line, judged by the threshold and the noise band of the point it was taken at (the
//! drift floor when the runs took it at different points); a flagged line carries the validity
//! warnings either run has at that point.

use super::super::answers;
use super::{AnswerChange, Change, CompareOptions, MetricChange, PointComparison};
use rigel_results::stats::{ValidityConfig, warnings};
use rigel_results::view::ResultsView;
use rigel_results::{Answer, ResultsDoc};

pub(super) fn compare_answers(
    base: &ResultsDoc,
    new: &ResultsDoc,
    points: &[PointComparison],
    opts: &CompareOptions,
) -> Vec<AnswerChange> {
    let (b_all, n_all) = (answers::evaluate(base), answers::evaluate(new));
    let mut out = Vec::new();
    for b in &b_all {
        let Some(n) = n_all.iter().find(|n| n.key() == b.key()) else {
            continue;
        };
        let mut line = judge(b, n, points, opts);
        if matches!(line.verdict, Change::Regressed | Change::Inconclusive) {
            line.warnings = at_point(base, b.point_id, "BASE");
            line.warnings.extend(at_point(new, n.point_id, "NEW"));
        }
        out.push(line);
    }
    out
}

pub(super) fn judge(
    b: &Answer,
    n: &Answer,
    points: &[PointComparison],
    opts: &CompareOptions,
) -> AnswerChange {
    let mut line = AnswerChange {
        answer: b.key(),
        base: b.value,
        new: n.value,
        base_text: b.text.clone(),
        new_text: n.text.clone(),
        base_point: b.point.clone(),
        new_point: n.point.clone(),
        change_percent: None,
        change_text: String::new(),
        verdict: Change::Within,
        note: String::new(),
        warnings: Vec::new(),
    };
    let (bv, nv) = match (b.value, n.value) {
        (Some(bv), Some(nv)) => (bv, nv),
        (Some(_), None) => {
            line.verdict = Change::Regressed;
            line.note = format!("no answer in NEW: {}", n.note);
            return line;
        }
        (None, Some(_)) => {
            line.verdict = Change::Improved;
            line.note = format!("no answer in BASE: {}", b.note);
            return line;
        }
        (None, None) => {
            line.note = "no answer in either run".to_owned();
            return line;
        }
    };
    if bv == 0.0 {
        line.note = "the base is 0: no change to tell".to_owned();
        return line;
    }
    let pct = (nv - bv) / bv * 100.0;
    line.change_percent = Some(pct);
    line.change_text = rigel_expr::units::change(pct);
    // Latency (ns) is worse when higher; IOPS, MB/s and commits per second when lower.
    let worse = if b.unit == "ns" { pct > 0.0 } else { pct < 0.0 };
    // Said whatever the verdict: a best that moved is news even when its figure barely did.
    if b.point != n.point {
        line.note = format!("taken at {} in BASE, {} in NEW", b.point, n.point);
    }
    if pct.abs() <= opts.threshold_percent {
        return line;
    }
    // The point both runs took it at.
    let at = points
        .iter()
        .find(|p| Some(p.base_id) == b.point_id && Some(p.new_id) == n.point_id);
    // The line that decides: a best that got worse is worse at BASE's point by at least as much
    // (NEW's figure there is at most NEW's best), a best that got better is better at NEW's.
    // Taken at one point, that point's line.
    let decides = points.iter().find(|p| {
        if worse {
            Some(p.base_id) == b.point_id
        } else {
            Some(p.new_id) == n.point_id
        }
    });
    // Its line of the answer's figure: what excuses it (the host, a few ticks) is the answer's
    // too (an answer is that line, taken where its rule says). benches/noise.sh: a Max IOPS
    // −12.0% taken at QD 1 in BASE and QD 8 in NEW, whose QD 1 line (−24.5%) was a few stalled
    // ticks (its typical tick −2.7%), was flagged against the drift floor alone.
    if let Some(m) = decides.and_then(|p| same_line(&p.metrics, &b.figure))
        && m.verdict == Change::Inconclusive
        && let Some(why) = m.host.as_ref().or(m.ticks.as_ref())
    {
        line.verdict = Change::Inconclusive;
        line.note = why.clone();
        return line;
    }
    // And a line its typical tick flagged (its figure inside the band) flags the answer so.
    if let Some(m) = at.and_then(|p| same_line(&p.metrics, &b.figure))
        && m.typical_percent.is_some()
        && let Some(why) = &m.ticks
    {
        line.verdict = m.verdict;
        line.note = why.clone();
        return line;
    }
    // Taken at different points, the drift floor, or the deciding line's band if wider where
    // that line was too noisy to judge: it moved at least as far as the answer, and inside its
    // band so is the answer
    // (benches/noise.sh: Max IOPS +10.6%, QD 8 in BASE and QD 1 in NEW, whose QD 1 line read
    // +17.2% inside ±26.4%, was flagged against the floor's ±10%).
    let band = match at {
        Some(p) => same_line(&p.metrics, &b.figure)
            .and_then(|m| m.noise_percent)
            .or_else(|| p.metrics.iter().find_map(|m| m.noise_percent))
            .unwrap_or(opts.drift_floor_percent),
        None => decides
            .and_then(|p| same_line(&p.metrics, &b.figure))
            .filter(|m| m.verdict == Change::Inconclusive)
            .and_then(|m| m.noise_percent)
            .map_or(opts.drift_floor_percent, |n| {
                n.max(opts.drift_floor_percent)
            }),
    };
    line.verdict = if pct.abs() <= band {
        if line.note.is_empty() {
            line.note = format!("inside the noise band (±{band:.1}%)");
        }
        Change::Inconclusive
    } else if worse {
        Change::Regressed
    } else {
        Change::Improved
    };
    line
}

/// The line of `figure` (`class.stat` or `class.direction.stat`, as `[expect]` writes it) among a
/// point's lines.
fn same_line<'a>(metrics: &'a [MetricChange], figure: &str) -> Option<&'a MetricChange> {
    let (class, rest) = figure.split_once('.')?;
    let (direction, stat) = match rest.split_once('.') {
        Some((d @ ("read" | "write" | "total"), stat)) => (d, stat),
        _ => ("total", rest),
    };
    metrics
        .iter()
        .find(|m| m.class == class && m.direction.name() == direction && m.stat == stat)
}

/// The validity warnings `doc` has at point `id`, each prefixed by its side.
fn at_point(doc: &ResultsDoc, id: Option<u32>, side: &str) -> Vec<String> {
    let Some(id) = id else {
        return Vec::new();
    };
    let view = ResultsView::new(doc);
    warnings(&view, &[], &ValidityConfig::default())
        .into_iter()
        .filter(|w| w.point == Some(id))
        .map(|w| format!("{side}: {}", w.message))
        .collect()
}
