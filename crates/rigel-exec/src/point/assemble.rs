//! Merging what a point's workers recorded into its result: the classes' recorders, the failure
//! that ended it, the CPU and wall-clock window, the workload's and the skew's figures, a replay's
//! lag, and the probe.

use super::probe::{ClassProbe, PointProbe};
use super::worker::WorkerOutcome;
use crate::policy::setup::ClassSetup;
use crate::policy::skew::HOTTEST;
use crate::{ExecTarget, Shared};
use rigel_plan::DataPoint;
use rigel_results::{ClassRecorder, IoFailure, PointResult, PointStatus};
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

/// A replayed class's flushes, as commits of the trace's writes per flush.
pub(super) fn replay_result(
    r: &mut rigel_results::ClassResult,
    replay: &rigel_plan::replay::Replay,
    c: usize,
    outcomes: &[WorkerOutcome],
    window_s: f64,
) {
    if replay.flushes == 0 {
        return;
    }
    let every = (replay.writes as f64 / replay.flushes as f64)
        .round()
        .max(1.0) as u32;
    for o in outcomes {
        if let Some((_, rec)) = o.recorders.iter().find(|(k, _)| *k == c) {
            r.commit = Some(rec.commit_result(every, false, window_s));
        }
    }
}

/// A size-mix class's achieved shares and a grouped-durability class's commits, from the
/// workers' recorders of point class `c`.
pub(super) fn workload_result(
    r: &mut rigel_results::ClassResult,
    (load, c): (&rigel_plan::ClassLoad, usize),
    outcomes: &[WorkerOutcome],
    window_s: f64,
) {
    if load.pattern.sizes.is_none()
        && load.pattern.flush.is_none()
        && load.pattern.think_ns.is_none()
        && load.pattern.burst.is_none()
    {
        return;
    }
    let mut merged: Option<rigel_results::ClassRecorder> = None;
    for o in outcomes {
        for (_, rec) in o.recorders.iter().filter(|(k, _)| *k == c) {
            match &mut merged {
                Some(m) => m.merge(rec),
                None => merged = Some(rec.clone()),
            }
        }
    }
    let Some(rec) = merged else { return };
    if let Some(m) = &load.pattern.sizes {
        let asked: Vec<(u64, f64)> = m
            .items()
            .iter()
            .enumerate()
            .map(|(i, s)| (s.size, m.share(i)))
            .collect();
        r.sizes = rec.size_shares(&asked, window_s);
    }
    if let Some(f) = load.pattern.flush {
        r.commit = Some(rec.commit_result(f.every, f.fsync, window_s));
    }
    if let Some(asked) = load.pattern.think_ns {
        r.think = Some(rec.think_result(asked));
    }
    if let Some(b) = load.pattern.burst {
        r.burst = Some(rec.burst_result(b.ios, b.idle_ns));
    }
}

/// A skewed class's achieved shares on its hottest blocks, beside the theory's.
pub(super) fn skew_result(
    point: &DataPoint,
    (c, setup): (usize, &ClassSetup),
    outcomes: &[WorkerOutcome],
) -> Option<rigel_results::SkewResult> {
    let skew = setup.skew.as_ref()?;
    let load = &point.classes[c];
    let mut ranks = [0u64; 4];
    for o in outcomes {
        for (_, rec) in o.recorders.iter().filter(|(k, _)| *k == c) {
            for (sum, r) in ranks.iter_mut().zip(rec.ranks()) {
                *sum += r;
            }
        }
    }
    let total: u64 = ranks.iter().sum();
    let d = &load.pattern.distribution;
    let hottest = HOTTEST
        .iter()
        .enumerate()
        .map(|(i, &share)| rigel_results::HotShare {
            blocks: share,
            achieved: ranks[..=i].iter().sum::<u64>() as f64 / total.max(1) as f64,
            theory: d.hottest_share(share, skew.len()),
        })
        .collect();
    Some(rigel_results::SkewResult {
        distribution: d.clone(),
        contiguous: load.pattern.contiguous,
        blocks: skew.len(),
        hottest,
    })
}

/// Merges the workers' recordings into the point's result and probe.
pub(super) fn assemble(
    targets: &[ExecTarget],
    point: &DataPoint,
    shared: &Shared<'_>,
    outcomes: &[WorkerOutcome],
    cpu: rigel_results::CpuTime,
    wall: SystemTime,
) -> (PointResult, PointProbe) {
    let measure_from = shared.measure_from.load(Ordering::Acquire);
    let failure = outcomes
        .iter()
        .filter_map(|o| o.failure.as_ref())
        .min_by_key(|f| f.at_ns);
    // A replay's window ends at its last completion when that came after the spec's end.
    let held_open = outcomes.iter().map(|o| o.held_open_ns).max().unwrap_or(0);
    let window_ns = match failure {
        Some(f) => f
            .at_ns
            .saturating_sub(measure_from)
            .min(shared.window_ns + held_open),
        None => shared.window_ns + held_open,
    };
    let window_s = window_ns as f64 / 1e9;
    let n = point.classes.len();
    let mut merged: Vec<Option<ClassRecorder>> = vec![None; n];
    let mut area = vec![0.0f64; n];
    for o in outcomes {
        for ((c, rec), a) in o.recorders.iter().zip(&o.in_flight_area) {
            area[*c] += a;
            match &mut merged[*c] {
                Some(m) => m.merge(rec),
                slot @ None => *slot = Some(rec.clone()),
            }
        }
    }
    let mut classes = Vec::new();
    let mut probes = Vec::new();
    for (c, load) in point.classes.iter().enumerate() {
        let Some(rec) = &merged[c] else { continue };
        let mut result = rec.finish(
            &load.class,
            load.size,
            load.outstanding,
            load.mix.reads(),
            load.mix.writes(),
            window_s,
        );
        if let Some(iops) = load.rate_iops() {
            result.pace = rec.pace(iops, load.arrival, window_s);
        }
        let held = if window_ns > 0 {
            area[c] / window_ns as f64
        } else {
            0.0
        };
        result.depth_held = Some(held);
        classes.push(result);
        probes.push(ClassProbe {
            class: load.class.clone(),
            outstanding: load.outstanding,
            mean_in_flight: held,
        });
    }
    // Time in the window in which a worker did not run (stopped, paused, starved of the CPU):
    // the point is marked, and a class that then completed nothing is not the storage's stall.
    let (in_window, longest) = outcomes.iter().map(|o| o.paused).max().unwrap_or((0, 0));
    let paused = (in_window > 0).then(|| rigel_results::Paused {
        in_window_s: in_window as f64 / 1e9,
        longest_gap_s: longest as f64 / 1e9,
    });
    // A class that completed nothing in its window measured nothing: the storage stalled.
    // Saying "ok" with zero IOPS would hand over a false figure. Unless its workers waited out a
    // timer period inside the window, a starved rigel looks the same: the point is then marked,
    // not failed (10 ms points on a saturated CPU ended the run as "storage stalled").
    let idle = classes
        .iter()
        .find(|c| paused.is_none() && c.outstanding > 0 && c.total.ios == 0);
    let waited = outcomes.iter().all(|o| o.ticked_in_window);
    let (stalled, unclear) = match idle {
        Some(c) if !waited => (
            None,
            Some(format!(
                "class {} completed no I/O in the {} window: too short to tell a stall of the \
                 storage from one of rigel's own (a starved CPU)",
                c.class,
                rigel_expr::format_duration(Duration::from_nanos(window_ns))
            )),
        ),
        idle => (idle, None),
    };
    let status = match (failure, stalled) {
        (None, None) => PointStatus::Ok,
        (None, Some(c)) => PointStatus::Failed {
            error: IoFailure {
                target: targets
                    .iter()
                    .map(|t| t.path)
                    .collect::<Vec<_>>()
                    .join(", "),
                offset: 0,
                errno: libc::ETIMEDOUT,
                message: format!(
                    "class {} completed no I/O in the {window_s:.1} s measured window: the storage stalled",
                    c.class
                ),
            },
        },
        (Some(f), _) => PointStatus::Failed {
            error: IoFailure {
                target: targets
                    .get(f.target)
                    .map_or_else(String::new, |t| t.path.to_string()),
                offset: f.offset,
                errno: f.errno,
                message: match targets.get(f.target) {
                    Some(t) if f.stalled => {
                        format!("{} at target {} offset {}", f.message, t.path, f.offset)
                    }
                    _ => f.message.clone(),
                },
            },
        },
    };
    let started = wall + Duration::from_nanos(measure_from);
    let result = PointResult {
        point: point.clone(),
        status,
        started: chrono::DateTime::<chrono::Utc>::from(started).to_rfc3339(),
        elapsed_s: window_s,
        classes,
        cpu,
        window: Some(wall_window(started, window_ns)),
        partial: paused.map(|p| p.reason(window_s)).or(unclear),
        paused,
        fleet: None,
        steady: None,
        drain: None,
        devices: Vec::new(),
        integrity: None,
        engines: Vec::new(),
        placement: None,
        host: None,
    };
    let probe = PointProbe {
        workers: outcomes.len(),
        classes: probes,
        batches: outcomes.iter().map(|o| o.batches).sum(),
        submit_only: outcomes.iter().map(|o| o.submit_only).sum(),
        inline_turns: outcomes.iter().map(|o| o.inline_turns).sum(),
        requeued: outcomes.iter().map(|o| o.requeued).sum(),
        fixed_buffers: outcomes
            .iter()
            .all(|o| o.facts.fixed_buffers.unwrap_or(false)),
        fixed_files: outcomes
            .iter()
            .all(|o| o.facts.fixed_files.unwrap_or(false)),
        ring_modes: outcomes.iter().filter_map(|o| o.facts.mode).collect(),
    };
    (result, probe)
}

/// The measured window as Unix-epoch nanoseconds (a clock before 1970 reads as 0).
pub(super) fn wall_window(start: SystemTime, window_ns: u64) -> rigel_results::WallWindow {
    let start_ns = start
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    rigel_results::WallWindow {
        start_ns,
        end_ns: start_ns + window_ns,
    }
}
