//! `[drain]` in the run loop: the first point's workload (or `[drain]`'s class and load),
//! unrecorded, before the point is measured, watched once a second for a burst bucket running
//! out (the stats' change-point test, online); it ends at the step plus a margin, or at its limit.

use super::observer::{Message, Observer, TICK};
use rigel_exec::{self as exec, ExecError, ExecTarget, LiveCounters, PointControl};
use rigel_plan::{DataPoint, DrainPlan, RunSettings};
use rigel_results::stats::drain::Watch;
use rigel_results::{DrainRecord, PointStatus};
use rigel_target::Volume;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

/// Runs the drain with `first`'s classes and loads (or `plan`'s class and load, from `points`);
/// its record, or how it failed (an interruption by the user included). `held` (a fleet's rank):
/// it runs to its limit whatever step it sees, so every rank drains until the first point's
/// agreed start, the slowest's bucket included.
pub(super) fn drain(
    plan: &DrainPlan,
    (first, points): (&DataPoint, &[DataPoint]),
    run: &RunSettings,
    (targets, volume): (&[ExecTarget], &Volume),
    (base, held): (&PointControl, bool),
    obs: &mut dyn Observer,
) -> Result<DrainRecord, ExecError> {
    let limit = Duration::from_millis(plan.limit_ms);
    obs.message(Message::Note(format!(
        "drain: {}",
        plan.describe(Some(first), points)
    )));
    // The plan was checked against its points (a search's template): the class runs there.
    let point = plan.point(first, points).ok_or_else(|| {
        ExecError::InvalidPoint(format!(
            "the drain's class {} runs at no point of the plan",
            plan.class.as_deref().unwrap_or_default()
        ))
    })?;
    let settings = plan.settings(run);
    // Its own stop flag: raised at the step (the user's stop is passed on to it).
    let ctl = PointControl {
        stop: Arc::new(AtomicBool::new(false)),
        live: Arc::new(LiveCounters::new(point.classes.len())),
        window_at: None,
        ..base.clone()
    };
    ctl.live.seconds.watch();
    let started = Instant::now();
    let mut watch = Watch::default();
    let mut seen = None;
    let mut step = None;
    let result = std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        let (point, settings, ctl) = (&point, &settings, &ctl);
        s.spawn(move || {
            let _ = tx.send(exec::run_point(targets, volume, point, settings, ctl));
        });
        loop {
            match rx.recv_timeout(TICK) {
                Ok(r) => break r,
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break Err(ExecError::WorkerPanicked(0)),
            }
            if base.stop.load(Ordering::Relaxed) {
                ctl.stop.store(true, Ordering::Relaxed);
            }
            let Some(second) = ctl.live.seconds.latest(seen).filter(|_| step.is_none()) else {
                continue;
            };
            seen = Some((second.point, second.index));
            let ios: u64 = second.classes.iter().map(|c| c.ios()).sum();
            let ns: f64 = second
                .classes
                .iter()
                .map(|c| c.mean_ns() * c.ios() as f64)
                .sum();
            let mean = if ios > 0 { ns / ios as f64 } else { 0.0 };
            step = watch.push(second.index, ios, mean);
            if step.is_some() && !held {
                ctl.stop.store(true, Ordering::Relaxed);
            }
        }
    });
    let seconds = started.elapsed().as_secs_f64();
    match result {
        Err(ExecError::Interrupted) if step.is_some() && !base.stop.load(Ordering::Relaxed) => {}
        Err(e) => return Err(e),
        Ok(r) => {
            if let PointStatus::Failed { error } = &r.status {
                return Err(ExecError::InvalidPoint(format!(
                    "{} at target {} offset {}",
                    error.message, error.target, error.offset
                )));
            }
        }
    }
    let mut record = watch.record(step, seconds, limit, ctl.live.total().0);
    if held && record.stepped {
        record.summary.push_str(&format!(
            "; held to its limit of {} with the fleet, whose first point starts after every \
             rank's drain",
            rigel_expr::format_duration(limit)
        ));
    }
    // The summary names the drain's time when it ran to its limit: not said twice.
    let then = if record.stepped {
        format!("ended after {seconds:.1} s; measuring the baseline")
    } else {
        "measuring (the figures may still be on credit)".to_owned()
    };
    obs.message(Message::Note(format!("drain: {}; {then}", record.summary)));
    Ok(record)
}
