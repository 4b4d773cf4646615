//! Requirements: the `[expect]` entries a run carries in its plan, judged against its results.
//! Pure: `rigel run` prints the verdicts and picks the exit code, reports show them as a table,
//! `results.json` keeps them, and the report's JUnit format writes them for CI test reporters.

mod measure;
mod search;
mod steady;
mod table;
#[cfg(test)]
mod tests;

pub use measure::*;
pub use search::{search_record, trials};
pub use steady::{round_figure, round_text};
pub use table::table;

use rigel_expr::{
    CmpOp, Comparison, Filter, Metric, Pick, Quantity, RequirementKey, Stat, parse_requirement_key,
};
use rigel_plan::Requirement;
use rigel_results::view::{self, PointRead};
use rigel_results::{PointResult, PointStatus, ResultsDoc};
use serde::Serialize;

/// The judgement of one requirement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// The key as written: `small.latency.p99 @ small=1`.
    pub key: String,
    /// The comparison as written back: `<= 500us`.
    pub requirement: String,
    /// The same comparison, structured (`op`, and `value` with its `unit`), for templates.
    pub comparison: Comparison,
    /// The unit of `measured` and `margin`: `iops`, `mbps` (MiB/s), `ns` or `points`.
    pub unit: &'static str,
    pub status: Status,
    /// Pass: true. Fail and no data: false.
    pub passed: bool,
    /// The value judged, in the metric's unit (IOPS, MiB/s, nanoseconds, failed points).
    pub measured: Option<f64>,
    /// The value with its unit (`41235 IOPS`), or `-` without data.
    pub measured_text: String,
    /// The point the value was measured at (`small=16 large=0`); none for counts over points.
    pub point: Option<String>,
    pub point_id: Option<u32>,
    /// How far the value is on the good side of the limit (negative: by how much it misses), in
    /// the metric's unit.
    pub margin: Option<f64>,
    /// The margin relative to the limit, in percent (none when the limit is 0).
    pub margin_percent: Option<f64>,
    /// `+3.1%`, `-12 IOPS`, or empty.
    pub margin_text: String,
    /// How many points the requirement looked at.
    pub points_checked: usize,
    /// Why there is no value, or what else to know (`2 points did not run`).
    pub note: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pass,
    Fail,
    /// No point gave a value: the requirement cannot be met.
    NoData,
}

impl Status {
    pub fn word(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::NoData => "NO DATA",
        }
    }
}

/// Judges every requirement of the run's plan, in the order written.
pub fn evaluate(doc: &ResultsDoc) -> Vec<Verdict> {
    doc.plan().expect.iter().map(|r| judge(doc, r)).collect()
}

/// Whether every verdict passed (true when there are none).
pub fn all_passed(verdicts: &[Verdict]) -> bool {
    verdicts.iter().all(|v| v.passed)
}

fn judge(doc: &ResultsDoc, r: &Requirement) -> Verdict {
    let missing = doc.plan().points.len().saturating_sub(doc.points().len());
    judge_points(doc.points(), missing, r)
}

/// Judges `r` at one point alone (a search's trial).
pub fn judge_point(r: &Requirement, p: &PointResult) -> Verdict {
    judge_points(std::slice::from_ref(p), 0, r)
}

fn judge_points(points: &[PointResult], missing: usize, r: &Requirement) -> Verdict {
    let mut v = Verdict {
        key: r.key.clone(),
        requirement: r.comparison.to_string(),
        comparison: r.comparison,
        unit: "",
        status: Status::NoData,
        passed: false,
        measured: None,
        measured_text: "-".to_owned(),
        point: None,
        point_id: None,
        margin: None,
        margin_percent: None,
        margin_text: String::new(),
        points_checked: 0,
        note: String::new(),
    };
    let key = match parse_requirement_key(&r.key) {
        Ok(k) => k,
        Err(e) => {
            v.note = format!("not a requirement key: {e}");
            return v;
        }
    };
    if let Err((message, _)) = rigel_expr::check_unit(&key.metric, &r.comparison) {
        v.note = message;
        return v;
    }
    let selected: Vec<&PointResult> = points
        .iter()
        .filter(|p| key.selector.filters.iter().all(|f| matches(p, f)))
        .collect();
    if missing > 0 {
        v.note = format!("{missing} planned points did not run");
    }
    v.unit = match &key.metric {
        Metric::Errors => "points",
        Metric::Class { stat, .. } => match stat {
            Stat::Iops => "iops",
            Stat::Mbps => "mbps",
            Stat::Latency(_) | Stat::Service(_) => "ns",
        },
    };
    match &key.metric {
        Metric::Errors => judge_errors(&mut v, &selected, &r.comparison),
        Metric::Class { .. } => judge_class(&mut v, &key, &selected, &r.comparison),
    }
    v
}

/// A class figure: the value at each selected point where the class ran in that direction, then
/// the point the selector picks.
fn judge_class(v: &mut Verdict, key: &RequirementKey, selected: &[&PointResult], c: &Comparison) {
    let Metric::Class {
        class,
        direction,
        stat,
    } = &key.metric
    else {
        return;
    };
    let reads: Vec<PointRead> = selected.iter().map(|p| PointRead::new(p)).collect();
    // `@ oltp.size=8KiB` on the class judged: that size's own figure where it is one of a mix.
    let size = key.size_filter();
    let values: Vec<(&PointRead, f64)> = reads
        .iter()
        .filter_map(|p| {
            let x = p.class(&class.name)?.value_at(*direction, *stat, size)?;
            Some((p, x))
        })
        .collect();
    v.points_checked = values.len();
    let failed = reads
        .iter()
        .filter(|p| !p.ok && p.class(&class.name).is_some_and(|c| c.runs()))
        .count();
    if failed > 0 {
        note_first(
            v,
            format!("{failed} selected points failed and were not judged"),
        );
    }
    // Points where the class's rate was not achieved are never the best; when they are all there
    // is, the requirement fails on the worst of them, saying why.
    let mut unachieved = false;
    let chosen = match key.selector.pick {
        // The best point is the results model's, as in every report's headline.
        Pick::Best => view::best_at(&reads, &class.name, *direction, *stat, size)
            .map(|b| (b.point, b.value))
            .or_else(|| {
                unachieved = true;
                worst(&values, c)
            }),
        Pick::Every => worst(&values, c),
    };
    let Some((point, value)) = chosen else {
        let why = no_data_note(key, selected.len());
        note_last(v, why);
        return;
    };
    settle(v, value, c, |x| match (direction, stat) {
        (rigel_expr::Direction::Commit, Stat::Iops) => {
            format!("{} commits/s", rigel_expr::units::thousands(x))
        }
        _ => format_stat(*stat, x),
    });
    if unachieved {
        v.status = Status::Fail;
        v.passed = false;
        note_first(
            v,
            "the rate was not achieved at any point judged".to_owned(),
        );
    }
    v.point = Some(point.label());
    v.point_id = Some(point.id());
}

fn note_first(v: &mut Verdict, note: String) {
    v.note = if v.note.is_empty() {
        note
    } else {
        format!("{note}; {}", v.note)
    };
}

fn note_last(v: &mut Verdict, note: String) {
    v.note = if v.note.is_empty() {
        note
    } else {
        format!("{}; {note}", v.note)
    };
}

fn judge_errors(v: &mut Verdict, selected: &[&PointResult], c: &Comparison) {
    let failed: Vec<&&PointResult> = selected
        .iter()
        .filter(|p| matches!(p.status, PointStatus::Failed { .. }))
        .collect();
    v.points_checked = selected.len();
    if let Some(first) = failed.first() {
        v.point = Some(first.point.label());
        v.point_id = Some(first.point.id);
        if let PointStatus::Failed { error } = &first.status {
            let at = format!(
                "{}: {} at offset {}",
                error.target, error.message, error.offset
            );
            note_first(v, at);
        }
    }
    let count = failed.len() as f64;
    settle(v, count, c, |x| {
        let n = x as u64;
        format!("{n} failed point{}", if n == 1 { "" } else { "s" })
    });
    // A count against a limit of a few points: the measured count says it all.
    v.margin_text.clear();
}

/// The point judged for `@ all` and named points: the one nearest to failing, or failing by most
/// (the first such point wins a tie).
fn worst<'v, 'a>(
    values: &[(&'v PointRead<'a>, f64)],
    c: &Comparison,
) -> Option<(&'v PointRead<'a>, f64)> {
    let limit = limit_of(c);
    let mut found: Option<(&PointRead, f64)> = None;
    for &(p, x) in values {
        if found.is_none_or(|(_, w)| margin(c.op, x, limit) < margin(c.op, w, limit)) {
            found = Some((p, x));
        }
    }
    found
}

fn settle(v: &mut Verdict, value: f64, c: &Comparison, text: impl Fn(f64) -> String) {
    let limit = limit_of(c);
    let holds = holds(c, value);
    let m = margin(c.op, value, limit);
    v.status = if holds { Status::Pass } else { Status::Fail };
    v.passed = holds;
    v.measured = Some(value);
    v.measured_text = text(value);
    v.margin = Some(m);
    if limit != 0.0 && c.op != CmpOp::Eq {
        let pct = m / limit.abs() * 100.0;
        v.margin_percent = Some(pct);
        v.margin_text = rigel_expr::units::change(pct);
    } else if c.op != CmpOp::Eq {
        v.margin_text = text(m);
    }
}

/// Whether `value` (in the metric's unit) meets the comparison: a verdict, an answer's `where`.
pub fn holds(c: &Comparison, value: f64) -> bool {
    let limit = limit_of(c);
    match c.op {
        CmpOp::Ge => value >= limit,
        CmpOp::Gt => value > limit,
        CmpOp::Le => value <= limit,
        CmpOp::Lt => value < limit,
        CmpOp::Eq => (value - limit).abs() <= f64::EPSILON * limit.abs().max(1.0),
    }
}

/// The limit in the metric's unit: MiB/s for rates, nanoseconds for times.
fn limit_of(c: &Comparison) -> f64 {
    match c.value {
        Quantity::Number(n) => n,
        Quantity::Bytes(b) => b as f64,
        Quantity::Nanos(n) => n as f64,
        Quantity::BytesPerSec(r) => r / f64::from(1u32 << 20),
    }
}

/// Positive on the good side of the limit.
fn margin(op: CmpOp, value: f64, limit: f64) -> f64 {
    match op {
        CmpOp::Ge | CmpOp::Gt => value - limit,
        CmpOp::Le | CmpOp::Lt => limit - value,
        CmpOp::Eq => -(value - limit).abs(),
    }
}

/// Whether a point satisfies one selector condition.
pub fn matches(p: &PointResult, f: &Filter) -> bool {
    point_matches(&p.point, f)
}

// A point satisfies a selector by the compiler's rule: the points a requirement judges are those
// its check found in the plan.
use rigel_plan::point_matches;

fn no_data_note(key: &RequirementKey, selected: usize) -> String {
    let Metric::Class {
        class, direction, ..
    } = &key.metric
    else {
        return String::new();
    };
    let filters: Vec<String> = key
        .selector
        .filters
        .iter()
        .map(|f| f.condition.describe(&f.class.name))
        .collect();
    if selected == 0 && !filters.is_empty() {
        return format!("no point ran with {}", filters.join(" "));
    }
    let doing = match direction {
        rigel_expr::Direction::Total => "running",
        rigel_expr::Direction::Read => "reading",
        rigel_expr::Direction::Write => "writing",
        rigel_expr::Direction::Commit => "committing",
    };
    format!(
        "no selected point finished with class `{}` {doing}",
        class.name
    )
}
