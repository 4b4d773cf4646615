//! `[drain]` in the plan: the first point's workload (or one class's, at a load of its own) run
//! before measuring until a burst bucket runs out, bounded by `limit`.

use super::limits::{self, Timing};
use super::model::{DataPoint, DrainPlan, RunSettings};
use rigel_spec::{Spec, SpecError};
use std::time::Duration;

/// The shortest limit that can show a sustained step: two seconds on each side of it and the
/// margin the runner waits once it is seen.
pub const MIN_LIMIT: Duration = Duration::from_secs(5);

/// The id the drain runs under: apart from every planned point's (and the precondition's
/// passes', counted down from `u32::MAX`), so its draws are its own.
const DRAIN_ID: u32 = u32::MAX - 1024;

impl DrainPlan {
    /// The point the drain runs: `first` (the first measured point, or the first trial); with
    /// `class`, that class alone as it runs at the first of `first` and `points` where it runs;
    /// each class at `load` when set. None: `class` runs at none of them.
    pub fn point(&self, first: &DataPoint, points: &[DataPoint]) -> Option<DataPoint> {
        let mut p = match &self.class {
            None => first.clone(),
            Some(name) => {
                let from = std::iter::once(first)
                    .chain(points)
                    .find(|p| p.load_of(name) > 0)?;
                DataPoint {
                    classes: from
                        .classes
                        .iter()
                        .filter(|c| c.class == *name)
                        .cloned()
                        .collect(),
                    ..from.clone()
                }
            }
        };
        if let Some(load) = self.load {
            for c in p.classes.iter_mut().filter(|c| c.load > 0) {
                c.set_load(load);
            }
        }
        p.id = DRAIN_ID;
        Some(p)
    }

    /// The settings the drain runs with: no warmup, its limit as its window.
    pub fn settings(&self, run: &RunSettings) -> RunSettings {
        RunSettings {
            duration_ms: self.limit_ms,
            warmup_ms: 0,
            verify: None,
            ..run.clone()
        }
    }

    /// Plan text: `runs the first point (rd=4) until a burst bucket runs out (its throughput
    /// steps down and stays down), at most 40m, then measures`; `runs class rd alone (rd=32)
    /// …` with `class`, `runs the first point's classes at load 32 (rd=32) …` with `load`.
    /// `first`: the first measured point (none for a search: its first trial).
    pub fn describe(&self, first: Option<&DataPoint>, points: &[DataPoint]) -> String {
        let drained = first.and_then(|f| self.point(f, points));
        let what = match (drained, &self.class, self.load) {
            (Some(p), None, None) => format!("the first point ({})", p.label()),
            (Some(p), None, Some(l)) => {
                format!("the first point's classes at load {l} ({})", p.label())
            }
            (Some(p), Some(c), _) => format!("class {c} alone ({})", p.label()),
            (None, None, None) => "the first trial".to_owned(),
            (None, None, Some(l)) => format!("the first trial's classes at load {l}"),
            (None, Some(c), None) => format!("class {c} alone, as in the first trial"),
            (None, Some(c), Some(l)) => format!("class {c} alone at load {l}"),
        };
        format!(
            "runs {what} until a burst bucket runs out (its throughput steps down to at most \
             half and stays down, latency up), at most {}, then measures",
            rigel_expr::format_duration(Duration::from_millis(self.limit_ms))
        )
    }
}

pub fn compile_drain(spec: &Spec, errors: &mut Vec<SpecError>) -> Option<DrainPlan> {
    let d = spec.drain.as_ref()?;
    let limit = d.limit.value;
    if let Err(b) = limits::timing(limit, Timing::Duration) {
        errors.push(b.at(&d.limit.loc));
        return None;
    }
    if limit < MIN_LIMIT {
        errors.push(
            SpecError::at(
                &d.limit.loc,
                format!(
                    "a drain of {} cannot show a burst bucket running out",
                    rigel_expr::format_duration(limit)
                ),
                "this value",
            )
            .hint(format!(
                "at least {}: a sustained step needs seconds on each side of it; buckets last minutes (gp2: about 30m)",
                rigel_expr::format_duration(MIN_LIMIT)
            )),
        );
        return None;
    }
    Some(DrainPlan {
        limit_ms: limit.as_millis() as u64,
        load: d.load.as_ref().map(|l| l.value),
        class: d.class.as_ref().map(|c| c.value.clone()),
    })
}

/// The drain's point against the plan's (`probed`: its points, or a search's template): a
/// `class` that runs at none of them, or a `load` past what a point may hold, at its value.
pub fn check_drain(
    spec: &Spec,
    drain: &DrainPlan,
    probed: &[DataPoint],
    run: &RunSettings,
) -> Option<SpecError> {
    let d = spec.drain.as_ref()?;
    let first = probed.first()?;
    let Some(point) = drain.point(first, probed) else {
        let class = d.class.as_ref()?;
        return Some(
            SpecError::at(
                &class.loc,
                format!("class `{}` runs at no point of this plan", class.value),
                "this class",
            )
            .hint("the drain runs a class as a point runs it (its size, mix, placement): give it a load in [matrix]"),
        );
    };
    let loc = d.load.as_ref().map_or(&d.loc, |l| &l.loc);
    if let Some(l) = d.load.as_ref()
        && let Err(b) = limits::load(u64::from(l.value))
    {
        return Some(b.at(loc));
    }
    limits::point(&point, run).err().map(|b| b.at(loc))
}
