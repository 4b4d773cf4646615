//! The handover summary's figures: the headline (the spec's answers, judged by their one rule in
//! `rigel_judge::answers`, each with the load and latency it was taken at), the numbers a DBA
//! passes on (8 KiB random I/O, 1 MiB I/O, the redo/commit latency: each its class's answer by
//! the classes' rule, only for a class no headline answer speaks for), and the three figures Oracle's
//! `DBMS_RESOURCE_MANAGER.CALIBRATE_IO` reports, each derived from the per-class rows by the rule
//! its `basis` states.
//!
//! Rules every figure keeps: only rows that count (a whole point, not a search trial that failed
//! its target, the class's rate achieved); a class is the size most of its I/Os take; a search's
//! figures are its answer's trial; a log writer's latency is the worst, under the most load the
//! spec puts beside it; a data integrity failure comes before any figure.

use super::rows::{ClassRow, DirView, Point};
use crate::placement::{Placement, SeeWarning, Taken, place};
use rigel_expr::units;
use rigel_judge::answers;
use rigel_results::stats::Warning;
use rigel_results::{Answer, ResultsDoc};
use serde::Serialize;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;

/// One figure and where it was measured.
#[derive(Clone, Debug, Serialize)]
pub struct Figure {
    /// What it is (`8 KiB random-read IOPS`).
    pub measure: String,
    pub value: f64,
    /// The value with its unit (`41,235 IOPS`).
    pub text: String,
    pub class: String,
    pub point: u32,
    /// The point's loads and sweep (`small=8 large=0`).
    pub label: String,
    pub load: u32,
    /// The latency beside it: `p99 1.2 ms, mean 410 µs` of the same direction.
    pub latency: String,
    pub p99_ns: u64,
    pub mean_ns: f64,
    /// How rigel chose it.
    pub basis: String,
    /// The validity warnings said beside it (those about it alone; `placement`).
    pub beside: Vec<Warning>,
    /// The numbered warnings about several answers that it names (`placement`).
    pub see: Vec<SeeWarning>,
}

/// CALIBRATE_IO's three outputs, as rigel derives them.
#[derive(Clone, Debug, Serialize)]
pub struct CalibrateIo {
    pub max_iops: Option<u64>,
    pub max_mbps: Option<u64>,
    /// Milliseconds, as CALIBRATE_IO reports `actual_latency`.
    pub actual_latency_ms: Option<f64>,
    pub iops_from: Option<Figure>,
    pub mbps_from: Option<Figure>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Handover {
    /// One line per point whose data read back corrupted: the run's verdict, before any figure.
    pub integrity: Vec<String>,
    /// The spec's answers (`[answers]`, or those its classes imply), as `results.json` keeps them:
    /// each with its point, load and latency, or why none qualified.
    pub spec_answers: Vec<Answer>,
    /// The answers in the shape of a figure (an unanswered one with `—` and why); empty when none
    /// was answered (`why_none` says why).
    pub headline: Vec<Figure>,
    /// Why there is no headline, when there is none.
    pub why_none: String,
    pub random_read_8k: Option<Figure>,
    pub mbps_1m: Option<Figure>,
    pub redo_write: Option<Figure>,
    pub calibrate_io: CalibrateIo,
    /// Where page 1 says the warnings not beside one answer (`placement::place` decides it and
    /// each answer's `beside` and `see`).
    pub warnings: Placement,
}

impl Handover {
    /// Every figure page 1 shows, in its order: the headline, then the database team's.
    pub fn answers(&self) -> Vec<&Figure> {
        self.headline
            .iter()
            .chain(
                [&self.random_read_8k, &self.mbps_1m, &self.redo_write]
                    .into_iter()
                    .flatten(),
            )
            .collect()
    }

    /// [`Handover::answers`], to fill in.
    pub fn answers_mut(&mut self) -> impl Iterator<Item = &mut Figure> {
        self.headline.iter_mut().chain(
            [
                &mut self.random_read_8k,
                &mut self.mbps_1m,
                &mut self.redo_write,
            ]
            .into_iter()
            .flatten(),
        )
    }
}

/// The handover's figures, with `warnings` (the run's validity warnings) placed against them.
pub fn handover(doc: &ResultsDoc, points: &[Point], warnings: &[Warning]) -> Handover {
    let search = doc.search();
    // A search's figures are its answer's: its other trials probed rates the storage did or did
    // not hold, none of them the answer.
    let answer_point = search
        .as_ref()
        .and_then(|s| answers::answer_trial(s))
        .map(|(_, p)| p);
    let rows: Vec<&ClassRow> = points
        .iter()
        .filter(|p| p.ok && (search.is_none() || Some(p.id) == answer_point))
        .flat_map(|p| p.classes.iter().map(|r| &**r))
        .filter(|r| r.counted)
        .collect();
    // The answers are judged by their one rule (`rigel_judge::answers`); the headline is them,
    // in the shape the templates read.
    let answers = answers::evaluate(doc);
    let headline_rows: Vec<Figure> = answers.iter().map(|a| answer_figure(doc, a)).collect();
    let integrity = integrity_failures(doc);
    let any = answers.iter().any(|a| a.value.is_some());
    let why_none = match &search {
        _ if !integrity.is_empty() => {
            "No figures to hand over: the data read back was corrupted (above).".to_owned()
        }
        Some(s) if s.answer.is_none() => format!("Search: {}.", s.summary),
        _ if any => String::new(),
        _ if points.iter().any(|p| p.ok) => {
            "No finished point counts for a headline: each was a failed trial, missed its rate \
             or was partial."
                .to_owned()
        }
        _ if !points.is_empty() => {
            "No point finished without an error, so there are no figures to hand over.".to_owned()
        }
        _ => "No point finished, so there are no figures to hand over.".to_owned(),
    };
    // Nothing answered: the headline says why instead of listing empty answers.
    let headline_rows = if any { headline_rows } else { Vec::new() };
    // The database team's lines are answers by the same rule as the headline (the classes'
    // rule of `rigel_judge::answers`), and only for a class no answer above already speaks for:
    // never a best case beside an answer taken under load.
    let implied = answers::implied_by_classes(doc);
    let covered = |class: &str| headline_rows.iter().any(|f| f.class == class);
    let dba = |keep: &dyn Fn(&rigel_plan::IoClass) -> bool, measure: &str| {
        let plan = doc.plan();
        let class = plan
            .classes
            .iter()
            .filter(|c| keep(c))
            // Read-only classes first, then in the order written.
            .min_by_key(|c| c.mix.read_percent != 100)?;
        if covered(&class.name) {
            return None;
        }
        let a = implied
            .iter()
            .find(|a| a.value.is_some() && a.figure.split('.').next() == Some(&class.name))?;
        let mut f = answer_figure(doc, a);
        f.measure = format!("{measure} ({})", class.name);
        Some(f)
    };
    let random_read_8k = dba(
        &|c| {
            c.pattern.common_size(c.size) == 8 * KIB
                && c.access == rigel_expr::Access::Random
                && c.mix.read_percent > 0
        },
        "8 KiB random I/O",
    );
    let mbps_1m = dba(&|c| c.pattern.common_size(c.size) == MIB, "1 MiB I/O");
    let redo_write = redo(doc).filter(|f| !covered(&f.class));
    let iops_from = best_read(
        &rows,
        |r| r.io_size <= 32 * KIB && r.access == "random" && r.read_percent == 100,
        "max_iops",
        "the highest IOPS of a read-only random class of database-block size (at most 32 KiB); no \
         latency limit is applied",
        |d| d.iops,
        iops_text,
    );
    let mbps_from = best_read(
        &rows,
        |r| r.io_size >= MIB && r.read_percent == 100,
        "max_mbps",
        "the highest MiB/s (Oracle's MB) of a read-only class of 1 MiB or larger I/Os",
        |d| d.mbps,
        mbps_text,
    );
    let mut h = Handover {
        integrity,
        spec_answers: answers,
        headline: headline_rows,
        why_none,
        random_read_8k,
        mbps_1m,
        redo_write,
        calibrate_io: CalibrateIo {
            max_iops: iops_from.as_ref().map(|f| f.value.floor() as u64),
            max_mbps: mbps_from.as_ref().map(|f| f.value.floor() as u64),
            actual_latency_ms: iops_from.as_ref().map(|f| f.mean_ns / 1e6),
            iops_from,
            mbps_from,
        },
        warnings: Placement::default(),
    };
    let placed = {
        let answers: Vec<Taken> = h
            .answers()
            .iter()
            .map(|f| Taken {
                point: f.point,
                class: &f.class,
            })
            .collect();
        place(&answers, warnings)
    };
    for ((f, beside), see) in h.answers_mut().zip(placed.beside).zip(placed.see) {
        (f.beside, f.see) = (beside, see);
    }
    h.warnings = placed.placement;
    h
}

/// The row whose read direction scores highest among those `keep` admits (read-only rows first).
fn best_read(
    rows: &[&ClassRow],
    keep: impl Fn(&ClassRow) -> bool,
    measure: &str,
    basis: &str,
    score: impl Fn(&DirView) -> f64,
    text: fn(f64) -> String,
) -> Option<Figure> {
    let candidates: Vec<&ClassRow> = rows
        .iter()
        .copied()
        .filter(|r| keep(r) && r.read.is_some())
        .collect();
    let pure: Vec<&ClassRow> = candidates
        .iter()
        .copied()
        .filter(|r| r.read_percent == 100)
        .collect();
    let from = if pure.is_empty() { candidates } else { pure };
    let of = |r: &ClassRow| r.read.as_ref().map_or(f64::NEG_INFINITY, &score);
    let row = from.into_iter().max_by(|a, b| of(a).total_cmp(&of(b)))?;
    let read = row.read.as_ref()?;
    let v = score(read);
    Some(figure(measure, row, read, v, text(v), basis))
}

/// Redo log writes: the log writer's answer by the classes' rule (`rigel_judge::answers`): a
/// committing class's commit p99 (write + flush), else a log writer's write p99, at the highest
/// load of the other classes, the worst of equals; a class named `redo` first.
fn redo(doc: &ResultsDoc) -> Option<Figure> {
    let implied = answers::implied_by_classes(doc);
    let log = |a: &&Answer| {
        a.value.is_some()
            && (a.figure.ends_with(".commit.latency.p99")
                || a.figure.ends_with(".write.latency.p99"))
    };
    let named = implied
        .iter()
        .filter(log)
        .find(|a| a.figure.to_ascii_lowercase().contains("redo"));
    let a = named.or_else(|| implied.iter().find(log))?;
    let mut f = answer_figure(doc, a);
    f.measure = if a.figure.contains(".commit.") {
        "Commit p99 (write + flush)".to_owned()
    } else {
        "Redo write p99".to_owned()
    };
    Some(f)
}

/// An answer as a figure: the class its figure names (the search's class), the point's label.
fn answer_figure(doc: &ResultsDoc, a: &Answer) -> Figure {
    let class = match a.figure.split_once('.') {
        Some((c, _)) => c.to_owned(),
        None => doc.search().map(|s| s.class.clone()).unwrap_or_default(),
    };
    // The document's unit for MiB/s is "MB/s", as on its other lines.
    let mut text = match (a.unit.as_str(), a.value) {
        ("mbps", Some(v)) => mbps_text(v),
        _ => a.text.clone(),
    };
    if a.value.is_some() && !a.note.is_empty() {
        text.push_str(&format!(
            " ({})",
            a.note.split(':').next().unwrap_or(&a.note)
        ));
    }
    let measure = if a.group.is_empty() {
        a.name.clone()
    } else {
        format!("{} ({})", a.name, a.group)
    };
    Figure {
        measure,
        value: a.value.unwrap_or(0.0),
        text: if a.value.is_some() {
            text
        } else {
            "—".to_owned()
        },
        class,
        point: a.point_id.unwrap_or(0),
        label: a.point.clone(),
        load: a.load.unwrap_or(0),
        latency: if a.value.is_some() {
            a.latency.clone()
        } else {
            a.note.clone()
        },
        p99_ns: a.p99_ns.unwrap_or(0),
        mean_ns: a.mean_ns.unwrap_or(0.0),
        basis: a.rule.clone(),
        beside: Vec::new(),
        see: Vec::new(),
    }
}

/// One line per point whose data read back corrupted.
fn integrity_failures(doc: &ResultsDoc) -> Vec<String> {
    doc.points()
        .iter()
        .filter_map(|p| {
            let i = p.integrity.as_ref().filter(|i| i.corrupted() > 0)?;
            Some(format!(
                "point {}: {} of {} blocks checked corrupted ({})",
                p.point.id,
                units::thousands(i.corrupted() as f64),
                units::thousands(i.blocks_checked as f64),
                i.counts.summary()
            ))
        })
        .collect()
}

fn figure(
    measure: &str,
    r: &ClassRow,
    d: &DirView,
    value: f64,
    text: String,
    basis: &str,
) -> Figure {
    Figure {
        measure: measure.to_owned(),
        value,
        text,
        class: r.class.clone(),
        point: r.point,
        label: r.label.clone(),
        load: r.load,
        latency: format!(
            "p99 {}, mean {}",
            units::latency(d.latency.p99_ns as f64),
            units::latency(d.latency.mean_ns)
        ),
        p99_ns: d.latency.p99_ns,
        mean_ns: d.latency.mean_ns,
        basis: basis.to_owned(),
        beside: Vec::new(),
        see: Vec::new(),
    }
}

fn iops_text(v: f64) -> String {
    format!("{} IOPS", units::thousands(v))
}

/// The one unit of a rate of bytes in the handover: `units::mibps`, as every table and chart.
fn mbps_text(v: f64) -> String {
    units::mibps(v)
}
