//! The handover summary's figures: the headline with the load and latency each was measured at,
//! the numbers a DBA passes on (8 KiB random-read IOPS at their p99, 1 MiB MB/s, redo write p99),
//! and the three figures Oracle's `DBMS_RESOURCE_MANAGER.CALIBRATE_IO` reports, each derived from
//! the per-class rows by the rule its `basis` states.
//!
//! Rules every figure keeps: only rows that count (a whole point, not a search trial that failed
//! its target, the class's rate achieved); a class is the size most of its I/Os take; a search's
//! figures are its answer's trial; a log writer's latency is the worst, under the most load the
//! spec puts beside it; a data integrity failure comes before any figure.

use super::rows::{Best, ClassRow, DirView, Headline, Point};
use rigel_expr::units;
use rigel_results::{ResultsDoc, SearchRecord};
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
    /// Max IOPS, max MB/s and min latency, each with its load and latency; a search's answer
    /// alone for a search.
    pub headline: Vec<Figure>,
    /// Why there is no headline, when there is none.
    pub why_none: String,
    pub random_read_8k: Option<Figure>,
    pub mbps_1m: Option<Figure>,
    pub redo_write: Option<Figure>,
    pub calibrate_io: CalibrateIo,
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
}

pub fn handover(doc: &ResultsDoc, points: &[Point], headline: &Headline) -> Handover {
    let search = doc.search();
    // A search's figures are its answer's: its other trials probed rates the storage did or did
    // not hold, none of them the answer.
    let answer_point = search.as_ref().and_then(|s| answer_trial(s));
    let rows: Vec<&ClassRow> = points
        .iter()
        .filter(|p| p.ok && (search.is_none() || Some(p.id) == answer_point))
        .flat_map(|p| p.classes.iter().map(|r| &**r))
        .filter(|r| r.counted)
        .collect();
    let best = |b: &Option<Best>, measure: &str, text: &dyn Fn(f64) -> String| {
        let b = b.as_ref()?;
        let row = rows
            .iter()
            .find(|r| r.point == b.point && r.class == b.class)?;
        Some(figure(
            measure,
            row,
            &total(row),
            b.value,
            text(b.value),
            "the best point of any class",
        ))
    };
    let headline_rows = match &search {
        Some(s) => search_answer(s, &rows).into_iter().collect(),
        None => [
            best(&headline.max_iops, "Max IOPS", &|v| iops_text(v)),
            best(&headline.max_mbps, "Max MiB/s", &|v| mbps_text(v)),
            best(&headline.min_latency, "Min mean latency", &|v| {
                units::latency(v)
            }),
        ]
        .into_iter()
        .flatten()
        .collect(),
    };
    let integrity = integrity_failures(doc);
    let why_none = match &search {
        _ if !integrity.is_empty() => {
            "No figures to hand over: the data read back was corrupted (above).".to_owned()
        }
        Some(s) if s.answer.is_none() => format!("Search: {}.", s.summary),
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
    let random_read_8k = best_read(
        &rows,
        |r| r.io_size == 8 * KIB && r.access == "random",
        "8 KiB random-read IOPS",
        "the highest read IOPS of the 8 KiB random classes (read-only ones first), with the p99 of \
         those reads",
        |d| d.iops,
        iops_text,
    );
    let mbps_1m = pick(
        &rows,
        |r| r.io_size == MIB,
        |r| r.mbps,
        |r| {
            let v = r.mbps;
            figure(
                "1 MiB I/O MiB/s",
                r,
                &total(r),
                v,
                mbps_text(v),
                "the highest MiB/s of the 1 MiB classes",
            )
        },
    );
    let redo_write = redo(&rows);
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
    Handover {
        integrity,
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
    }
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

fn pick(
    rows: &[&ClassRow],
    keep: impl Fn(&ClassRow) -> bool,
    score: impl Fn(&ClassRow) -> f64,
    make: impl Fn(&ClassRow) -> Figure,
) -> Option<Figure> {
    rows.iter()
        .copied()
        .filter(|r| keep(r))
        .max_by(|a, b| score(a).total_cmp(&score(b)))
        .map(make)
}

/// Redo log writes: a class named `redo`, or else a write-only sequential class of at most
/// 128 KiB; its worst latency under the most load the spec puts beside it (a log writer's commit
/// waits on the write while the data classes run), the commit (write + flush) where the class
/// groups its writes into commits.
fn redo(rows: &[&ClassRow]) -> Option<Figure> {
    let named: Vec<&ClassRow> = rows
        .iter()
        .copied()
        .filter(|r| r.class.to_ascii_lowercase().contains("redo") && r.write.is_some())
        .collect();
    let from = if named.is_empty() {
        rows.iter()
            .copied()
            .filter(|r| r.read_percent == 0 && r.access == "sequential" && r.io_size <= 128 * KIB)
            .collect()
    } else {
        named
    };
    let side = |r: &ClassRow| -> u64 {
        r.loads
            .iter()
            .filter(|l| l.class != r.class)
            .map(|l| u64::from(l.load))
            .sum()
    };
    let lat = |r: &ClassRow| log_latency(r).map(|(_, d)| d.latency.p99_ns);
    let row = from
        .into_iter()
        .filter(|r| lat(r).is_some())
        .max_by_key(|r| (side(r), r.load, lat(r)))?;
    let (commit, d) = log_latency(row)?;
    let v = d.latency.p99_ns as f64;
    let (measure, what) = if commit {
        ("Commit p99 (write + flush)", "commit p99 (write + flush)")
    } else {
        ("Redo write p99", "write p99")
    };
    Some(figure(
        measure,
        row,
        &d,
        v,
        units::latency(v),
        &format!(
            "the {what} of a class named `redo` (else a write-only sequential class of at most \
             128 KiB) at the highest load of the other classes, then its own, the worst of equals"
        ),
    ))
}

/// A log writer's latency: its commits' (write + flush) where it groups writes into commits,
/// else its writes'; `true` for commits.
fn log_latency(r: &ClassRow) -> Option<(bool, DirView)> {
    match &r.commit {
        Some(c) if c.commits > 0 => Some((
            true,
            DirView {
                direction: "commit",
                ios: c.commits,
                bytes: 0,
                iops: c.per_s,
                mbps: 0.0,
                latency: c.latency.clone(),
            },
        )),
        _ => r.write.clone().map(|w| (false, w)),
    }
}

/// The point of the trial that gave a search its answer: the last that passed at the answer.
fn answer_trial(s: &SearchRecord) -> Option<u32> {
    let answer = s.answer?;
    s.trials
        .iter()
        .rev()
        .find(|t| t.passed && t.value == answer)
        .map(|t| t.point_id)
}

/// A search's answer as its headline, at its trial, "not confirmed" when no repeat passed.
fn search_answer(s: &SearchRecord, rows: &[&ClassRow]) -> Option<Figure> {
    let answer = s.answer?;
    let point = answer_trial(s)?;
    let row = rows
        .iter()
        .find(|r| r.point == point && r.class == s.class)?;
    let mut text = if s.knob == "rate" {
        iops_text(answer)
    } else {
        format!("load {}", units::thousands(answer))
    };
    if !s.confirmed {
        text.push_str(" (not confirmed)");
    }
    let d = row.read.clone().unwrap_or_else(|| total(row));
    Some(figure(
        &format!("Highest {} with {}", s.knob, s.target),
        row,
        &d,
        answer,
        text,
        "the search's answer: the highest value whose trial held the target, at that trial",
    ))
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

fn total(r: &ClassRow) -> DirView {
    DirView {
        direction: "total",
        ios: r.ios,
        bytes: r.bytes,
        iops: r.iops,
        mbps: r.mbps,
        latency: r.latency.clone(),
    }
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
    }
}

fn iops_text(v: f64) -> String {
    format!("{} IOPS", units::thousands(v))
}

/// The one unit of a rate of bytes in the handover: `units::mibps`, as every table and chart.
fn mbps_text(v: f64) -> String {
    units::mibps(v)
}
