//! The template context's run facts (`run`, `rigel`): the run's name, command, times, point counts
//! and settings. The per-point and per-class views are in `rows/`.

use crate::names::shell_join;
use rigel_results::stats::engines;
use rigel_results::view::ResultsView;
use serde::Serialize;

/// The renderer's own facts.
#[derive(Clone, Debug, Serialize)]
pub struct RigelInfo {
    pub version: &'static str,
}

/// Facts about the run, gathered from the document and its plan.
#[derive(Clone, Debug, Serialize)]
pub struct RunView {
    pub name: String,
    pub description: String,
    /// The command line as one shell-quoted string.
    pub command: String,
    pub started: String,
    pub finished: String,
    /// `YYYY-MM-DD HH:MM` in the start time's own offset, and that offset.
    pub date: String,
    /// `finished` written as `date` is (empty for a run not closed).
    pub ended: String,
    /// Every planned point finished and the run was closed (`finished` set).
    pub complete: bool,
    pub planned_points: usize,
    pub finished_points: usize,
    pub failed_points: usize,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub estimated_seconds: u64,
    pub layout: String,
    pub stripe: u64,
    pub seed: u64,
    pub direct: bool,
    pub workers: u32,
    pub shape: String,
    /// The engines that did the I/O: `io_uring`, `libaio (auto fell back: …)`, `small: psync,
    /// large: io_uring` (empty for results written before engines could be chosen).
    pub engine: String,
    /// Where the workers ran: their CPUs, the governor, the devices' hardware queues, notes
    /// (empty for results without it).
    pub placement: String,
    /// What each writing class's writes carried (`w: fresh random bytes …`), or that the
    /// document predates the record; empty for a run that does not write.
    pub write_data: Vec<String>,
    /// `[drain]`: what the drain before the first point saw (a burst bucket running out, or its
    /// limit), empty for a run without one.
    pub drain: String,
}

pub fn run_view(view: &ResultsView) -> RunView {
    let doc = view.doc;
    let plan = &doc.plan();
    let failed = view.points.iter().filter(|p| !p.ok).count();
    let stamp = |at: &str| {
        chrono::DateTime::parse_from_rfc3339(at)
            .map(|t| t.format("%Y-%m-%d %H:%M UTC%:z").to_string())
            .unwrap_or_else(|_| at.to_owned())
    };
    let date = stamp(doc.started());
    RunView {
        name: plan.name.clone(),
        description: plan.description.clone(),
        command: shell_join(doc.command()),
        started: doc.started().to_owned(),
        finished: doc.finished().to_owned(),
        date,
        ended: stamp(doc.finished()),
        complete: !doc.finished().is_empty() && doc.points().len() >= plan.points.len(),
        planned_points: plan.points.len(),
        finished_points: doc.points().len(),
        failed_points: failed,
        duration_s: plan.run.duration_ms as f64 / 1000.0,
        warmup_s: plan.run.warmup_ms as f64 / 1000.0,
        estimated_seconds: plan.estimated_seconds,
        layout: enum_text(&plan.volume.layout),
        stripe: plan.volume.stripe,
        seed: plan.run.seed,
        direct: plan.run.direct,
        workers: plan.run.workers,
        shape: enum_text(&plan.matrix.shape),
        engine: engines::engines_text(doc.points()).unwrap_or_default(),
        placement: engines::placement(doc.points())
            .map(engines::placement_text)
            .unwrap_or_default(),
        write_data: write_data(doc),
        drain: drain(doc.points()),
    }
}

/// The record of what the writes carried; a document without one (written before rigel kept
/// it) says so for each writing class instead of assuming today's default.
fn write_data(doc: &rigel_results::ResultsDoc) -> Vec<String> {
    let recorded = doc.write_data();
    if recorded.is_empty() {
        let writing = rigel_results::WriteData::of_plan(doc.plan());
        return writing
            .iter()
            .map(|d| {
                format!(
                    "{}: not recorded (results written before rigel kept it)",
                    d.class
                )
            })
            .collect();
    }
    recorded
        .iter()
        .map(|d| format!("{}: {}", d.class, d.text))
        .collect()
}

/// The drain in words: measured after the bucket ran out, or after a limit that came first.
fn drain(points: &[rigel_results::PointResult]) -> String {
    let Some((point, d)) = rigel_results::stats::drain::drain_of(points) else {
        return String::new();
    };
    let ran = rigel_expr::units::duration(std::time::Duration::from_secs_f64(d.seconds));
    if d.stepped {
        format!(
            "{}: the figures from point {point} on are the baseline's, measured after it (drained for {ran})",
            d.summary
        )
    } else {
        format!(
            "{}: the measured figures may still be on a burst bucket's credit",
            d.summary
        )
    }
}

/// The serde name of a unit enum variant (`concat`, `basic`).
fn enum_text<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}
