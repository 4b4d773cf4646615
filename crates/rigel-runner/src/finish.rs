//! The end of a run: the results document assembled from the finished points, the run folder
//! finished (results.json), the built-in reports rendered, and how the run ended.

use super::options::Options;
use super::outcome::{Ended, Ran, RunError, is_failed};
use super::{Message, Observer, RunPlan, now, search};
use rigel_record::{self as record, RunFolder, RunHeader};
use rigel_report::{self as report, ReportOptions};
use rigel_results::{PointResult, ResultsDoc};

/// The run as `execute` ends it: its folder, what its results document is made of, and how the
/// points ended.
pub(super) struct Finish<'a> {
    pub folder: &'a RunFolder,
    pub header: RunHeader,
    pub spec_toml: String,
    pub plan: RunPlan,
    /// The points recorded, in the order they finished.
    pub done: Vec<PointResult>,
    pub ended: Ended,
}

pub(super) fn finish(
    run: Finish<'_>,
    run_opts: &Options,
    obs: &mut dyn Observer,
) -> Result<Ran, RunError> {
    let Finish {
        folder,
        header,
        spec_toml,
        plan,
        done,
        ended,
    } = run;
    let complete = match &plan.search {
        Some(s) => search::finished(s, &done),
        None => done.len() == plan.points.len(),
    };
    let any_failed = done.iter().any(is_failed);
    let finished = if complete { now() } else { String::new() };
    let mut points = done;
    points.sort_by_key(|p| p.point.id);
    let mut doc = ResultsDoc::new(header, spec_toml, plan, points, finished);
    search::record(&mut doc);
    let dir = folder.dir().to_path_buf();
    // Judged here, where the run ends, and handed to the folder to keep beside the document.
    folder.finish(
        &doc,
        &rigel_judge::expect::evaluate(&doc),
        &rigel_judge::answers::evaluate(&doc),
    )?;
    let mut opts = ReportOptions {
        past_runs: record::past_runs(folder.dir()),
        paper: run_opts.paper,
        ..ReportOptions::new(folder.dir())
    };
    for f in &run_opts.formats {
        if !opts.formats.contains(f) {
            opts.formats.push(*f);
        }
    }
    // Shared, so that the templates read it without a copy (1 GB at 100,000 points).
    let doc = std::sync::Arc::new(doc);
    let reported = match report::render_shared(&doc, &opts) {
        Ok(files) => {
            obs.message(Message::Reports(files));
            true
        }
        Err(e) => {
            obs.message(Message::Error(format!(
                "the results are safe, but a report failed: {e}"
            )));
            false
        }
    };
    // README's exit codes: a missing point, a failed point (kept by --skip-failed) or a failed
    // report make the run a runtime failure.
    let ended = if ended == Ended::Complete && (!complete || any_failed || !reported) {
        Ended::Failed
    } else {
        ended
    };
    // The reports are written and hold no reference: the document is this function's alone again.
    let doc = std::sync::Arc::try_unwrap(doc).unwrap_or_else(|d| (*d).clone());
    Ok(Ran {
        ended,
        doc: Some(doc),
        dir,
    })
}
