//! `rigel run`: open the volume, run every point of the plan through the executor, record each
//! finished point durably, and end with ORION's headline and the run folder's path.

use super::args::RunArgs;
use super::progress::Progress;
use super::{exit, specs, summary};
use crate::exec::{self, ExecError, ExecTarget, LiveCounters, PointControl};
use crate::plan::{RunPlan, SCHEMA_VERSION};
use crate::record::{self, RunFolder, RunHeader};
use crate::report::{self, ReportOptions};
use crate::stats::{PointResult, PointStatus, ResultsDoc};
use crate::target::{self, Consent, OpenVolume, TargetError};
use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Exit code of a run stopped by SIGINT or SIGTERM (128 + SIGINT, as shells report it).
pub(super) const INTERRUPTED: i32 = 130;

/// What a run works from: a fresh spec, or a folder being resumed.
pub(super) struct Job {
    dir: PathBuf,
    spec_toml: String,
    plan: RunPlan,
    header: Option<RunHeader>,
    done: Vec<PointResult>,
    /// When a fresh run starts (RFC 3339): its header's `started`, from which ORION's prefix comes.
    started: String,
}

impl Job {
    /// A fresh run of `plan` into the run folder `dir`.
    pub(super) fn fresh(dir: PathBuf, spec_toml: String, plan: RunPlan, started: String) -> Job {
        Job {
            dir,
            spec_toml,
            plan,
            header: None,
            done: Vec::new(),
            started,
        }
    }
}

/// How a run ended: its exit code and, when the run folder was finished, the results document.
pub(super) struct Ran {
    pub code: i32,
    pub doc: Option<ResultsDoc>,
    pub dir: PathBuf,
}

pub fn run(a: &RunArgs) -> i32 {
    let job = match prepare(a) {
        Ok(job) => job,
        Err(code) => return code,
    };
    let consent = Consent {
        allow_destructive: a.allow_destructive,
        force: a.force,
    };
    let ran = run_job(job, consent, a.clean, &|e| e.to_string());
    let Some(doc) = &ran.doc else {
        return ran.code;
    };
    summary::print(doc, &ran.dir, ran.code == INTERRUPTED);
    // Judged only once the results are safely on disk; a runtime failure keeps its own code.
    let verdicts = crate::expect::evaluate(doc);
    if !verdicts.is_empty() {
        let text = format!("\n{}", crate::expect::table(&verdicts));
        let _ = std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes());
    }
    if ran.code == exit::OK && !crate::expect::all_passed(&verdicts) {
        return exit::REQUIREMENTS;
    }
    ran.code
}

/// The loop `rigel run` and `rigel orion` share: open the volume (`explain` words a target error),
/// run every point not yet done, record each durably, finish the run folder.
pub(super) fn run_job(
    job: Job,
    consent: Consent,
    clean: bool,
    explain: &dyn Fn(&TargetError) -> String,
) -> Ran {
    let failed = |code| Ran {
        code,
        doc: None,
        dir: job.dir.clone(),
    };
    let stop = Arc::new(AtomicBool::new(false));
    if let Err(e) = register_signals(&stop) {
        eprintln!("rigel: cannot install the SIGINT/SIGTERM handlers: {e}");
        return failed(exit::RUNTIME);
    }
    let volume = match open(&job.plan, consent, &stop) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("rigel: {}", explain(&e));
            return failed(if matches!(e, TargetError::Interrupted { .. }) {
                INTERRUPTED
            } else {
                exit::RUNTIME
            });
        }
    };
    for w in volume.warnings() {
        eprintln!("warning: {w}");
    }
    let ran = execute(job, &volume, &stop);
    if clean {
        let paths: Vec<&Path> = volume.targets.iter().map(|t| t.path.as_path()).collect();
        match target::clean(paths) {
            Ok(removed) => removed
                .iter()
                .for_each(|p| eprintln!("removed test file {}", p.display())),
            Err(e) => eprintln!("rigel: --clean: {e}"),
        }
    }
    ran
}

fn prepare(a: &RunArgs) -> Result<Job, i32> {
    if let Some(dir) = &a.resume {
        let fail = |e: record::RecordError| {
            eprintln!("rigel: cannot resume: {e}");
            exit::RUNTIME
        };
        let (header, spec_toml, plan) = record::load_parts(dir).map_err(fail)?;
        let done = record::finished_points(dir).map_err(fail)?;
        return Ok(Job {
            dir: dir.clone(),
            spec_toml,
            plan,
            header: Some(header),
            done,
            started: String::new(),
        });
    }
    let (loaded, plan) = specs::compile(specs::input(a.spec_file.as_deref()), &a.spec.set)
        .map_err(|d| {
            specs::report(&d);
            exit::BAD_SPEC
        })?;
    let dir = a.out.clone().unwrap_or_else(|| {
        let stamp = chrono::Local::now().format("%Y%m%d-%H%M%S");
        PathBuf::from("runs").join(format!("{}-{stamp}", plan.name))
    });
    Ok(Job::fresh(dir, loaded.resolved_toml, plan, now()))
}

fn register_signals(stop: &Arc<AtomicBool>) -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    for sig in [SIGINT, SIGTERM] {
        // A second signal while stopping ends the process at once.
        signal_hook::flag::register_conditional_shutdown(sig, INTERRUPTED, Arc::clone(stop))?;
        signal_hook::flag::register(sig, Arc::clone(stop))?;
    }
    Ok(())
}

/// Opens the volume, creating and filling test files with a progress display.
fn open(plan: &RunPlan, consent: Consent, stop: &AtomicBool) -> Result<OpenVolume, TargetError> {
    let mut fill: Option<Progress> = None;
    let mut on_progress = |p: &target::FillProgress| {
        let bar = fill.get_or_insert_with(|| Progress::fill(p.path, p.total));
        bar.fill_to(p.done);
        if stop.load(Ordering::Relaxed) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let opened = target::open_volume(plan, consent, &mut on_progress);
    if let Some(bar) = fill {
        bar.finish();
    }
    opened
}

fn execute(job: Job, volume: &OpenVolume, stop: &Arc<AtomicBool>) -> Ran {
    let Job {
        dir,
        spec_toml,
        plan,
        header,
        mut done,
        started,
    } = job;
    let resumed = header.is_some();
    let header = header.unwrap_or_else(|| RunHeader {
        schema_version: SCHEMA_VERSION,
        rigel_version: env!("CARGO_PKG_VERSION").to_owned(),
        command: std::env::args().collect(),
        started,
        host: target::host_info(),
        targets: volume.infos(),
    });
    let folder = if resumed {
        RunFolder::reopen(&dir)
    } else {
        RunFolder::create(&dir, &spec_toml, &plan, &header)
    };
    let mut folder = match folder {
        Ok(f) => f,
        Err(e) => {
            eprintln!("rigel: {e}");
            return Ran {
                code: exit::RUNTIME,
                doc: None,
                dir,
            };
        }
    };
    let finished: BTreeSet<u32> = done.iter().map(|p| p.point.id).collect();
    let todo: Vec<_> = plan
        .points
        .iter()
        .filter(|p| !finished.contains(&p.id))
        .collect();
    let targets: Vec<ExecTarget> = volume
        .targets
        .iter()
        .map(|t| ExecTarget {
            fd: std::os::fd::AsFd::as_fd(&t.fd),
            path: t.path.to_str().unwrap_or("?"),
        })
        .collect();
    let mut progress = Progress::run(&plan, todo.len());
    let mut notes_said = false;
    let mut outcome = exit::OK;
    for (i, point) in todo.iter().enumerate() {
        let ctl = PointControl {
            stop: Arc::clone(stop),
            live: Arc::new(LiveCounters::new(point.classes.len())),
        };
        progress.start_point(i, point);
        let result = std::thread::scope(|s| {
            let worker =
                s.spawn(|| exec::run_point(&targets, &volume.volume, point, &plan.run, &ctl));
            while !worker.is_finished() {
                progress.tick(&ctl.live);
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
            worker.join().unwrap_or(Err(ExecError::WorkerPanicked(0)))
        });
        if !notes_said {
            ctl.live
                .notes()
                .iter()
                .for_each(|n| progress.say(&format!("note: {n}")));
            notes_said = true;
        }
        match result {
            Ok(r) => {
                if let Err(e) = folder.append(&r) {
                    progress.say(&format!("rigel: {e}"));
                    outcome = exit::RUNTIME;
                    break;
                }
                progress.finish_point(&r);
                let failed = matches!(r.status, PointStatus::Failed { .. });
                done.push(r);
                if failed {
                    outcome = exit::RUNTIME;
                    break;
                }
            }
            Err(ExecError::Interrupted) => {
                outcome = INTERRUPTED;
                break;
            }
            Err(e) => {
                progress.say(&format!("rigel: point {}: {e}", point.id));
                outcome = exit::RUNTIME;
                break;
            }
        }
    }
    progress.clear();
    finish(&folder, header, spec_toml, plan, done, outcome)
}

fn finish(
    folder: &RunFolder,
    header: RunHeader,
    spec_toml: String,
    plan: RunPlan,
    done: Vec<PointResult>,
    outcome: i32,
) -> Ran {
    let complete = done.len() == plan.points.len();
    let finished = if complete { now() } else { String::new() };
    let mut points = done;
    points.sort_by_key(|p| p.point.id);
    let doc = record::assemble(header, spec_toml, plan, points, finished);
    let dir = folder.dir().to_path_buf();
    if let Err(e) = folder.finish(&doc) {
        eprintln!("rigel: {e}");
        return Ran {
            code: exit::RUNTIME,
            doc: None,
            dir,
        };
    }
    match report::render(&doc, &ReportOptions::new(folder.dir())) {
        Ok(files) => {
            let names: Vec<String> = files
                .iter()
                .filter_map(|f| f.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .collect();
            eprintln!("reports: {}", names.join(", "));
        }
        Err(e) => eprintln!("rigel: the results are safe, but a report failed: {e}"),
    }
    let code = if outcome == exit::OK && !complete {
        exit::RUNTIME
    } else {
        outcome
    };
    Ran {
        code,
        doc: Some(doc),
        dir,
    }
}

/// Now, as run headers record it (RFC 3339, local offset, whole seconds).
pub(super) fn now() -> String {
    chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
}
