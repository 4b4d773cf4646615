//! `[search]` in the plan: the searched class and knob, the bounds, and the bisection itself — a
//! pure step from the trials so far to the next value — so that `rigel plan` can count the worst
//! case and a resumed run continues from its recorded trials.

use super::limits;
use super::model::{
    ClassLoad, DataPoint, Knob, Requirement, RunSettings, SearchPlan, SweepBinding, Tolerance,
};
use rigel_expr::{Access, Rate};
use rigel_spec::{Precision, Sp, Spec, SpecError};

/// One trial's outcome, as the search sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tried {
    pub value: f64,
    pub passed: bool,
}

/// The highest passing value and the lowest failing one among `trials`.
pub fn bracket(trials: &[Tried]) -> (Option<f64>, Option<f64>) {
    let pass = trials.iter().filter(|t| t.passed).map(|t| t.value);
    let fail = trials.iter().filter(|t| !t.passed).map(|t| t.value);
    (pass.reduce(f64::max), fail.reduce(f64::min))
}

impl SearchPlan {
    /// The next value to try, or None when the search is over: `low` first (a fail there ends
    /// it with no answer), then `high` (a pass there ends it), then the middle of the bracket
    /// until it is within the tolerance or `max_trials` ran.
    pub fn next(&self, trials: &[Tried]) -> Option<f64> {
        if trials.len() >= self.max_trials as usize {
            return None;
        }
        let tried = |v: f64| trials.iter().any(|t| t.value == v);
        let (pass, fail) = bracket(trials);
        let Some(lo) = pass else {
            return (!tried(self.low)).then_some(self.low);
        };
        let Some(hi) = fail else {
            return (!tried(self.high)).then_some(self.high);
        };
        let tol = match self.tolerance {
            Tolerance::Percent(p) => lo * p / 100.0,
            Tolerance::Absolute(a) => a,
        };
        if hi - lo <= tol {
            return None;
        }
        // Whole I/Os per second or whole loads: a bracket one apart is as narrow as it gets.
        let mid = ((lo + hi) / 2.0).round();
        (mid > lo && mid < hi).then_some(mid)
    }

    /// `small rate 1,000..50,000 IOPS for small.read.latency.p99 <= 2ms, precision 5%`.
    pub fn describe(&self) -> String {
        let (what, unit) = match self.knob {
            Knob::Rate => ("rate", " IOPS"),
            Knob::Load => ("load", ""),
        };
        let precision = match self.tolerance {
            Tolerance::Percent(p) => format!("{p}%"),
            Tolerance::Absolute(a) => format!("{}{unit}", rigel_expr::units::thousands(a)),
        };
        format!(
            "{} {what} {}..{}{unit} for {} {}, precision {precision}",
            self.class,
            rigel_expr::units::thousands(self.low),
            rigel_expr::units::thousands(self.high),
            self.target.key,
            self.target.comparison
        )
    }

    /// The trial point for `value`: the template with the class's rate or load set, numbered `id`.
    pub fn point(&self, id: u32, value: f64) -> DataPoint {
        let mut p = self.template.clone();
        p.id = id;
        for c in p.classes.iter_mut().filter(|c| c.class == self.class) {
            set_knob(c, self.knob, value);
        }
        let (param, text) = match self.knob {
            Knob::Rate => ("rate", format!("{value:.0} iops")),
            Knob::Load => ("load", format!("{value:.0}")),
        };
        p.sweep.push(SweepBinding {
            key: format!("{}.{param}", self.class),
            value: text,
        });
        p
    }
}

fn set_knob(c: &mut ClassLoad, knob: Knob, value: f64) {
    match knob {
        Knob::Rate => c.rate = Some(Rate::Iops(value.round() as u64)),
        Knob::Load => {
            c.load = value.round() as u32;
            let per = if c.access == Access::Sequential {
                c.per_stream
            } else {
                1
            };
            c.outstanding = c.load.saturating_mul(per);
        }
    }
}

/// The most trials `plan` can take: every trial above `low` failing keeps the bracket's pass at
/// `low`, where a share-of-the-pass tolerance is narrowest.
pub fn worst_trials(plan: &SearchPlan) -> u32 {
    let mut trials = Vec::new();
    while let Some(v) = plan.next(&trials) {
        trials.push(Tried {
            value: v,
            passed: v <= plan.low,
        });
    }
    trials.len() as u32
}

/// The search of `spec` over its one matrix point `points[0]` (None without `[search]`).
pub(super) fn compile_search(
    spec: &Spec,
    points: &[DataPoint],
    run: &RunSettings,
) -> Result<Option<SearchPlan>, Vec<SpecError>> {
    let Some(s) = &spec.search else {
        return Ok(None);
    };
    let one = |message: String, label: &str, hint: &str| {
        vec![SpecError::at(&s.loc, message, label.to_owned()).hint(hint.to_owned())]
    };
    let [template] = points else {
        return Err(one(
            format!(
                "a search runs one point of the matrix; this spec has {}",
                points.len()
            ),
            "this search",
            "give the searched class one load (shape = \"point\") and no [sweep]",
        ));
    };
    let Some(c) = template
        .classes
        .iter()
        .find(|c| c.class == s.class && c.load > 0)
    else {
        return Err(one(
            format!(
                "class `{}` is idle at the matrix point: there is nothing to search",
                s.class
            ),
            "this search",
            "give the class a load above 0 in [matrix] (for a rate class, it caps the outstanding I/Os)",
        ));
    };
    let knob = if c.rate.is_some() {
        Knob::Rate
    } else {
        Knob::Load
    };
    let mut errors = Vec::new();
    let mut value = |r: &Sp<Rate>| match (knob, r.value) {
        (Knob::Rate, rate) => rate.iops(c.size),
        (Knob::Load, Rate::Iops(n)) => n as f64,
        (Knob::Load, Rate::BytesPerSec(_)) => {
            errors.push(
                SpecError::at(
                    &r.loc,
                    format!("class `{}` has no rate: its load is searched", s.class),
                    "a rate",
                )
                .hint("write a load as an integer (1, 64), or give the class a rate to search it"),
            );
            0.0
        }
    };
    let (low, high) = (value(&s.low), value(&s.high));
    let tolerance = match s.precision.value {
        Precision::Percent(p) => Tolerance::Percent(p),
        Precision::Absolute(a) => Tolerance::Absolute(value(&Sp::new(a, s.precision.loc.clone()))),
    };
    if let Err(b) = limits::search_bounds(low, high, knob == Knob::Load) {
        errors.push(b.at(&s.high.loc));
    }
    if let Err(b) = limits::search_trials(s.max_trials.value) {
        errors.push(b.at(&s.max_trials.loc));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut plan = SearchPlan {
        target: Requirement {
            key: s.key.value.clone(),
            comparison: s.comparison.value,
        },
        class: s.class.clone(),
        knob,
        low,
        high,
        tolerance,
        max_trials: s.max_trials.value as u32,
        worst_trials: 0,
        template: template.clone(),
    };
    plan.worst_trials = worst_trials(&plan);
    let top = plan.point(1, high);
    let check = match knob {
        Knob::Rate => limits::rate(&s.class, high),
        Knob::Load => limits::load(high as u64),
    };
    if let Some(b) = check.err().or_else(|| limits::point(&top, run).err()) {
        return Err(vec![b.at(&s.high.loc)]);
    }
    Ok(Some(plan))
}
