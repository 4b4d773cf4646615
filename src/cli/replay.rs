//! `rigel replay`: a trace folder's requests sent to a target at their traced times. The replay is
//! a generated spec (one open-loop class on one worker, its size the trace's largest request, its
//! rate the trace's mean) run through the ordinary run loop, so the target's write guard, the run
//! folder and `rigel report` are `rigel run`'s; the executor sends the trace's requests in place
//! of drawn ones.

use super::args::{OffsetsArg, ReplayArgs};
use super::capture::failed;
use super::style::note;
use super::{exit, run, specs};
use rigel_expr::units;
use rigel_runner::{self as runner, Job};
use rigel_target::Consent;
use rigel_trace::folder;
use rigel_trace::replay::{Fit, ReplayOptions, prepare};
use rigel_trace::replay_spec::{ReplayTarget, replay_spec};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub fn run(a: &ReplayArgs) -> i32 {
    let speed = match parse_speed(&a.speed) {
        Some(s) => s,
        None => {
            return usage(&format!(
                "--speed {:?}: a factor above 0 such as 2x, 0.5x or 1",
                a.speed
            ));
        }
    };
    let trace = match folder::load(&a.dir) {
        Ok(t) => t,
        Err(e) => return failed(&e),
    };
    let target_bytes = match target_size(&a.target, a.size.as_deref()) {
        Ok(n) => n,
        Err(msg) => return usage(&msg),
    };
    let fit = match a.offsets {
        OffsetsArg::Wrap => Fit::Wrap,
        OffsetsArg::Scale => Fit::Scale,
    };
    let opts = ReplayOptions {
        speed,
        fit,
        target_bytes,
    };
    let replay = match prepare(&trace, opts) {
        Ok(r) => r,
        Err(e) => return failed(&e),
    };
    let requests = replay.requests.len() as u64;
    let to = ReplayTarget {
        source: &a.dir,
        target: &a.target,
        size: a.size.as_deref(),
        allow_destructive: a.allow_destructive,
    };
    let text = match replay_spec(&to, &trace, &replay, opts) {
        Ok(t) => t,
        Err(e) => return failed(&e),
    };
    let (loaded, plan) = match specs::compile(
        rigel_spec::SpecInput::Text {
            name: "replay",
            text: &text,
        },
        &Default::default(),
    ) {
        Ok(p) => p,
        Err(d) => {
            specs::report(&d);
            return exit::BAD_SPEC;
        }
    };
    note(format!(
        "replaying {} requests ({} reads, {} writes, {} flushes, {} trims) over {} into {}",
        units::thousands(replay.requests.len() as f64),
        units::thousands(replay.reads as f64),
        units::thousands(replay.writes as f64),
        units::thousands(replay.flushes as f64),
        units::thousands(replay.trims as f64),
        units::seconds(replay.span_ns as f64 / 1e9),
        a.target.display()
    ));
    if replay.discards + replay.others > 0 {
        note(format!(
            "skipped: {} empty discards, {} other requests without data (rigel sends reads, \
             writes, flushes and discards)",
            replay.discards, replay.others
        ));
    }
    let dir = a.out.clone().unwrap_or_else(|| {
        let stamp = chrono::Local::now().format("%Y%m%d-%H%M%S");
        PathBuf::from("runs").join(format!("replay-{stamp}"))
    });
    let job = Job::fresh(dir, loaded.resolved_toml.clone(), plan, runner::now())
        .with_provenance(specs::provenance(&loaded));
    let job = if a.out.is_none() {
        job.with_unique_dir()
    } else {
        job
    };
    let options = runner::Options {
        consent: Consent {
            allow_destructive: a.allow_destructive,
            force: a.force,
        },
        replay: Some(Arc::new(replay)),
        ..runner::Options::default()
    };
    let (code, ran) = run::run_job(job, options, &|e| e.to_string(), &Default::default());
    let Some(ran) = ran else { return code };
    let Some(doc) = &ran.doc else { return code };
    let code = run::judge(
        doc,
        &ran.dir,
        ran.ended == runner::Ended::Interrupted,
        code,
        None,
    );
    let unsent = sends(doc, requests);
    if unsent > 0 && code == exit::OK {
        // The replay did not do what it was asked: a runtime failure, not a verdict on a
        // requirement (exit 3 is the `[expect]` tables').
        return exit::RUNTIME;
    }
    code
}

/// What was sent of the trace's `requests`, how late, and the sends' lateness against the
/// trace's clock (waiting for a free slot and rigel's own lag). Returns how many were never sent
/// (all of them when the results hold no schedule).
fn sends(doc: &runner::ResultsDoc, requests: u64) -> u64 {
    let Some(pace) = doc
        .points()
        .first()
        .and_then(|p| p.classes.first())
        .and_then(|c| c.pace.as_ref())
    else {
        eprintln!(
            "rigel replay: the results hold no schedule: none of the requests counts as sent"
        );
        return requests;
    };
    let unsent = pace.unsent.unwrap_or(0).min(requests);
    let sent = requests - unsent;
    if unsent > 0 {
        eprintln!(
            "rigel replay: {} of {} requests were never sent: the run ended before their turn \
             (the target was slower than the trace at this speed, or rigel was stopped); replay \
             more slowly (--speed) or on a faster target",
            units::thousands(unsent as f64),
            units::thousands(requests as f64)
        );
    }
    note(format!(
        "sent {} of {} requests, {} of them more than {} ms after their time",
        units::thousands(sent as f64),
        units::thousands(requests as f64),
        units::thousands(pace.late as f64),
        rigel_results::SEND_TOLERANCE_NS / 1_000_000
    ));
    let ms = |ns: u64| format!("{:.3} ms", ns as f64 / 1e6);
    if let Some(l) = &pace.lag {
        note(format!(
            "lag against the trace's clock: p50 {}, p99 {}, max {} over {} sends",
            ms(l.latency.p50_ns),
            ms(l.latency.p99_ns),
            ms(l.latency.max_ns),
            units::thousands(sent as f64)
        ));
    }
    if let Some(q) = pace.queued.as_ref().filter(|q| q.latency.max_ns > 0) {
        note(format!(
            "waited for a free slot (the target was slower than the trace): p99 {}, max {}",
            ms(q.latency.p99_ns),
            ms(q.latency.max_ns)
        ));
    }
    unsent
}

/// `2x`, `0.5x`, `2`: a finite factor above 0.
fn parse_speed(s: &str) -> Option<f64> {
    let v: f64 = s.trim().trim_end_matches(['x', 'X']).trim().parse().ok()?;
    (v.is_finite() && v > 0.0).then_some(v)
}

/// The target's size: a block device's or an existing file's own, or `--size` for a file rigel
/// will create.
fn target_size(path: &Path, size: Option<&str>) -> Result<u64, String> {
    match std::fs::metadata(path) {
        Ok(m) if std::os::unix::fs::FileTypeExt::is_block_device(&m.file_type()) => {
            rigel_trace::BlockDevice::open(path)
                .ok()
                .and_then(|d| d.size)
                .ok_or_else(|| format!("cannot read the size of {}", path.display()))
        }
        Ok(m) if m.is_file() => Ok(m.len()),
        Ok(_) => Err(format!(
            "{} is neither a block device nor a file",
            path.display()
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let Some(s) = size else {
                return Err(format!(
                    "{} does not exist: give --size to create it",
                    path.display()
                ));
            };
            rigel_expr::parse_size(s)
                .map(|s| s.0)
                .map_err(|e| format!("--size {s:?}: {}", e.message))
        }
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

fn usage(msg: &str) -> i32 {
    eprintln!("rigel replay: {msg}");
    exit::BAD_SPEC
}
