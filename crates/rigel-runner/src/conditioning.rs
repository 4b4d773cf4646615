//! `[precondition]` and `run.steady` in the run loop: the fill passes before the first point, each
//! a point of 100% writes through the executor that ends after exactly one volume of I/Os; and a
//! point's rounds until steady state, then its measured run.

use super::{Message, Observer};
use rigel_exec::{
    self as exec, ExecError, ExecOptions, ExecTarget, PointControl, Reuse, SlotSpace,
};
use rigel_plan::{DataPoint, PreconditionPlan, RunSettings, SteadyPlan};
use rigel_results::stats::steady::judge_last;
use rigel_results::{PointResult, PointStatus, SteadyRecord};
use rigel_target::Volume;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

/// Why the fill could not finish.
#[derive(Debug, thiserror::Error)]
pub enum PreconditionError {
    #[error(transparent)]
    Exec(#[from] ExecError),
    #[error("precondition: {size}-byte writes do not fit in the volume")]
    TooLarge { size: u64 },
    #[error("precondition pass {pass}: {message}")]
    Failed { pass: u32, message: String },
    #[error(
        "precondition pass {pass} had {done} of its {bytes} bytes {verb} when its \
         pass_limit of {limit} ended it: raise [precondition] pass_limit for this device"
    )]
    Unfinished {
        pass: u32,
        /// Bytes the pass wrote (read, for a read-through fill) before its limit.
        done: u64,
        bytes: u64,
        /// `written`, or `read` for a read-through fill (`[precondition] read = true`).
        verb: &'static str,
        limit: String,
    },
}

/// Writes (or reads, `read = true`) the volume `passes` times. Each pass is one point whose I/O
/// budget is the volume's whole I/Os of `size` (a sequential pass: each once, in order, from the
/// start), run with the run's `reuse`, so its I/Os mark the run's first-touch record.
pub(super) fn precondition(
    plan: &PreconditionPlan,
    run: &RunSettings,
    targets: &[ExecTarget],
    volume: &Volume,
    (reuse, stop): (&Arc<Reuse>, &Arc<AtomicBool>),
    obs: &mut dyn Observer,
) -> Result<(), PreconditionError> {
    let slots = SlotSpace::new(volume, plan.size)
        .map(|s| s.len())
        .filter(|&n| n > 0)
        .ok_or(PreconditionError::TooLarge { size: plan.size })?;
    let bytes = slots * plan.size;
    let settings = plan.settings(run);
    let options = ExecOptions {
        ios: Some(slots),
        ..ExecOptions::default()
    };
    let started = Instant::now();
    obs.precondition_started(bytes * u64::from(plan.passes), plan.read);
    let passes = (0..plan.passes).try_for_each(|pass| {
        let t = Instant::now();
        let written = run_pass(
            plan,
            pass,
            &settings,
            targets,
            volume,
            (reuse, stop),
            options,
            obs,
            bytes,
        )?;
        if written != bytes {
            return Err(PreconditionError::Unfinished {
                pass: pass + 1,
                done: written,
                bytes,
                verb: plan.verb(),
                limit: rigel_expr::format_duration(Duration::from_millis(plan.pass_limit_ms)),
            });
        }
        obs.message(Message::Note(format!(
            "precondition: pass {} of {} {} {} ({written} bytes) in {:.1} s",
            pass + 1,
            plan.passes,
            if plan.read { "read" } else { "wrote" },
            rigel_expr::units::size(written as f64),
            t.elapsed().as_secs_f64()
        )));
        Ok(())
    });
    obs.fill_finished();
    passes?;
    obs.message(Message::Note(format!(
        "precondition: {} {} in {:.1} s",
        rigel_expr::units::size((bytes * u64::from(plan.passes)) as f64),
        plan.verb(),
        started.elapsed().as_secs_f64()
    )));
    Ok(())
}

/// Runs pass `pass` on its own thread, reporting the bytes written so far (`bytes` per pass
/// before it) five times a second; returns the bytes the pass wrote.
#[allow(clippy::too_many_arguments)]
fn run_pass(
    plan: &PreconditionPlan,
    pass: u32,
    settings: &RunSettings,
    targets: &[ExecTarget],
    volume: &Volume,
    (reuse, stop): (&Arc<Reuse>, &Arc<AtomicBool>),
    options: ExecOptions,
    obs: &mut dyn Observer,
    bytes: u64,
) -> Result<u64, PreconditionError> {
    let point = plan.pass_point(pass);
    let ctl = PointControl {
        stop: Arc::clone(stop),
        reuse: Arc::clone(reuse),
        ..PointControl::new(1)
    };
    let before = u64::from(pass) * bytes;
    let result = std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        let (point, ctl) = (&point, &ctl);
        s.spawn(move || {
            let _ = tx.send(exec::run_point_with(
                targets, volume, point, settings, ctl, options,
            ));
        });
        loop {
            match rx.recv_timeout(crate::observer::TICK) {
                Ok(r) => break r,
                Err(RecvTimeoutError::Timeout) => obs.fill_progress(before + ctl.live.total().1),
                Err(RecvTimeoutError::Disconnected) => break Err(ExecError::WorkerPanicked(0)),
            }
        }
    });
    let (result, _) = result?;
    if let PointStatus::Failed { error } = &result.status {
        return Err(PreconditionError::Failed {
            pass: pass + 1,
            message: format!(
                "{} at target {} offset {}",
                error.message, error.target, error.offset
            ),
        });
    }
    let written = ctl.live.total().1;
    obs.fill_progress(before + written);
    Ok(written)
}

/// Runs `point`'s rounds until the last `plan.rounds` are steady or `plan.max` has passed (no
/// round starts after it), then its measured run, which carries the rounds. A failed round ends
/// the point with that round's result.
pub(super) fn steady(
    plan: &SteadyPlan,
    stop: &AtomicBool,
    run: &mut dyn FnMut(&DataPoint) -> Result<PointResult, ExecError>,
    point: &DataPoint,
) -> Result<PointResult, ExecError> {
    let started = Instant::now();
    let max = Duration::from_millis(plan.max_ms);
    let mut rounds = Vec::new();
    let mut judged = None;
    let reached = loop {
        let round = run(point)?;
        if matches!(round.status, PointStatus::Failed { .. }) {
            return Ok(round);
        }
        rounds.push(rigel_judge::expect::round_figure(&plan.metric, &round));
        let latest = judge_last(&rounds, plan.rounds as usize, plan.excursion, plan.slope);
        judged = latest.or(judged);
        if latest.is_some_and(|j| j.steady) {
            break true;
        }
        if started.elapsed() >= max || stop.load(Ordering::Relaxed) {
            break false;
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    let mut measured = run(point)?;
    let max_text = rigel_expr::format_duration(max);
    measured.steady = Some(SteadyRecord {
        summary: rigel_results::stats::steady::summary(
            reached,
            rounds.len(),
            plan.rounds as usize,
            &max_text,
        ),
        figures: rounds
            .iter()
            .map(|v| rigel_judge::expect::round_text(&plan.metric, *v))
            .collect(),
        metric: plan.metric.clone(),
        reached,
        window: plan.rounds,
        excursion: judged.map(|j| j.excursion),
        slope: judged.map(|j| j.slope),
        rounds,
        seconds,
    });
    Ok(measured)
}
