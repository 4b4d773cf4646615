//! Running one data point: checking it can run, starting the workers together, timing the measured
//! window and its CPU use, and merging what the workers recorded into the point's result.

pub(crate) mod cpu;
mod descriptions;
mod diskstat;
pub(crate) mod engine_choice;
pub(crate) mod worker;

use self::cpu::{delta, process_cpu};
use self::descriptions::per_worker;
use self::diskstat::Devices;
use self::engine_choice::{by_engine, class_engines, records};
use self::worker::WorkerOutcome;
use crate::clock::monotonic_ns;
use crate::options::ExecOptions;
use crate::policy::mix::MixSetup;
use crate::policy::offsets::SlotSpace;
use crate::policy::skew::{HOTTEST, Skew};
use crate::policy::slots::{ClassSetup, WorkerSpec};
use crate::policy::turn::End;
use crate::share::split;
use crate::verify::after::reread;
use crate::verify::map::GenMap;
use crate::verify::report::{integrity, status as integrity_status};
use crate::verify::worker::VerifySetup;
use crate::{
    ExecError, ExecTarget, FALLBACK_BUFFERS, FALLBACK_FILES, NOT_YET, PointControl, RingMode,
    Shared,
};
use rigel_plan::{DataPoint, RunSettings, limits};
use rigel_results::{ClassRecorder, IoFailure, PointResult, PointStatus};
use rigel_target::Volume;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime};

/// How the executor ran a point, beyond the results: what tests and diagnostics look at.
#[derive(Clone, Debug)]
pub struct PointProbe {
    pub workers: usize,
    /// Per active class, in the point's order.
    pub classes: Vec<ClassProbe>,
    /// Completion batches (enter calls that returned) over all workers.
    pub batches: u64,
    /// Entries that submitted without waiting (tried while I/Os complete during submission).
    pub submit_only: u64,
    /// Of the batches, those whose completions were in the ring when a submit-only entry
    /// returned: I/Os that completed during their own submission (page-cache reads).
    pub inline_turns: u64,
    /// I/Os submitted again (short transfers, EINTR/EAGAIN) over all workers.
    pub requeued: u64,
    /// Every worker used registered buffers / registered files.
    pub fixed_buffers: bool,
    pub fixed_files: bool,
    pub ring_modes: Vec<RingMode>,
}

#[derive(Clone, Debug)]
pub struct ClassProbe {
    pub class: String,
    pub outstanding: u32,
    /// Time-averaged count of this class's I/Os submitted and not yet reaped, over the measured
    /// window: what the closed loop actually kept in flight.
    pub mean_in_flight: f64,
}

/// Runs `point` on the volume over `targets` and returns its measurements. An I/O error gives a
/// `Failed` result with what was measured before it; `Err` means the point could not run, or was
/// stopped through `ctl.stop`.
pub fn run_point(
    targets: &[ExecTarget],
    volume: &Volume,
    point: &DataPoint,
    run: &RunSettings,
    ctl: &PointControl,
) -> Result<PointResult, ExecError> {
    run_point_probed(targets, volume, point, run, ctl).map(|(r, _)| r)
}

/// `run_point`, also returning how the executor ran the point.
pub fn run_point_probed(
    targets: &[ExecTarget],
    volume: &Volume,
    point: &DataPoint,
    run: &RunSettings,
    ctl: &PointControl,
) -> Result<(PointResult, PointProbe), ExecError> {
    run_point_with(targets, volume, point, run, ctl, ExecOptions::default())
}

/// `run_point_probed` with explicit executor options.
pub fn run_point_with(
    targets: &[ExecTarget],
    volume: &Volume,
    point: &DataPoint,
    run: &RunSettings,
    ctl: &PointControl,
    options: ExecOptions,
) -> Result<(PointResult, PointProbe), ExecError> {
    limits::point(point, run).map_err(|b| ExecError::InvalidPoint(b.message))?;
    let mut classes = class_setups(targets, volume, point, run.seed)?;
    let engines = class_engines(point, run.direct)
        .map_err(|source| ExecError::Setup { worker: 0, source })?;
    let shares = by_engine(split(point, run.workers), &engines);
    if shares.is_empty() {
        return Err(ExecError::InvalidPoint("no class has any load".into()));
    }
    if let Some(replay) = &ctl.replay {
        replay_setup(&mut classes, point, run, shares.len(), replay)?;
    }
    let gen_map = verify_map(volume, point, run, ctl)?;
    let verify_classes: Vec<bool> = point
        .classes
        .iter()
        .map(|c| {
            run.verify
                .as_ref()
                .is_some_and(|v| v.classes.contains(&c.class))
        })
        .collect();
    let worker_fds = per_worker(targets, shares.len());
    let intervals = run.duration_ms.div_ceil(1000).max(1) as usize;
    // Calibrated before the first point's workers start (the run loop does it earlier still).
    crate::clock::init();
    let shared = Shared {
        ready: AtomicUsize::new(0),
        ended: AtomicUsize::new(0),
        coordinator: std::thread::current(),
        start: OnceLock::new(),
        running: AtomicUsize::new(0),
        workers: shares.len(),
        measure_from: AtomicU64::new(NOT_YET),
        not_before: AtomicU64::new(0),
        abort: AtomicBool::new(false),
        stop: &ctl.stop,
        live: &ctl.live,
        reuse: &ctl.reuse,
        warmup_ns: run.warmup_ms * 1_000_000,
        window_ns: run.duration_ms * 1_000_000,
        io_timeout_ns: run.io_timeout_ms.saturating_mul(1_000_000),
    };
    let shared = &shared;
    let n = shares.len() as u64;
    let devices = Devices::of(targets);
    let (outcomes, cpu, disks, wall) = std::thread::scope(|s| {
        let mut handles = Vec::new();
        let mut spawn_error = None;
        for (w, (engine, share)) in shares.into_iter().enumerate() {
            let spec = WorkerSpec {
                shares: share,
                engine,
                // Round-robin over the CPUs given, in worker order.
                cpu: ctl
                    .cpus
                    .as_deref()
                    .filter(|c| !c.is_empty())
                    .map(|c| c[w % c.len()]),
                classes: &classes,
                fds: &worker_fds[w].fds,
                seed: worker_seed(run.seed, point.id, w),
                intervals,
                // Each worker's part of the I/O budget, the remainder to the first ones.
                options: ExecOptions {
                    ios: options.ios.map(|t| t / n + u64::from((w as u64) < t % n)),
                    ..options
                },
                buffers: run.buffers,
                verify: gen_map.as_deref().map(|map| VerifySetup {
                    map,
                    classes: verify_classes.clone(),
                    point: point.id,
                }),
            };
            let spawned = std::thread::Builder::new()
                .name(format!("rigel-worker-{w}"))
                .spawn_scoped(s, move || worker::run(spec, shared));
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    shared.abort.store(true, Ordering::Relaxed);
                    spawn_error = Some(e);
                    break;
                }
            }
        }
        while shared.ready.load(Ordering::Acquire) < handles.len() {
            std::thread::park_timeout(Duration::from_millis(1));
        }
        let start_ns = monotonic_ns();
        let start = Instant::now();
        let wall = SystemTime::now();
        if let Some(d) = ctl.window_at.and_then(|t| t.duration_since(wall).ok()) {
            shared
                .not_before
                .store(d.as_nanos() as u64, Ordering::Release);
        }
        let _ = shared.start.set(start_ns);
        handles.iter().for_each(|h| h.thread().unpark());
        let all_done = || shared.ended.load(Ordering::Acquire) >= handles.len();
        // The last worker to get its load in flight sets the window's start (the workers never
        // depend on this thread, which may not run while they do, e.g. under SCHED_FIFO).
        let mut measure_from = shared.measure_from.load(Ordering::Acquire);
        while measure_from == NOT_YET && !all_done() {
            std::thread::park_timeout(Duration::from_millis(1));
            measure_from = shared.measure_from.load(Ordering::Acquire);
        }
        sleep_until(start + Duration::from_nanos(measure_from), &all_done);
        let cpu0 = process_cpu();
        let (disks0, from) = (devices.read(), Instant::now());
        // Saturating: when every worker ended in its setup, the window's start was never set.
        let end = start + Duration::from_nanos(measure_from.saturating_add(shared.window_ns));
        sleep_until(end, &all_done);
        let cpu = delta(cpu0, process_cpu());
        let disks = devices.window(&disks0, &devices.read(), from.elapsed());
        let outcomes: Vec<Option<WorkerOutcome>> =
            handles.into_iter().map(|h| h.join().ok()).collect();
        (spawn_error.map_or(Ok(outcomes), Err), cpu, disks, wall)
    });
    let outcomes = outcomes.map_err(ExecError::Spawn)?;
    let mut outcomes: Vec<WorkerOutcome> = outcomes
        .into_iter()
        .enumerate()
        .map(|(w, o)| o.ok_or(ExecError::WorkerPanicked(w)))
        .collect::<Result<_, _>>()?;
    for (w, o) in outcomes.iter().enumerate() {
        if let Some(e) = &o.setup_error {
            // Only io_uring's refusal is a `RingRefused` (with its causes and fixes); another
            // engine's setup error says itself (libaio's O_DIRECT or fs.aio-max-nr, psync's cap).
            if o.engine != "io_uring" {
                return Err(ExecError::InvalidPoint(format!(
                    "worker {w} could not set up its {} engine: {e}",
                    o.engine
                )));
            }
            let source = e.raw_os_error().map_or_else(
                || std::io::Error::new(e.kind(), e.to_string()),
                std::io::Error::from_raw_os_error,
            );
            return Err(ExecError::Setup {
                worker: w,
                source: crate::refused::refused(source),
            });
        }
    }
    if outcomes.iter().any(|o| o.end == End::Stop) {
        return Err(ExecError::Interrupted);
    }
    if outcomes
        .iter()
        .any(|o| o.facts.fixed_buffers == Some(false))
    {
        ctl.live.note(FALLBACK_BUFFERS);
    }
    if outcomes.iter().any(|o| o.facts.fixed_files == Some(false)) {
        ctl.live.note(FALLBACK_FILES);
    }
    let tallies: Vec<_> = outcomes.iter_mut().filter_map(|o| o.tally.take()).collect();
    let (mut result, probe) = assemble(targets, point, shared, &outcomes, cpu, wall);
    result.engines = records(point, &engines, &outcomes);
    result.placement = Some(rigel_results::Placement {
        worker_cpus: outcomes.iter().filter_map(|o| o.cpu).collect(),
        ..Default::default()
    });
    let window_s = result.elapsed_s;
    for r in &mut result.classes {
        if let Some(c) = point.classes.iter().position(|l| l.class == r.class) {
            r.skew = skew_result(point, (c, &classes[c]), &outcomes);
            workload_result(r, (&point.classes[c], c), &outcomes, window_s);
            if let Some(replay) = classes[c].replay.as_deref() {
                replay_result(r, replay, c, &outcomes, window_s);
            }
        }
    }
    result.devices = disks;
    if let (Some(map), Some(v)) = (&gen_map, &run.verify) {
        let after = if v.after && result.status == PointStatus::Ok {
            match reread(targets, map, &ctl.stop) {
                Ok(t) => Some(t),
                Err(e) => {
                    result.status = PointStatus::Failed {
                        error: IoFailure {
                            target: String::new(),
                            offset: 0,
                            errno: e.raw_os_error().unwrap_or(0),
                            message: format!("verify = \"after\": {e}"),
                        },
                    };
                    None
                }
            }
        } else {
            None
        };
        let r = integrity(map.unit(), map.run, tallies, after, targets, point);
        result.status = integrity_status(result.status, &r);
        result.integrity = Some(r);
    }
    Ok((result, probe))
}

/// The run's generation map when the plan verifies; every verified class's I/O size must be a
/// whole number of blocks (the plan checks it too).
fn verify_map(
    volume: &Volume,
    point: &DataPoint,
    run: &RunSettings,
    ctl: &PointControl,
) -> Result<Option<Arc<GenMap>>, ExecError> {
    let Some(v) = &run.verify else {
        return Ok(None);
    };
    if let Some(c) = point
        .active()
        .find(|c| v.classes.contains(&c.class) && c.size % v.unit != 0)
    {
        return Err(ExecError::InvalidPoint(format!(
            "class {} verifies in blocks of {} bytes but does {}-byte I/Os",
            c.class, v.unit, c.size
        )));
    }
    ctl.reuse
        .gen_map(volume, v.unit, run.seed)
        .map(Some)
        .map_err(ExecError::InvalidPoint)
}

/// Each class's slots, checked: every active class must fit the volume (the limits on sizes and
/// loads are checked before, by `limits::point`).
fn class_setups(
    targets: &[ExecTarget],
    volume: &Volume,
    point: &DataPoint,
    seed: u64,
) -> Result<Vec<ClassSetup>, ExecError> {
    if targets.len() != volume.targets() {
        return Err(ExecError::InvalidPoint(format!(
            "{} targets open but the volume has {}",
            targets.len(),
            volume.targets()
        )));
    }
    point
        .classes
        .iter()
        .map(|c| {
            let own: Vec<usize> = c.pattern.targets.iter().map(|&t| t as usize).collect();
            let mix = match &c.pattern.sizes {
                Some(m) if c.outstanding > 0 => Some(
                    MixSetup::new(volume, m, &own, c.pattern.region).ok_or_else(|| {
                        ExecError::InvalidPoint(format!(
                            "class {}: a size of its mix {m} does not fit in its volume or region",
                            c.class
                        ))
                    })?,
                ),
                _ => None,
            };
            let space = if let Some(m) = &mix {
                Some(m.smallest_space().clone())
            } else if c.outstanding > 0 {
                let space =
                    SlotSpace::placed(volume, c.size, &own, c.pattern.region).ok_or_else(|| {
                        let within = match c.pattern.region {
                            Some(r) => format!("the region {r} of its volume"),
                            None => "any target".to_owned(),
                        };
                        ExecError::InvalidPoint(format!(
                            "class {}: {}-byte I/Os do not fit in {within}",
                            c.class, c.size
                        ))
                    })?;
                Some(space)
            } else {
                None
            };
            let skew = space.as_ref().and_then(|s| {
                let random = c.access == rigel_expr::Access::Random;
                let key = crate::policy::skew::class_key(seed, &c.class);
                let d = &c.pattern.distribution;
                random
                    .then(|| Skew::new(d, s.len(), c.pattern.contiguous, key))
                    .flatten()
            });
            Ok(ClassSetup {
                space,
                skew,
                dsync: c.pattern.dsync,
                flush: c.pattern.flush,
                think_ns: c.pattern.think_ns,
                burst: c.pattern.burst,
                data: c.pattern.data,
                mix,
                size: c.size,
                read_percent: c.mix.read_percent.min(100),
                streams: c.load,
                rate: c.rate_iops().map(|r| (r, c.arrival)),
                outstanding: c.outstanding,
                replay: None,
            })
        })
        .collect()
}

/// Gives the point's one active class the replay: one worker sends the trace in its order, with
/// its requests' own sizes (none above the class's) and no verification.
fn replay_setup(
    classes: &mut [ClassSetup],
    point: &DataPoint,
    run: &RunSettings,
    workers: usize,
    replay: &Arc<rigel_plan::replay::Replay>,
) -> Result<(), ExecError> {
    let refuse = |why: String| Err(ExecError::InvalidPoint(format!("a replay {why}")));
    let active: Vec<usize> = (0..classes.len())
        .filter(|&c| classes[c].space.is_some())
        .collect();
    let &[c] = active.as_slice() else {
        return refuse(format!("runs one class, not {}", active.len()));
    };
    if workers != 1 || run.verify.is_some() {
        return refuse("runs on one worker (its order is the trace's), without verify".into());
    }
    let (load, setup) = (&point.classes[c], &mut classes[c]);
    if u64::from(replay.largest) > setup.size || setup.mix.is_some() || setup.flush.is_some() {
        return refuse(format!(
            "class's size ({} bytes) must hold the largest request ({} bytes), with no mix and \
             no durability of its own",
            setup.size, replay.largest
        ));
    }
    if load.rate_iops().is_none() {
        return refuse("class needs a rate (the trace's mean, for its pace)".into());
    }
    setup.replay = Some(Arc::clone(replay));
    Ok(())
}

/// A replayed class's flushes, as commits of the trace's writes per flush.
fn replay_result(
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
fn workload_result(
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
fn skew_result(
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
fn assemble(
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
    let window_ns = match failure {
        Some(f) => f.at_ns.saturating_sub(measure_from).min(shared.window_ns),
        None => shared.window_ns,
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
        probes.push(crate::point::ClassProbe {
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
        devices: Vec::new(),
        integrity: None,
        engines: Vec::new(),
        placement: None,
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
fn wall_window(start: SystemTime, window_ns: u64) -> rigel_results::WallWindow {
    let start_ns = start
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    rigel_results::WallWindow {
        start_ns,
        end_ns: start_ns + window_ns,
    }
}

/// Sleeps until `deadline`, waking early once every worker has finished (a worker unparks this
/// thread when it ends).
fn sleep_until(deadline: Instant, all_done: &dyn Fn() -> bool) {
    loop {
        let now = Instant::now();
        if now >= deadline || all_done() {
            return;
        }
        std::thread::park_timeout(deadline - now);
    }
}

/// A distinct, reproducible seed per run seed, point and worker (splitmix64 finaliser).
fn worker_seed(seed: u64, point: u32, worker: usize) -> u64 {
    let mut z = seed ^ ((point as u64) << 32) ^ (worker as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
