//! `[drain]` in the plan: the first point's workload run before measuring until a burst bucket
//! runs out, bounded by `limit`.

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
    /// The point the drain runs: `first` (the first measured point) under its own id.
    pub fn point(&self, first: &DataPoint) -> DataPoint {
        DataPoint {
            id: DRAIN_ID,
            ..first.clone()
        }
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
    /// steps down and stays down), at most 40m, then measures`.
    pub fn describe(&self, first: Option<&DataPoint>) -> String {
        let what = match first {
            Some(p) => format!("the first point ({})", p.label()),
            None => "the first trial".to_owned(),
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
    })
}
