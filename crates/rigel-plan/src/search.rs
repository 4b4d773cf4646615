//! `[search]` in the plan: the searched class and knob, the bounds, and the bisection itself — a
//! pure step from the trials so far to the next value — so that `rigel plan` can count the worst
//! case and a resumed run continues from its recorded trials.

use super::limits;
use super::model::{
    ClassLoad, DataPoint, Knob, Requirement, RunSettings, SearchPlan, SweepBinding, Tolerance,
};
use rigel_expr::Rate;
use rigel_spec::{Precision, Sp, Spec, SpecError};

/// One trial's outcome, as the search sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tried {
    pub value: f64,
    pub passed: bool,
    /// The target's figure at this trial (None without data).
    pub figure: Option<f64>,
    /// A failed trial whose response times are largely rigel's own send lag (it fell behind its
    /// schedule): the miss is the tool's, not the storage's, so the value runs again.
    pub spoiled: bool,
}

/// At most this many trials at one value that the storage decided (not spoiled): a value that
/// both held and failed runs again up to here; still split, it is a contradiction.
pub const MAX_RUNS_AT: usize = 3;
/// At most this many spoiled trials at one value are run again.
pub const MAX_SPOILED_AT: usize = 2;

/// A figure that rose by less than this share while the load at least doubled (by
/// [`FLAT_LOAD`]) did not follow the load: pass and fail between such trials are the figure's
/// noise, not the load's doing (a flat latency judged against a limit inside its own spread).
pub const FLAT_RISE: f64 = 0.25;
pub const FLAT_LOAD: f64 = 2.0;

/// Why a search's trials cannot give an answer: they contradict the premise that the target's
/// figure worsens as the load grows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Contradiction {
    /// The target held at `pass` but failed at the lower `fail` (each value's latest trial).
    PassAboveFail { pass: Tried, fail: Tried },
    /// From `low` to the failing `high` (at least [`FLAT_LOAD`] times the load) the figure
    /// worsened by less than [`FLAT_RISE`]: it does not follow the load.
    Flat { low: Tried, high: Tried },
    /// The target both held and failed at one value over [`MAX_RUNS_AT`] trials.
    Split {
        value: f64,
        passed: usize,
        runs: usize,
    },
}

/// The trials the storage decided: the spoiled ones left out, unless a value has nothing else.
fn decided(trials: &[Tried]) -> Vec<Tried> {
    trials
        .iter()
        .filter(|t| !t.spoiled || trials.iter().all(|o| o.value != t.value || o.spoiled))
        .copied()
        .collect()
}

/// A value the storage both held and failed at: its trials decided, and how many passed.
fn split(trials: &[Tried]) -> Option<(f64, usize, usize)> {
    let d = decided(trials);
    d.iter().find_map(|t| {
        let at: Vec<&Tried> = d.iter().filter(|o| o.value == t.value).collect();
        let passed = at.iter().filter(|o| o.passed).count();
        (passed > 0 && passed < at.len()).then_some((t.value, passed, at.len()))
    })
}

/// Each tried value once, by value: its latest decided trial (a repeat decides) and how often it
/// ran.
fn verdicts(trials: &[Tried]) -> Vec<(Tried, usize)> {
    let mut out: Vec<(Tried, usize)> = Vec::new();
    for t in &decided(trials) {
        match out.iter_mut().find(|(v, _)| v.value == t.value) {
            Some((v, n)) => {
                *v = *t;
                *n += 1;
            }
            None => out.push((*t, 1)),
        }
    }
    out.sort_by(|a, b| a.0.value.total_cmp(&b.0.value));
    out
}

/// The highest passing value and the lowest failing one among `trials` (each value judged by
/// its latest trial).
pub fn bracket(trials: &[Tried]) -> (Option<f64>, Option<f64>) {
    let v = verdicts(trials);
    let pass = v.iter().filter(|(t, _)| t.passed).map(|(t, _)| t.value);
    let fail = v.iter().filter(|(t, _)| !t.passed).map(|(t, _)| t.value);
    (pass.reduce(f64::max), fail.reduce(f64::min))
}

/// How many trials ran at `value`.
fn runs_at(trials: &[Tried], value: f64) -> usize {
    trials.iter().filter(|t| t.value == value).count()
}

impl SearchPlan {
    /// What in `trials` contradicts a figure that worsens with the load, if anything: a pass
    /// above a fail, or (with a pass and a fail among them) a figure that stayed flat while the
    /// load at least doubled.
    pub fn contradiction(&self, trials: &[Tried]) -> Option<Contradiction> {
        if let Some((value, passed, runs)) = split(trials).filter(|s| s.2 >= MAX_RUNS_AT) {
            return Some(Contradiction::Split {
                value,
                passed,
                runs,
            });
        }
        let v = verdicts(trials);
        let highest_pass = v.iter().rev().find(|(t, _)| t.passed).map(|(t, _)| *t);
        let lowest_fail = v.iter().find(|(t, _)| !t.passed).map(|(t, _)| *t);
        let (pass, fail) = (highest_pass?, lowest_fail?);
        if pass.value > fail.value {
            return Some(Contradiction::PassAboveFail { pass, fail });
        }
        // Worse means higher for an upper bound (a latency), lower for a lower bound (IOPS).
        let upper = matches!(
            self.target.comparison.op,
            rigel_expr::CmpOp::Le | rigel_expr::CmpOp::Lt
        );
        let worse = |a: f64, b: f64| if upper { a / b } else { b / a };
        let (low, _) = v.first()?;
        v.iter()
            .map(|(t, _)| *t)
            .filter(|t| !t.passed && t.value >= FLAT_LOAD * low.value)
            .find(|t| match (low.figure, t.figure) {
                (Some(a), Some(b)) if a > 0.0 && b > 0.0 => worse(b, a) < 1.0 + FLAT_RISE,
                _ => false,
            })
            .map(|high| Contradiction::Flat { low: *low, high })
    }

    /// The next value to try, or None when the search is over: `low` first, then `high` (after
    /// a fail at `low` too: a pass there would contradict it), then the middle of the bracket
    /// until it is within the tolerance or `max_trials` ran; then the answer once more, to
    /// confirm it (a confirmation that fails moves the bracket down and the search goes on). Trials
    /// that contradict each other (a pass above a fail) run again once each; a contradiction
    /// that stands, or a flat figure, ends the search with no answer.
    pub fn next(&self, trials: &[Tried]) -> Option<f64> {
        if trials.len() >= self.max_trials as usize {
            return None;
        }
        // A trial spoiled by rigel's own lag runs again (a few times at most).
        if let Some(last) = trials.last().filter(|t| t.spoiled) {
            let spoiled = trials
                .iter()
                .filter(|t| t.spoiled && t.value == last.value)
                .count();
            if spoiled <= MAX_SPOILED_AT {
                return Some(last.value);
            }
        }
        // A value that held in one trial and failed in another runs again, up to MAX_RUNS_AT.
        if let Some((value, _, runs)) = split(trials) {
            return (runs < MAX_RUNS_AT).then_some(value);
        }
        let tried = |v: f64| trials.iter().any(|t| t.value == v);
        if !tried(self.low) {
            return Some(self.low);
        }
        if !tried(self.high) {
            return Some(self.high);
        }
        match self.contradiction(trials) {
            Some(Contradiction::PassAboveFail { pass, fail }) => {
                return [fail.value, pass.value]
                    .into_iter()
                    .find(|&v| runs_at(trials, v) < 2);
            }
            Some(Contradiction::Flat { .. } | Contradiction::Split { .. }) => return None,
            None => {}
        }
        let (pass, fail) = bracket(trials);
        let lo = pass?;
        let confirm = |v: f64| (runs_at(trials, v) < 2).then_some(v);
        let Some(hi) = fail else {
            return confirm(lo);
        };
        let tol = match self.tolerance {
            Tolerance::Percent(p) => lo * p / 100.0,
            Tolerance::Absolute(a) => a,
        };
        // Whole I/Os per second or whole loads: a bracket one apart is as narrow as it gets.
        let mid = ((lo + hi) / 2.0).round();
        if hi - lo <= tol || mid <= lo || mid >= hi {
            return confirm(lo);
        }
        Some(mid)
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
        Knob::Load => c.set_load(value.round() as u32),
    }
}

/// The most trials `plan` can take: every trial above `low` failing keeps the bracket's pass at
/// `low`, where a share-of-the-pass tolerance is narrowest; the confirming trial included.
pub fn worst_trials(plan: &SearchPlan) -> u32 {
    let mut trials = Vec::new();
    while let Some(v) = plan.next(&trials) {
        trials.push(Tried {
            value: v,
            passed: v <= plan.low,
            figure: None,
            spoiled: false,
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
        (Knob::Rate, rate) => rate.iops(c.pattern.mean_size(c.size)),
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
    if let Some((_, b)) = super::engine_rule::psync_threads(&top, run) {
        return Err(vec![b.at(&s.high.loc)]);
    }
    Ok(Some(plan))
}
