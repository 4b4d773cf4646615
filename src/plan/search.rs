//! `[search]` in the plan: the searched class and knob, the bounds, and the bisection itself — a
//! pure step from the trials so far to the next value — so that `rigel plan` can count the worst
//! case and a resumed run continues from its recorded trials.

use super::limits;
use super::model::{ClassLoad, DataPoint, Requirement, RunSettings, SweepBinding};
use crate::expr::{Access, Rate};
use crate::spec::{Precision, Sp, Spec, SpecError};
use serde::{Deserialize, Serialize};

/// What the search varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Knob {
    /// An open-loop class's rate, in I/Os per second.
    Rate,
    /// A closed-loop class's load (outstanding I/Os, or streams).
    Load,
}

/// When to stop: the highest pass and the lowest fail within a share of the pass, or a value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tolerance {
    Percent(f64),
    Absolute(f64),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchPlan {
    /// The requirement each trial is judged by, as `[expect]` keeps one.
    pub target: Requirement,
    pub class: String,
    pub knob: Knob,
    /// Bounds in the knob's unit (I/Os per second, or load).
    pub low: f64,
    pub high: f64,
    pub tolerance: Tolerance,
    pub max_trials: u32,
    /// The most trials the search can take (the plan's estimate counts these).
    pub worst_trials: u32,
    /// The point every trial runs, with the class's knob set to the trial's value.
    pub template: DataPoint,
}

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
            Tolerance::Absolute(a) => format!("{}{unit}", crate::units::thousands(a)),
        };
        format!(
            "{} {what} {}..{}{unit} for {} {}, precision {precision}",
            self.class,
            crate::units::thousands(self.low),
            crate::units::thousands(self.high),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::RunPlan;

    fn plan(low: f64, high: f64, tolerance: Tolerance, max_trials: u32) -> SearchPlan {
        SearchPlan {
            target: Requirement {
                key: "small.latency.p99".into(),
                comparison: crate::expr::parse_comparison("<= 2ms").unwrap(),
            },
            class: "small".into(),
            knob: Knob::Rate,
            low,
            high,
            tolerance,
            max_trials,
            worst_trials: 0,
            template: DataPoint {
                id: 0,
                sweep: Vec::new(),
                classes: Vec::new(),
            },
        }
    }

    /// Runs the search against "passes up to `capacity`".
    fn search(p: &SearchPlan, capacity: f64) -> (Option<f64>, Vec<Tried>) {
        let mut trials = Vec::new();
        while let Some(v) = p.next(&trials) {
            trials.push(Tried {
                value: v,
                passed: v <= capacity,
            });
        }
        (bracket(&trials).0, trials)
    }

    #[test]
    fn finds_a_capacity_within_the_precision() {
        let p = plan(1000.0, 100_000.0, Tolerance::Percent(2.0), 30);
        for capacity in [1000.0, 1234.0, 41_200.0, 77_777.0, 99_999.0] {
            let (answer, trials) = search(&p, capacity);
            let a = answer.unwrap();
            assert!(a <= capacity && capacity - a <= a * 0.02, "{capacity}: {a}");
            assert!(trials.len() as u32 <= worst_trials(&p), "{capacity}");
        }
    }

    #[test]
    fn absolute_tolerance_and_the_ends() {
        let p = plan(1.0, 64.0, Tolerance::Absolute(1.0), 30);
        let (a, _) = search(&p, 17.0);
        assert_eq!(a, Some(17.0));
        // Passing at `high` ends after two trials; failing at `low` after one, with no answer.
        let (a, t) = search(&p, 100.0);
        assert_eq!((a, t.len()), (Some(64.0), 2));
        let (a, t) = search(&p, 0.5);
        assert_eq!((a, t.len()), (None, 1));
    }

    #[test]
    fn the_trial_cap_holds_and_bounds_the_worst_case() {
        let p = plan(1000.0, 1_000_000.0, Tolerance::Absolute(1.0), 6);
        let (_, t) = search(&p, 333_333.0);
        assert_eq!(t.len(), 6);
        assert_eq!(worst_trials(&p), 6);
        let p = plan(1000.0, 2000.0, Tolerance::Percent(10.0), 50);
        // 1000 pass, 2000 fail, then 1500, 1250, 1125, 1063 (bracket 63 < 100).
        assert_eq!(worst_trials(&p), 6);
    }

    #[test]
    fn a_trial_point_sets_the_knob_and_names_it() {
        let mut p = plan(1.0, 8.0, Tolerance::Absolute(1.0), 8);
        p.knob = Knob::Load;
        p.template.classes.push(ClassLoad {
            class: "small".into(),
            size: 8192,
            access: Access::Sequential,
            mix: crate::expr::parse_mix("read").unwrap(),
            load: 1,
            per_stream: 4,
            outstanding: 4,
            rate: None,
            arrival: Default::default(),
        });
        let t = p.point(3, 5.0);
        assert_eq!(
            (t.id, t.classes[0].load, t.classes[0].outstanding),
            (3, 5, 20)
        );
        assert_eq!(t.label(), "small=5 small.load=5");
    }

    fn compiled(search: &str, matrix: &str) -> Result<RunPlan, Vec<String>> {
        let text = format!(
            "[[target]]\npath = \"a\"\nsize = \"64MiB\"\n[class.small]\nsize = \"8KiB\"\n\
             rate = \"100 iops\"\n[class.big]\nsize = \"1MiB\"\n[matrix]\n{matrix}\n[search]\n{search}\n"
        );
        let loaded = crate::spec::load(
            crate::spec::SpecInput::Text {
                name: "t",
                text: &text,
            },
            &[],
            2,
        )
        .map_err(|d| {
            d.errors
                .iter()
                .map(|e| e.message.clone())
                .collect::<Vec<_>>()
        })?;
        super::super::compile(&loaded.spec, 2)
            .map_err(|e| e.iter().map(|e| e.message.clone()).collect())
    }

    const POINT: &str = "shape = \"point\"\nsmall = \"16\"\nbig = \"2\"";

    #[test]
    fn a_search_compiles_to_its_worst_case() {
        let p = compiled(
            "target = \"small.read.latency.p99 <= 2ms\"\nlow = \"1000 iops\"\nhigh = \"64000 iops\"\nprecision = \"1000 iops\"",
            POINT,
        )
        .unwrap();
        let s = p.search.as_ref().unwrap();
        assert_eq!(
            (s.knob, s.low, s.high, s.max_trials),
            (Knob::Rate, 1000.0, 64000.0, 12)
        );
        // low, high, then 63,000 halved to under 1,000: 6 more.
        assert_eq!(s.worst_trials, 8);
        assert!(p.points.is_empty());
        assert_eq!(p.estimated_seconds, (8 * (60_000 + 5) + 500) / 1000);
        let p = compiled(
            "target = \"big.iops >= 100\"\nlow = 1\nhigh = 32\nprecision = 1\nmax_trials = 4",
            POINT,
        )
        .unwrap();
        let s = p.search.unwrap();
        assert_eq!((s.knob, s.worst_trials), (Knob::Load, 4));
    }

    #[test]
    fn bad_searches_are_refused_with_a_reason() {
        let bad = |search: &str, matrix: &str, wanted: &str| {
            let e = compiled(search, matrix).expect_err(search);
            assert!(e.iter().any(|m| m.contains(wanted)), "{search}: {e:?}");
        };
        let t = "target = \"small.read.latency.p99 <= 2ms\"\n";
        bad("low = 1\nhigh = 2", POINT, "needs `target`");
        bad(
            &format!("{t}low = \"9000 iops\"\nhigh = \"100 iops\""),
            POINT,
            "`low` below `high`",
        );
        bad(
            &format!("{t}low = 1\nhigh = 2\nmax_trials = 100"),
            POINT,
            "between 2 and 64",
        );
        bad(
            &format!("{t}low = 1\nhigh = 2\nprecision = \"150%\""),
            POINT,
            "not a share",
        );
        bad(
            &format!("{t}low = 1\nhigh = 2"),
            "shape = \"basic\"\nsmall = \"1,2\"\nbig = \"1\"",
            "one point",
        );
        bad(
            "target = \"smal.read.latency.p99 <= 2ms\"\nlow = 1\nhigh = 2",
            POINT,
            "smal",
        );
        bad(
            "target = \"small.latency.p99 2ms\"\nlow = 1\nhigh = 2",
            POINT,
            "needs a comparison",
        );
        bad(
            "target = \"small.iops <= 2ms\"\nlow = 1\nhigh = 2",
            POINT,
            "I/Os per second",
        );
        bad(
            "target = \"big.iops >= 5\"\nlow = \"1MiB/s\"\nhigh = 2",
            POINT,
            "load is searched",
        );
        bad(
            "target = \"big.iops >= 5\"\nlow = 1\nhigh = 100000",
            POINT,
            "more than rigel keeps",
        );
    }
}
