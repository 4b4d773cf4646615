//! Running one data point: checking it can run, starting the workers together, timing the measured
//! window and its CPU use, and merging what the workers recorded into the point's result.

mod assemble;
pub(crate) mod cpu;
mod descriptions;
mod diskstat;
pub(crate) mod engine_choice;
mod probe;
mod setups;
mod sq_thread;
pub(crate) mod worker;

use self::assemble::{assemble, replay_result, skew_result, workload_result};
use self::cpu::{delta, process_cpu};
use self::descriptions::per_worker;
use self::diskstat::Devices;
use self::engine_choice::{by_engine, class_engines, records};
use self::setups::{class_setups, replay_setup, verify_map};
use self::worker::WorkerOutcome;
use crate::engines::clock::monotonic_ns;
use crate::options::ExecOptions;
use crate::policy::setup::WorkerSpec;
use crate::policy::turn::End;
use crate::share::split;
use crate::verify::after::reread;
use crate::verify::report::{integrity, status as integrity_status};
use crate::verify::worker::VerifySetup;
use crate::{
    ExecError, ExecTarget, FALLBACK_BUFFERS, FALLBACK_FILES, NOT_YET, PointControl, Shared,
};
use rigel_plan::{DataPoint, RunSettings, limits};
use rigel_results::{IoFailure, PointResult, PointStatus};
use rigel_target::Volume;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};

pub use self::probe::{ClassProbe, PointProbe};

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
    let gen_map = verify_map(targets, volume, point, run, ctl)?;
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
    // `zones = "sequential"`: the volume's zones, read before the workers take theirs.
    let zones = match (run.zones, worker_fds.first()) {
        (true, Some(w)) => Some(
            crate::policy::zones::ZonePool::new(&w.fds)
                .map_err(|e| ExecError::InvalidPoint(e.to_string()))?,
        ),
        _ => None,
    };
    let intervals = run.duration_ms.div_ceil(1000).max(1) as usize;
    ctl.live
        .seconds
        .begin(point.id, shares.len(), point.classes.len(), intervals);
    // Calibrated before the first point's workers start (the run loop does it earlier still).
    crate::engines::clock::init();
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
    let touched = ctl.reuse.touched(volume);
    let n = shares.len() as u64;
    let devices = Devices::of(targets);
    let (outcomes, cpu, disks, wall, host) = std::thread::scope(|s| {
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
                sqpoll: run.sqpoll,
                polled: run.polled,
                zones: zones.as_ref(),
                touched: &touched,
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
        // The host's side of the window (compare's host rule), read at its edges only.
        let host0 = rigel_target::HostClock::now();
        let sq0 = if run.sqpoll.is_some() {
            sq_thread::all()
        } else {
            Vec::new()
        };
        let (disks0, from) = (devices.read(), Instant::now());
        // Saturating: when every worker ended in its setup, the window's start was never set.
        let end = start + Duration::from_nanos(measure_from.saturating_add(shared.window_ns));
        sleep_until(end, &all_done);
        if ctl.replay.is_some() {
            // A replay's window stays open for its requests in flight (`Window::follow`), up
            // to the I/O timeout: the host's side of the window is read at its real end.
            sleep_until(end + Duration::from_nanos(shared.io_timeout_ns), &all_done);
        }
        let cpu = delta(cpu0, process_cpu());
        let host = host0.map(|h| h.window(&cpu));
        let disks = devices.window(&disks0, &devices.read(), from.elapsed());
        let outcomes: Vec<Option<WorkerOutcome>> =
            handles.into_iter().map(|h| h.join().ok()).collect();
        let ends: Vec<Option<(String, f64)>> = outcomes
            .iter()
            .map(|o| o.as_ref().and_then(|o| o.sq_thread.clone()))
            .collect();
        let cpu = rigel_results::CpuTime {
            sq_thread_s: sq_thread::window_s(&sq0, &ends),
            ..cpu
        };
        (
            spawn_error.map_or(Ok(outcomes), Err),
            cpu,
            disks,
            wall,
            host,
        )
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
    result.host = host;
    if let Some(z) = &zones {
        // Results record the zones beside each engine's options of the point.
        for e in &mut result.engines {
            e.options.insert("zones".into(), z.summary());
        }
    }
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
