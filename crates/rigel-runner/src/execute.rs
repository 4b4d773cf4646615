//! One run, as the steps a reader follows: the folder opened (created with the run's header, or
//! reopened to resume), the points to do chosen, the precondition fill (in a fleet, the ranks'
//! meeting after it: [`super::fill`]), the executor made ready (its buffers, the verify journal,
//! its clock), the points run and recorded one by one (a list, or a search's trials; each through
//! steady state when asked), then [`finish`].

use super::fill::{after_fill, precondition};
use super::finish::{Finish, finish};
use super::job::{self, Job};
use super::observer::{Message, Observer, TICK};
use super::options::Options;
use super::outcome::{Ended, Ran, RunError, is_failed};
use super::schedule::{Starts, wait_until};
use super::{conditioning, drain, search};
use rigel_exec::{self as exec, ExecError, ExecTarget, LiveCounters, PointControl, Reuse};
use rigel_plan::{DataPoint, RunPlan};
use rigel_record::{self as record, FolderLock, RunFolder, RunHeader};
use rigel_results::PointResult;
use rigel_target::{self as target, OpenVolume};
use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

/// What the points run on: the volume opened, the executor's targets over it, the buffers kept
/// from one point to the next, the stop flag and the run's options.
struct Rig<'a> {
    opts: &'a Options,
    /// When the points start: a fleet's schedule (moved past every rank's fill), none at once.
    starts: Option<Starts>,
    volume: &'a OpenVolume,
    /// Where the workers go (`PointControl::cpus`) and the host facts each point records.
    placed: &'a target::Placed,
    targets: Vec<ExecTarget<'a>>,
    reuse: Arc<Reuse>,
    stop: &'a Arc<AtomicBool>,
}

/// The run folder opened, and what the run holds as it starts.
struct Opened {
    folder: RunFolder,
    header: RunHeader,
    spec_toml: String,
    plan: RunPlan,
    /// Points already recorded (a resumed run's), in the order they finished.
    done: Vec<PointResult>,
    /// A fleet's schedule (see [`Job`]).
    schedule: Option<Vec<u32>>,
}

pub(super) fn execute(
    job: Job,
    lock: FolderLock,
    opts: &Options,
    (volume, placed): (&OpenVolume, &target::Placed),
    stop: &Arc<AtomicBool>,
    obs: &mut dyn Observer,
) -> Result<Ran, RunError> {
    let Opened {
        mut folder,
        header,
        spec_toml,
        plan,
        mut done,
        schedule,
    } = open_folder(job, lock, volume, obs)?;
    let todo = points_to_do(&plan, &mut done, opts.skip_failed, schedule.as_deref(), obs);
    let targets = exec_targets(volume);
    // Made before the fill: its passes mark the run's first-touch record like any point.
    let reuse = executor_buffers(&plan, &header, &mut folder)?;
    let fill = precondition(&plan, &done, &targets, volume, &reuse, stop, obs);
    // In a fleet no rank measures while another still fills: the ranks meet here first.
    let starts = after_fill(fill, &plan, opts, stop, obs);
    obs.run_started(&plan, planned(&plan, &done, &todo));
    let rig = Rig {
        opts,
        starts: starts.as_ref().ok().copied().flatten(),
        volume,
        placed,
        targets,
        reuse,
        stop,
    };
    // The executor's clock is calibrated now, before any point's agreed start: in a fleet every
    // rank then starts its first window on time (calibration takes up to 200 ms).
    exec::calibrate_clock();
    let ended = match starts {
        Err(ended) => ended,
        Ok(_) => run_points(&rig, &plan, &todo, &mut folder, &mut done, obs),
    };
    if let Err(e) = folder.drop_unused_journal() {
        obs.message(Message::Warning(format!("the unused journal: {e}")));
    }
    obs.run_finished();
    finish(
        Finish {
            folder: &folder,
            header,
            spec_toml,
            plan,
            done,
            ended,
        },
        opts,
        obs,
    )
}

/// Creates the run folder with the run's header, or reopens a resumed one (cutting a torn last
/// line, said as a warning) and takes its points as read again under the lock.
fn open_folder(
    job: Job,
    lock: FolderLock,
    volume: &OpenVolume,
    obs: &mut dyn Observer,
) -> Result<Opened, RunError> {
    let Job {
        dir: _,
        spec_toml,
        plan,
        header,
        mut done,
        started,
        schedule,
        unique: _,
        provenance,
    } = job;
    let resumed = header.is_some();
    let header = header.unwrap_or_else(|| RunHeader {
        schema_version: rigel_plan::SCHEMA_VERSION,
        rigel_version: env!("CARGO_PKG_VERSION").to_owned(),
        command: std::env::args().collect(),
        started,
        host: target::host_info(),
        targets: volume.infos(),
        provenance,
        write_data: rigel_results::WriteData::of_plan(&plan),
    });
    let folder = if resumed {
        let reopened = RunFolder::reopen(lock)?;
        if let Some(t) = reopened.torn {
            obs.message(Message::Warning(format!(
                "{}: cut a torn last line (line {}, {} bytes at offset {}) left by an \
                 interrupted write; its point runs again",
                reopened.folder.dir().join(record::POINTS_FILE).display(),
                t.line,
                t.bytes,
                t.offset
            )));
        }
        // Read again under the lock: the folder may have changed since the job was prepared.
        done = reopened.points;
        reopened.folder
    } else {
        RunFolder::create_locked(lock, &spec_toml, &plan, &header)?
    };
    Ok(Opened {
        folder,
        header,
        spec_toml,
        plan,
        done,
        schedule,
    })
}

/// The points this run measures: a schedule's (whose points are measured again, so dropped from
/// `done`), else every point not yet done (failed ones again unless --skip-failed, said once).
fn points_to_do<'p>(
    plan: &'p RunPlan,
    done: &mut Vec<PointResult>,
    skip_failed: bool,
    schedule: Option<&[u32]>,
    obs: &mut dyn Observer,
) -> Vec<&'p DataPoint> {
    if let Some(ids) = schedule {
        // Read again under the lock: drop what the schedule measures again.
        done.retain(|p| !ids.contains(&p.point.id));
    }
    let failed_before = done.iter().filter(|p| is_failed(p)).count();
    if failed_before > 0 && schedule.is_none() {
        obs.message(Message::Note(if skip_failed {
            format!("{failed_before} point(s) recorded as failed are kept (--skip-failed)")
        } else {
            format!("{failed_before} point(s) recorded as failed run again")
        }));
    }
    job::to_do(plan, done, skip_failed, schedule)
}

fn exec_targets(volume: &OpenVolume) -> Vec<ExecTarget<'_>> {
    volume
        .targets
        .iter()
        .map(|t| ExecTarget {
            fd: std::os::fd::AsFd::as_fd(&t.fd),
            path: t.path.to_str().unwrap_or("?"),
        })
        .collect()
}

/// How many points the progress expects: a search's worst case of trials, else the list's length.
fn planned(plan: &RunPlan, done: &[PointResult], todo: &[&DataPoint]) -> usize {
    match &plan.search {
        Some(s) => (s.worst_trials as usize).saturating_sub(done.len()),
        None => todo.len(),
    }
}

/// The executor's buffers, kept from one point to the next, with the verify journal when the plan
/// keeps one (a file of the run folder).
fn executor_buffers(
    plan: &RunPlan,
    header: &RunHeader,
    folder: &mut RunFolder,
) -> Result<Arc<Reuse>, RunError> {
    let reuse = Arc::new(Reuse::default());
    if let Some(v) = plan.run.verify.as_ref().filter(|v| v.journal) {
        reuse.keep_journal(exec::verify::journal::JournalFile {
            file: folder.new_journal()?,
            path: folder.dir().join(rigel_record::JOURNAL_FILE),
            binding: super::verify_dir::journal_binding(plan, header),
            durable: v.durable,
        });
    }
    Ok(reuse)
}

/// Runs the points one by one, each recorded durably as it finishes; how the run ended (complete,
/// or the first failure or interruption, which stops it).
fn run_points(
    rig: &Rig,
    plan: &RunPlan,
    todo: &[&DataPoint],
    folder: &mut RunFolder,
    done: &mut Vec<PointResult>,
    obs: &mut dyn Observer,
) -> Ended {
    let mut notes_said = false;
    for i in 0.. {
        // A search's next trial depends on the trials before it; other plans run their list.
        let trial;
        let point = match &plan.search {
            Some(s) => match search::next_point(s, done) {
                Some(p) => {
                    trial = p;
                    &trial
                }
                None => break,
            },
            None => match todo.get(i) {
                Some(p) => *p,
                None => break,
            },
        };
        let ctl = PointControl {
            stop: Arc::clone(rig.stop),
            live: Arc::new(LiveCounters::new(point.classes.len())),
            reuse: Arc::clone(&rig.reuse),
            cpus: rig.placed.cpus.clone(),
            window_at: rig
                .starts
                .map(|s| s.window_at(i, Duration::from_millis(plan.run.warmup_ms))),
            replay: rig.opts.replay.clone(),
        };
        // The drain runs before the run's first point (again on a resume that has none yet); in
        // a fleet from T0, held until the first point's agreed start (`Starts::drain`).
        let drain = plan.drain.as_ref().filter(|_| i == 0 && done.is_empty());
        if let Some(starts) = rig.starts {
            let from = if drain.is_some() {
                starts.t0
            } else {
                starts.at(i)
            };
            if !wait_until(from, rig.stop) {
                return Ended::Interrupted;
            }
        }
        let drained = match drain {
            Some(d) => {
                let on = (rig.targets.as_slice(), &rig.volume.volume);
                let held = rig.starts.is_some();
                match drain::drain(d, (point, &plan.points), &plan.run, on, (&ctl, held), obs) {
                    Ok(record) => Some(record),
                    Err(ExecError::Interrupted) => return Ended::Interrupted,
                    Err(e) => {
                        obs.message(Message::Error(format!("drain: {e}")));
                        return Ended::Failed;
                    }
                }
            }
            None => None,
        };
        if let Some(starts) = rig.starts
            && drained.is_some()
            && !wait_until(starts.at(i), rig.stop)
        {
            return Ended::Interrupted;
        }
        obs.point_started(i, point);
        let result = measure(rig, plan, point, &ctl, obs).map(|mut r| {
            r.placement = Some(rig.placed.record(r.placement.take()));
            r.drain = drained;
            r
        });
        if !notes_said {
            ctl.live
                .notes()
                .iter()
                .for_each(|n| obs.message(Message::Note(n.to_string())));
            notes_said = true;
        }
        if let ControlFlow::Break(ended) = record(result, point, folder, done, obs) {
            return ended;
        }
    }
    Ended::Complete
}

/// One point through the executor: once, or in rounds until steady when the plan asks it.
fn measure(
    rig: &Rig,
    plan: &RunPlan,
    point: &DataPoint,
    ctl: &PointControl,
    obs: &mut dyn Observer,
) -> Result<PointResult, ExecError> {
    let volume = &rig.volume.volume;
    match &plan.steady {
        Some(st) => conditioning::steady(
            st,
            rig.stop,
            &mut |p| {
                ctl.live.reset();
                run_watched(&rig.targets, volume, p, &plan.run, ctl, obs)
            },
            point,
        ),
        None => run_watched(&rig.targets, volume, point, &plan.run, ctl, obs),
    }
}

/// Appends a finished point to the folder (durably) and to `done`; breaks with how the run ends
/// on a failed point, an interruption, or a point that could not run or be recorded.
fn record(
    result: Result<PointResult, ExecError>,
    point: &DataPoint,
    folder: &mut RunFolder,
    done: &mut Vec<PointResult>,
    obs: &mut dyn Observer,
) -> ControlFlow<Ended> {
    match result {
        Ok(r) => {
            if let Err(e) = folder.append(&r) {
                obs.message(Message::Error(e.to_string()));
                return ControlFlow::Break(Ended::Failed);
            }
            obs.point_finished(&r);
            let failed = is_failed(&r);
            // A retried point replaces its failed record (results.jsonl keeps both lines).
            done.retain(|p| p.point.id != r.point.id);
            done.push(r);
            if failed {
                return ControlFlow::Break(Ended::Failed);
            }
            ControlFlow::Continue(())
        }
        Err(ExecError::Interrupted) => ControlFlow::Break(Ended::Interrupted),
        Err(e) => {
            obs.message(Message::Error(format!("point {}: {e}", point.id)));
            ControlFlow::Break(Ended::Failed)
        }
    }
}

/// Runs `point` on its own thread, the observer ticking meanwhile.
fn run_watched(
    targets: &[ExecTarget],
    volume: &target::Volume,
    point: &rigel_plan::DataPoint,
    settings: &rigel_plan::RunSettings,
    ctl: &PointControl,
    obs: &mut dyn Observer,
) -> Result<PointResult, ExecError> {
    std::thread::scope(|s| {
        // The point's result comes back through a channel, so the loop wakes the moment it is
        // done (polling `is_finished` with a sleep cost up to 200 ms per point).
        let (tx, rx) = std::sync::mpsc::channel();
        let worker = s.spawn(move || {
            let _ = tx.send(exec::run_point(targets, volume, point, settings, ctl));
        });
        loop {
            match rx.recv_timeout(TICK) {
                Ok(r) => {
                    // A last look: the workers handed over the point's last seconds as they ended.
                    obs.tick(&ctl.live);
                    break r;
                }
                Err(RecvTimeoutError::Timeout) => obs.tick(&ctl.live),
                Err(RecvTimeoutError::Disconnected) => {
                    // The worker died without sending: it panicked.
                    let _ = worker.join();
                    break Err(ExecError::WorkerPanicked(0));
                }
            }
        }
    })
}
