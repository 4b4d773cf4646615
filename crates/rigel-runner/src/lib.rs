//! The run loop shared by `rigel run` and `rigel orion`: open the volume, run every point of the plan
//! not yet done through the executor, record each durably, finish the run folder and its reports.
//!
//! It prints nothing: what a person watches comes through [`Observer`], and how the run ended comes
//! back as [`Ran`] (the command line picks the exit code from it).

#![forbid(unsafe_code)]

mod conditioning;
#[cfg(test)]
mod conditioning_tests;
mod finish;
mod job;
mod observer;
mod options;
mod outcome;
mod repeat;
mod schedule;
mod search;
mod verify_dir;

pub use job::{Job, now};
use observer::TICK;
pub use observer::{Message, Observer};
pub use options::Options;
use outcome::is_failed;
pub use outcome::{Ended, Ran, RunError};
pub use repeat::{repeat_dir, repeats};
pub use schedule::{Starts, WINDOW_LEAD};
pub use verify_dir::{VerifyError, verify_dir};

use finish::finish;
use schedule::wait_until;

use rigel_exec::{self as exec, ExecError, ExecTarget, LiveCounters, PointControl, Reuse};
use rigel_record::{self as record, FolderLock, RunFolder, RunHeader};
use rigel_results::PointResult;
use rigel_target::{self as target, Consent, OpenVolume, TargetError};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

pub use rigel_plan::RunPlan;
pub use rigel_results::ResultsDoc;

/// Exit status of a process ended by a second SIGINT/SIGTERM (128 + SIGINT, as shells report it).
pub const SECOND_SIGNAL_EXIT: i32 = 130;

/// Opens the volume, runs every point of `job` not yet done, records each durably and finishes the
/// run folder (results.json and the built-in reports).
pub fn run_job(job: Job, opts: Options, obs: &mut dyn Observer) -> Result<Ran, RunError> {
    // Before a run folder or a test file is made: without io_uring nothing can run.
    exec::probe_ring()?;
    let stop = Arc::new(AtomicBool::new(false));
    register_signals(&stop).map_err(RunError::Signals)?;
    // Before the targets: a second rigel on this folder must not fill or load them either.
    let lock = match job.header {
        Some(_) => FolderLock::take_existing(&job.dir)?,
        None if job.unique => FolderLock::take_unique(&job.dir)?,
        None => FolderLock::take(&job.dir)?,
    };
    let volume = match open(&job.plan, opts.consent, &stop, obs) {
        Ok(v) => v,
        Err(e) => {
            lock.abandon();
            return Err(e.into());
        }
    };
    let cold = target::cold_buffered(&job.plan, &volume);
    for w in volume.warnings().into_iter().chain(cold) {
        obs.message(Message::Warning(w.to_string()));
    }
    let ran = execute(job, lock, &opts, &volume, &stop, obs);
    // Before --clean looks at them: a mark vouches only for the file as it was marked.
    if let Err(e) = target::remark_written(&volume.targets) {
        obs.message(Message::Error(format!("marking the test files again: {e}")));
    }
    if opts.clean {
        let paths: Vec<&Path> = volume.targets.iter().map(|t| t.path.as_path()).collect();
        match target::clean(paths) {
            Ok(removed) => removed
                .into_iter()
                .for_each(|p| obs.message(Message::Removed(p))),
            Err(e) => obs.message(Message::Error(format!("--clean: {e}"))),
        }
    }
    ran
}

fn register_signals(stop: &Arc<AtomicBool>) -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    for sig in [SIGINT, SIGTERM] {
        // A second signal while stopping ends the process at once.
        signal_hook::flag::register_conditional_shutdown(
            sig,
            SECOND_SIGNAL_EXIT,
            Arc::clone(stop),
        )?;
        signal_hook::flag::register(sig, Arc::clone(stop))?;
    }
    Ok(())
}

/// Opens the volume, creating and filling test files (progress through the observer). The opening
/// runs on its own thread: an `open()` can block in the kernel where a handled signal does not
/// interrupt it (a FUSE or network file whose server stalls; SA_RESTART), so this thread waits
/// where a signal reaches it and gives up on the opener once stopped.
fn open(
    plan: &RunPlan,
    consent: Consent,
    stop: &Arc<AtomicBool>,
    obs: &mut dyn Observer,
) -> Result<OpenVolume, TargetError> {
    use std::sync::mpsc;
    enum Event {
        Progress(std::path::PathBuf, u64, u64),
        Opened(Box<Result<OpenVolume, TargetError>>),
    }
    let (tx, rx) = mpsc::channel();
    let (plan, flag) = (plan.clone(), Arc::clone(stop));
    std::thread::spawn(move || {
        let progress = tx.clone();
        let mut on_progress = |p: &target::FillProgress| {
            let _ = progress.send(Event::Progress(p.path.to_path_buf(), p.done, p.total));
            if flag.load(Ordering::Relaxed) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let opened = target::open_volume(&plan, consent, &mut on_progress);
        let _ = tx.send(Event::Opened(Box::new(opened)));
    });
    let mut filling = false;
    let mut stopped_at: Option<std::time::Instant> = None;
    let opened = loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(Event::Progress(path, done, total)) => {
                if !filling {
                    obs.fill_started(&path, total);
                    filling = true;
                }
                obs.fill_progress(done);
            }
            Ok(Event::Opened(opened)) => break *opened,
            Err(mpsc::RecvTimeoutError::Disconnected) => break Err(TargetError::StoppedOpening),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        // A fill stops at its next piece; an open that has not returned half a second after the
        // signal is left behind (the process exits around it).
        if stop.load(Ordering::Relaxed) {
            let since = *stopped_at.get_or_insert_with(std::time::Instant::now);
            if since.elapsed() > Duration::from_millis(500) {
                break Err(TargetError::StoppedOpening);
            }
        }
    };
    if filling {
        obs.fill_finished();
    }
    opened
}

fn execute(
    job: Job,
    lock: FolderLock,
    opts: &Options,
    volume: &OpenVolume,
    stop: &Arc<AtomicBool>,
    obs: &mut dyn Observer,
) -> Result<Ran, RunError> {
    let (skip_failed, starts) = (opts.skip_failed, opts.starts);
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
    });
    let mut folder = if resumed {
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
    if let Some(ids) = &schedule {
        // Read again under the lock above: drop what the schedule measures again.
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
    let todo = job::to_do(&plan, &done, skip_failed, schedule.as_deref());
    let targets: Vec<ExecTarget> = volume
        .targets
        .iter()
        .map(|t| ExecTarget {
            fd: std::os::fd::AsFd::as_fd(&t.fd),
            path: t.path.to_str().unwrap_or("?"),
        })
        .collect();
    let planned = match &plan.search {
        Some(s) => (s.worst_trials as usize).saturating_sub(done.len()),
        None => todo.len(),
    };
    // The fill runs before the first point (again on a resume that has no point yet); how it
    // ended when it stopped the run.
    let fill_ended = match plan.precondition.as_ref().filter(|_| done.is_empty()) {
        Some(pre) => {
            match conditioning::precondition(pre, &plan.run, &targets, &volume.volume, stop, obs) {
                Ok(()) => None,
                Err(conditioning::PreconditionError::Exec(ExecError::Interrupted)) => {
                    Some(Ended::Interrupted)
                }
                Err(e) => {
                    obs.message(Message::Error(e.to_string()));
                    Some(Ended::Failed)
                }
            }
        }
        None => None,
    };
    obs.run_started(&plan, planned);
    let mut notes_said = false;
    let mut ended = fill_ended.unwrap_or(Ended::Complete);
    // The executor's buffers, kept from one point to the next.
    let reuse = Arc::new(Reuse::default());
    if let Some(v) = plan.run.verify.as_ref().filter(|v| v.journal) {
        reuse.keep_journal(exec::verify::journal::JournalFile {
            file: folder.new_journal()?,
            durable: v.durable,
        });
    }
    // The executor's clock is calibrated now, before any point's agreed start: in a fleet every
    // rank then starts its first window on time (calibration takes up to 200 ms).
    exec::calibrate_clock();
    for i in (0..).take_while(|_| fill_ended.is_none()) {
        // A search's next trial depends on the trials before it; other plans run their list.
        let trial;
        let point = match &plan.search {
            Some(s) => match search::next_point(s, &done) {
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
            stop: Arc::clone(stop),
            live: Arc::new(LiveCounters::new(point.classes.len())),
            reuse: Arc::clone(&reuse),
            window_at: starts.map(|s| s.window_at(i, Duration::from_millis(plan.run.warmup_ms))),
            replay: opts.replay.clone(),
            cpus: None,
        };
        if let Some(starts) = starts
            && !wait_until(starts.at(i), stop)
        {
            ended = Ended::Interrupted;
            break;
        }
        obs.point_started(i, point);
        let result = match &plan.steady {
            Some(st) => conditioning::steady(
                st,
                stop,
                &mut |p| {
                    ctl.live.reset();
                    run_watched(&targets, &volume.volume, p, &plan.run, &ctl, obs)
                },
                point,
            ),
            None => run_watched(&targets, &volume.volume, point, &plan.run, &ctl, obs),
        };
        if !notes_said {
            ctl.live
                .notes()
                .iter()
                .for_each(|n| obs.message(Message::Note(n.to_string())));
            notes_said = true;
        }
        match result {
            Ok(r) => {
                if let Err(e) = folder.append(&r) {
                    obs.message(Message::Error(e.to_string()));
                    ended = Ended::Failed;
                    break;
                }
                obs.point_finished(&r);
                let failed = is_failed(&r);
                // A retried point replaces its failed record (results.jsonl keeps both lines).
                done.retain(|p| p.point.id != r.point.id);
                done.push(r);
                if failed {
                    ended = Ended::Failed;
                    break;
                }
            }
            Err(ExecError::Interrupted) => {
                ended = Ended::Interrupted;
                break;
            }
            Err(e) => {
                obs.message(Message::Error(format!("point {}: {e}", point.id)));
                ended = Ended::Failed;
                break;
            }
        }
    }
    obs.run_finished();
    finish(&folder, header, spec_toml, plan, done, ended, opts, obs)
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
                Ok(r) => break r,
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
