//! A run's fill step: the `[precondition]` before the first point (again on a resume that has no
//! point yet), and in a fleet the ranks' meeting after it ([`Options::barrier`]), from which the
//! points' schedule starts again.

use super::conditioning;
use super::observer::{Message, Observer};
use super::options::Options;
use super::outcome::Ended;
use super::schedule::Starts;
use rigel_exec::{ExecError, ExecTarget, Reuse};
use rigel_plan::RunPlan;
use rigel_results::PointResult;
use rigel_target::OpenVolume;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

/// How the fill before the first point ended.
pub(super) enum Fill {
    /// No `[precondition]`, or a resumed run that has points already.
    Skipped,
    Done,
    Failed(String),
    Interrupted,
}

/// The fill, before the first point (again on a resume that has no point yet).
pub(super) fn precondition(
    plan: &RunPlan,
    done: &[PointResult],
    targets: &[ExecTarget],
    volume: &OpenVolume,
    reuse: &Arc<Reuse>,
    stop: &Arc<AtomicBool>,
    obs: &mut dyn Observer,
) -> Fill {
    let Some(pre) = plan.precondition.as_ref().filter(|_| done.is_empty()) else {
        return Fill::Skipped;
    };
    let ctl = (reuse, stop);
    match conditioning::precondition(pre, &plan.run, targets, &volume.volume, ctl, obs) {
        Ok(()) => Fill::Done,
        Err(conditioning::PreconditionError::Exec(ExecError::Interrupted)) => Fill::Interrupted,
        Err(e) => Fill::Failed(e.to_string()),
    }
}

/// After the fill: the schedule the points follow (a fleet's starts again from a T0 after every
/// rank's fill, [`Options::barrier`]), or how the run ends (a failed or interrupted fill, or
/// another rank's failed one).
pub(super) fn after_fill(
    fill: Fill,
    plan: &RunPlan,
    opts: &Options,
    stop: &AtomicBool,
    obs: &mut dyn Observer,
) -> Result<Option<Starts>, Ended> {
    let barrier = opts
        .barrier
        .as_ref()
        .filter(|_| plan.precondition.is_some());
    let filled = match fill {
        Fill::Skipped => false,
        Fill::Done => true,
        // The other ranks are told, so they stop waiting; this rank ends as a single run does.
        Fill::Failed(why) => {
            obs.message(Message::Error(why.clone()));
            if let Some(Err(named)) = barrier.map(|b| b.preconditioned(Err(why), stop)) {
                obs.message(Message::Error(named));
            }
            return Err(Ended::Failed);
        }
        Fill::Interrupted => {
            if let Some(b) = barrier {
                let _ = b.preconditioned(Err("interrupted".to_owned()), stop);
            }
            return Err(Ended::Interrupted);
        }
    };
    let mut starts = opts.starts;
    match (barrier, starts.as_mut()) {
        (Some(b), Some(starts)) => match b.preconditioned(Ok(filled), stop) {
            Ok(t0) => starts.t0 = t0,
            Err(_) if stop.load(Ordering::Relaxed) => {
                return Err(Ended::Interrupted);
            }
            Err(why) => {
                obs.message(Message::Error(why));
                return Err(Ended::Failed);
            }
        },
        // `--start-at` (no shared folder to meet in): the fill runs before the given time.
        (None, Some(starts)) if filled => {
            if let Ok(late) = SystemTime::now().duration_since(starts.at(0)) {
                obs.message(Message::Warning(format!(
                    "the precondition ended {:.1} s after the first point's agreed start: the \
                     first points start late and the merge marks them partial (give a later \
                     --start-at, past the slowest rank's precondition)",
                    late.as_secs_f64()
                )));
            }
        }
        _ => {}
    }
    Ok(starts)
}
