//! `rigel run --fleet DIR` (one rank of a many-host run), `rigel run --resume DIR` on a fleet
//! folder, and `rigel merge DIR`: the steps are the library's (`fleet`, `runner`); this prints
//! them and picks the exit codes.

use super::args::{MergeArgs, RunArgs};
use super::{exit, run, specs};
use rigel_fleet::{self as fleet, FleetError, Rank, StartRule};
use rigel_runner::metrics::{MetricsError, MetricsOptions, rank_address};
use rigel_runner::{self as runner, Job, ResultsDoc};
use std::path::{Path, PathBuf};

/// The fleet folder when `a` asks for fleet mode: `--fleet DIR`, or `--resume DIR` on a fleet
/// folder.
pub fn folder(a: &RunArgs) -> Option<PathBuf> {
    a.fleet
        .clone()
        .or_else(|| a.resume.clone().filter(|d| fleet::is_fleet(d)))
}

pub fn run(a: &RunArgs, dir: &Path) -> i32 {
    let rank = match fleet::detect(&|k| std::env::var(k).ok(), a.rank, a.ranks) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("rigel: {e}");
            return exit::BAD_SPEC;
        }
    };
    let job = match prepare(a, dir, &rank) {
        Ok(job) => job,
        Err(code) => return code,
    };
    let rule = a.start_at.map_or(StartRule::Shared, StartRule::At);
    let failed = job.failed();
    if failed > 0 {
        eprintln!(
            "rigel: rank {}: {failed} point(s) recorded as failed {}",
            rank.rank,
            if a.skip_failed {
                "are kept (--skip-failed)"
            } else {
                "run again"
            }
        );
    }
    let joined = match fleet::join(dir, &rank, job, rule, a.skip_failed) {
        Ok(joined) => joined,
        Err(e) => {
            eprintln!("rigel: {e}");
            if a.resume.is_some() && matches!(e, FleetError::NoSchedule { .. }) {
                eprintln!(
                    "rigel: a fleet resumes together: start every rank again with --resume {}",
                    dir.display()
                );
            }
            return match e {
                FleetError::PlanDiffers { .. } => exit::BAD_SPEC,
                _ => exit::RUNTIME,
            };
        }
    };
    let agreed = &joined.agreed;
    let at = |t| chrono::DateTime::<chrono::Local>::from(t).format("%H:%M:%S%.3f");
    // With a drain, T0 is the drain's start on every rank; the points follow its reserved time.
    let start = if joined.barrier.is_some() {
        // T0 moves past the slowest rank's fill: not known until every rank has filled.
        format!(
            "{} s after every rank's precondition",
            fleet::MARGIN.as_secs()
        )
    } else if agreed.drain.is_zero() {
        format!("at {}", at(agreed.t0))
    } else {
        format!(
            "at {} after a drain from {}",
            at(agreed.t0 + agreed.drain),
            at(agreed.t0)
        )
    };
    // One write: the ranks share the launcher's stderr, and `eprintln!` writes each formatted
    // piece on its own (stderr is unbuffered), so another rank's line could land inside this one.
    let line = format!(
        "rigel: rank {} of {} ({}): {}, the first {start}, one every {:.1} s\n",
        rank.rank,
        rank.ranks,
        rank.source,
        rigel_expr::units::count(agreed.points.len() as u64, "point"),
        agreed.slot.as_secs_f64()
    );
    let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
    let mut opts = run::options(a);
    opts.starts = Some(joined.starts);
    opts.barrier = joined
        .barrier
        .clone()
        .map(|b| b as std::sync::Arc<dyn runner::Barrier>);
    let metrics = match rank_metrics(a, rank.rank) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("rigel: {e}");
            return exit::BAD_SPEC;
        }
    };
    let (code, _) = run::run_job(joined.job, opts, &|e| e.to_string(), &metrics);
    let pending = match fleet::leave(
        dir,
        &rank,
        (&joined.agreed, joined.barrier.as_deref()),
        code != run::INTERRUPTED,
        a.finish_grace.unwrap_or(fleet::FINISH_GRACE),
    ) {
        Ok(pending) => pending,
        Err(e) => {
            eprintln!("rigel: {e}");
            Vec::new()
        }
    };
    if rank.rank != 0 || code == run::INTERRUPTED {
        return code;
    }
    if !pending.is_empty() {
        eprintln!("rigel: merging without ranks {pending:?}: they did not finish in time");
    }
    merged(dir, code, a.junit.as_deref())
}

/// The rank's job: its spec compiled as this rank, or its folder resumed.
fn prepare(a: &RunArgs, dir: &Path, rank: &Rank) -> Result<Job, i32> {
    let rank_dir = fleet::rank_dir(dir, rank.rank);
    if a.resume.is_some() {
        return Job::resume(&rank_dir).map_err(|e| {
            eprintln!("rigel: rank {}: cannot resume: {e}", rank.rank);
            exit::RUNTIME
        });
    }
    let builtins = rigel_spec::Builtins {
        rank: rank.rank,
        ranks: rank.ranks,
        host: rigel_spec::hostname(),
    };
    let input = specs::input(a.spec_file.as_deref());
    let (loaded, plan) = specs::compile_as(input, &a.spec, &builtins).map_err(|d| {
        specs::report(&d);
        exit::BAD_SPEC
    })?;
    if rank_dir.join(rigel_record::PLAN_FILE).exists() {
        eprintln!(
            "rigel: `{}` already holds a run: finish the fleet with `rigel run --resume {}`, or pick another --fleet folder",
            rank_dir.display(),
            dir.display()
        );
        return Err(exit::RUNTIME);
    }
    let provenance = specs::provenance(&loaded);
    Ok(Job::fresh(rank_dir, loaded.resolved_toml, plan, runner::now()).with_provenance(provenance))
}

/// Merges the fleet folder and judges the merged result; `code` is how this rank's own run ended.
fn merged(dir: &Path, code: i32, junit: Option<&Path>) -> i32 {
    let doc = match fleet::merge_and_render(dir) {
        Ok((doc, files)) => {
            match files {
                Ok(files) => files
                    .iter()
                    .for_each(|f| eprintln!("rigel: wrote {}", f.display())),
                Err(e) => {
                    eprintln!("rigel: the merged results are safe, but a report failed: {e}")
                }
            }
            doc
        }
        Err(e) => {
            eprintln!("rigel: cannot merge `{}`: {e}", dir.display());
            return if e.is_bad_input() {
                exit::BAD_SPEC
            } else {
                exit::RUNTIME
            };
        }
    };
    let partial = say_partial(&doc);
    let code = run::judge(&doc, dir, false, code, junit);
    if code == exit::OK && (partial > 0 || doc.finished().is_empty()) {
        return exit::RUNTIME;
    }
    code
}

/// Prints each partial point; how many there are.
fn say_partial(doc: &ResultsDoc) -> usize {
    let partial: Vec<_> = doc
        .points()
        .iter()
        .filter_map(|p| Some((p.point.id, p.partial.as_deref()?)))
        .collect();
    for (id, why) in &partial {
        eprintln!("rigel: point {id} is partial ({why}): left out of the headline figures");
    }
    partial.len()
}

/// `rigel merge DIR`.
pub fn merge(a: &MergeArgs) -> i32 {
    merged(&a.dir, exit::OK, None)
}

/// A rank's metrics: each rank serves its own, on PORT + its rank, and pushes to FILE.rank-NNNN
/// (ranks of one host would otherwise fight over one port and one file).
fn rank_metrics(a: &RunArgs, rank: u32) -> Result<MetricsOptions, MetricsError> {
    let mut m = run::metrics(a);
    if let Some(listen) = &m.listen {
        m.listen = Some(rank_address(listen, rank)?);
    }
    if let Some(push) = &m.push {
        let mut name = push.clone().into_os_string();
        name.push(format!(".rank-{rank:04}"));
        m.push = Some(name.into());
    }
    Ok(m)
}
