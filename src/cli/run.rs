//! `rigel run`: compile the spec (or reopen a folder to resume), hand the job to the library's run
//! loop with a progress display, then print ORION's headline, the verdicts and pick the exit code.

use super::args::RunArgs;
use super::progress::Watcher;
use super::{exit, specs, summary};
use rigel_runner::metrics::{Metrics, MetricsOptions};
use rigel_runner::{self as runner, Ended, Job, Ran, RunError};
use rigel_target::{Consent, TargetError};
use std::path::PathBuf;

/// Exit code of a run stopped by SIGINT or SIGTERM (128 + SIGINT, as shells report it).
pub(super) const INTERRUPTED: i32 = runner::SECOND_SIGNAL_EXIT;

/// `rigel run` of one host (a fleet's rank is dispatched to `fleet` before this).
pub fn run(a: &RunArgs) -> i32 {
    if let Some(n) = a.repeat.filter(|_| a.resume.is_none()) {
        return repeat(a, n as usize);
    }
    let job = match prepare(a) {
        Ok(job) => job,
        Err(code) => return code,
    };
    let (code, ran) = run_job(job, options(a), &|e| e.to_string(), &metrics(a));
    let Some(ran) = ran else { return code };
    let Some(doc) = &ran.doc else { return code };
    judge(
        doc,
        &ran.dir,
        ran.ended == Ended::Interrupted,
        code,
        a.junit.as_deref(),
    )
}

/// Prints the run's summary and its requirements' verdicts; the exit code, `code` unless the
/// requirements failed.
pub(super) fn judge(
    doc: &runner::ResultsDoc,
    dir: &std::path::Path,
    interrupted: bool,
    code: i32,
    junit: Option<&std::path::Path>,
) -> i32 {
    summary::print(doc, dir, interrupted);
    super::integrity::print(doc);
    // Judged only once the results are safely on disk; a runtime failure keeps its own code.
    let verdicts = rigel_judge::expect::evaluate(doc);
    if !verdicts.is_empty() {
        let text = format!("\n{}", rigel_judge::expect::table(&verdicts));
        let _ = std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes());
    }
    if let Some(path) = junit {
        if let Err(e) = rigel_report::write_junit(doc, path) {
            eprintln!("rigel: {e}");
            return if code == exit::OK {
                exit::RUNTIME
            } else {
                code
            };
        }
    }
    // A corruption is the run's verdict before any other failure it caused (the point failed).
    if code != INTERRUPTED && super::integrity::failed(doc) {
        return exit::INTEGRITY;
    }
    if code == exit::OK && !rigel_judge::expect::all_passed(&verdicts) {
        return exit::REQUIREMENTS;
    }
    let unanswered = doc
        .search()
        .as_ref()
        .is_some_and(|s| s.finished && s.answer.is_none());
    if code == exit::OK && unanswered {
        return exit::NO_ANSWER;
    }
    code
}

/// What `a` allows the run to do (no schedule: a fleet adds its own).
pub(super) fn options(a: &RunArgs) -> runner::Options {
    runner::Options {
        consent: Consent {
            allow_destructive: a.allow_destructive,
            force: a.force,
        },
        clean: a.clean,
        skip_failed: a.skip_failed,
        starts: None,
        barrier: None,
        formats: a.formats.iter().map(|f| f.0).collect(),
        paper: a.paper,
        replay: None,
    }
}

/// Where `a` asks for live metrics.
pub(super) fn metrics(a: &RunArgs) -> MetricsOptions {
    MetricsOptions {
        listen: a.metrics.clone(),
        push: a.metrics_push.clone(),
    }
}

/// The library's run loop with the terminal's progress display (and the live metrics `metrics`
/// asks for, bound before any I/O: exit 2 when they cannot be); prints why a run could not start
/// (`explain` words a target error) and returns the exit code with what ran.
pub(super) fn run_job(
    job: Job,
    opts: runner::Options,
    explain: &dyn Fn(&TargetError) -> String,
    metrics: &MetricsOptions,
) -> (i32, Option<Ran>) {
    let mut watcher = Watcher::default();
    let mut live = None;
    if metrics.wanted() {
        match Metrics::start(metrics) {
            Ok(m) => live = Some(m),
            Err(e) => {
                eprintln!("rigel: {e}");
                return (exit::BAD_SPEC, None);
            }
        }
    }
    if let Some(addr) = live.as_ref().and_then(Metrics::address) {
        super::style::note(format!("live metrics at http://{addr}/metrics"));
    }
    let ran = match live.as_mut() {
        Some(m) => runner::run_job(job, opts, &mut m.watching(&mut watcher)),
        None => runner::run_job(job, opts, &mut watcher),
    };
    match ran {
        Ok(ran) => (code(ran.ended), Some(ran)),
        Err(e) => {
            let text = match &e {
                RunError::Target(t) => explain(t),
                other => other.to_string(),
            };
            eprintln!("rigel: {text}");
            let code = if e.interrupted() {
                INTERRUPTED
            } else {
                exit::RUNTIME
            };
            (code, None)
        }
    }
}

/// The exit code README documents for how a run ended.
pub(super) fn code(ended: Ended) -> i32 {
    match ended {
        Ended::Complete => exit::OK,
        Ended::Interrupted => INTERRUPTED,
        Ended::Failed => exit::RUNTIME,
    }
}

fn prepare(a: &RunArgs) -> Result<Job, i32> {
    if let Some(dir) = &a.resume {
        return Job::resume(dir).map_err(|e| {
            eprintln!("rigel: cannot resume: {e}");
            exit::RUNTIME
        });
    }
    let (dir, toml, plan, provenance) = compiled(a)?;
    let job = Job::fresh(dir, toml, plan, runner::now()).with_provenance(provenance);
    // A folder rigel named (no --out) is never refused: another run's in the same second makes
    // this one NAME-DATE.2.
    Ok(if a.out.is_none() {
        job.with_unique_dir()
    } else {
        job
    })
}

/// The run folder, the resolved spec, its plan and where it came from.
fn compiled(
    a: &RunArgs,
) -> Result<(PathBuf, String, runner::RunPlan, rigel_results::Provenance), i32> {
    let (loaded, plan) =
        specs::compile(specs::input(a.spec_file.as_deref()), &a.spec).map_err(|d| {
            specs::report(&d);
            exit::BAD_SPEC
        })?;
    // A declared size the targets cannot hold, told at the spec's text before the folder exists.
    specs::preflight(&loaded, &plan, options(a).consent, false).map_err(|(d, code)| {
        specs::report(&d);
        code
    })?;
    let dir = a.out.clone().unwrap_or_else(|| {
        let stamp = chrono::Local::now().format("%Y%m%d-%H%M%S");
        PathBuf::from("runs").join(format!("{}-{stamp}", plan.name))
    });
    let mut provenance = specs::provenance(&loaded);
    if let Some(by) = a.by.as_deref().map(str::trim).filter(|b| !b.is_empty()) {
        provenance.measured_by = Some(by.to_owned());
    }
    Ok((dir, loaded.resolved_toml, plan, provenance))
}

/// `rigel run --repeat N`: the same plan N times back to back, run i into DIR/run-i, each judged
/// as a run of its own. Stops at the first run that is interrupted or cannot start; the exit
/// code is the worst of the runs' (a failure before a requirement).
fn repeat(a: &RunArgs, n: usize) -> i32 {
    let (dir, toml, plan, provenance) = match compiled(a) {
        Ok(parts) => parts,
        Err(code) => return code,
    };
    let mut worst = exit::OK;
    for i in 1..=n {
        let out = runner::repeat_dir(&dir, i);
        println!("rigel: run {i} of {n} into {}", out.display());
        let job = Job::fresh(out, toml.clone(), plan.clone(), runner::now())
            .with_provenance(provenance.clone());
        let (code, ran) = run_job(job, options(a), &|e| e.to_string(), &metrics(a));
        let code = match ran.as_ref().and_then(|r| r.doc.as_ref().map(|d| (r, d))) {
            Some((ran, doc)) => judge(
                doc,
                &ran.dir,
                ran.ended == Ended::Interrupted,
                code,
                a.junit.as_deref(),
            ),
            None => code,
        };
        if code == INTERRUPTED || ran.is_none() {
            return code;
        }
        worst = match (worst, code) {
            (exit::OK, c) | (c, exit::OK) => c,
            (exit::INTEGRITY, _) | (_, exit::INTEGRITY) => exit::INTEGRITY,
            (exit::RUNTIME, _) | (_, exit::RUNTIME) => exit::RUNTIME,
            (w, _) => w,
        };
    }
    println!(
        "rigel: {n} runs in {}: compare them with `rigel compare {} OTHER`",
        dir.display(),
        dir.display()
    );
    worst
}
