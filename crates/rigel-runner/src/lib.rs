//! The run loop shared by `rigel run` and `rigel orion`: open the volume, run every point of the plan
//! not yet done through the executor, record each durably, finish the run folder and its reports.
//!
//! It prints nothing: what a person watches comes through [`Observer`], and how the run ended comes
//! back as [`Ran`] (the command line picks the exit code from it).

#![forbid(unsafe_code)]

mod conditioning;
#[cfg(test)]
mod conditioning_tests;
mod drain;
mod execute;
mod fill;
mod finish;
mod job;
pub mod metrics;
mod observer;
mod options;
mod outcome;
mod repeat;
mod schedule;
mod search;
mod verify_dir;

pub use job::{Job, now};
pub use observer::{Message, Observer};
pub use options::Options;
pub use outcome::{Ended, Ran, RunError};
pub use repeat::{repeat_dir, repeats};
pub use schedule::{Barrier, Starts, WINDOW_LEAD};
pub use verify_dir::{VerifyError, verify_dir};

use execute::execute;

use rigel_exec as exec;
use rigel_record::FolderLock;
use rigel_target::{self as target, Consent, OpenVolume, TargetError};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub use rigel_plan::RunPlan;
pub use rigel_results::ResultsDoc;

/// Exit status of a process ended by a second SIGINT/SIGTERM (128 + SIGINT, as shells report it).
pub const SECOND_SIGNAL_EXIT: i32 = 130;

/// Opens the volume, runs every point of `job` not yet done, records each durably and finishes the
/// run folder (results.json and the built-in reports).
pub fn run_job(job: Job, opts: Options, obs: &mut dyn Observer) -> Result<Ran, RunError> {
    // Before a run folder or a test file is made: io_uring named and refused cannot run; `auto`
    // refused falls back, said once for the run.
    for requested in job.plan.engines() {
        if let (_, Some(why)) = exec::resolve_engine(requested, job.plan.run.direct)? {
            obs.message(Message::Warning(why));
        }
    }
    let sha256 = job
        .provenance
        .as_ref()
        .or_else(|| job.header.as_ref().and_then(|h| h.provenance.as_ref()))
        .map_or_else(
            || target::sha256_hex(job.spec_toml.as_bytes()),
            |p| p.spec.sha256.clone(),
        );
    obs.job(&job.plan.name, &sha256);
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
    let devices: Vec<(u32, u32)> = volume.targets.iter().map(|t| t.probe.dev).collect();
    let sysfs = target::Sysfs::default();
    let placed = match target::place(
        job.plan.cpus.as_ref(),
        &devices,
        &target::Host::this(&sysfs),
    ) {
        Ok(p) => p,
        Err(e) => {
            lock.abandon();
            return Err(e.into());
        }
    };
    let cold = target::cold_buffered(&job.plan, &volume);
    for w in volume.warnings().into_iter().chain(cold) {
        obs.message(Message::Warning(w.to_string()));
    }
    let ran = execute(job, lock, &opts, (&volume, &placed), &stop, obs);
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
