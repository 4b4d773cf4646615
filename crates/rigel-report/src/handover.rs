//! The handover summary's figures: the headline with the load and latency each was measured at,
//! the numbers a DBA passes on (8 KiB random-read IOPS at their p99, 1 MiB MB/s, redo write p99),
//! and the three figures Oracle's `DBMS_RESOURCE_MANAGER.CALIBRATE_IO` reports, each derived from
//! the per-class rows by the rule its `basis` states.

use super::rows::{Best, ClassRow, DirView, Headline, Point};
use rigel_expr::units;
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
    /// Max IOPS, max MB/s and min latency, each with its load and latency.
    pub headline: Vec<Figure>,
    pub random_read_8k: Option<Figure>,
    pub mbps_1m: Option<Figure>,
    pub redo_write: Option<Figure>,
    pub calibrate_io: CalibrateIo,
}

pub fn handover(points: &[Point], headline: &Headline) -> Handover {
    let rows: Vec<&ClassRow> = points
        .iter()
        .filter(|p| p.ok)
        .flat_map(|p| p.classes.iter().map(|r| &**r))
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
    let headline_rows = [
        best(&headline.max_iops, "Max IOPS", &|v| iops_text(v)),
        best(&headline.max_mbps, "Max MB/s", &|v| mbps_text(v)),
        best(&headline.min_latency, "Min mean latency", &|v| {
            units::latency(v)
        }),
    ]
    .into_iter()
    .flatten()
    .collect();
    let random_read_8k = best_read(
        &rows,
        |r| r.size == 8 * KIB && r.access == "random",
        "8 KiB random-read IOPS",
        "the highest read IOPS of the 8 KiB random classes (read-only ones first), with the p99 of \
         those reads",
        |d| d.iops,
        iops_text,
    );
    let mbps_1m = pick(
        &rows,
        |r| r.size == MIB,
        |r| r.mbps,
        |r| {
            let v = r.mbps;
            figure(
                "1 MiB MB/s",
                r,
                &total(r),
                v,
                mbps_text(v),
                "the highest MB/s (MiB/s) of the 1 MiB classes",
            )
        },
    );
    let redo_write = redo(&rows);
    let iops_from = best_read(
        &rows,
        |r| r.size <= 32 * KIB && r.access == "random" && r.read_percent == 100,
        "max_iops",
        "the highest IOPS of a read-only random class of database-block size (at most 32 KiB); no \
         latency limit is applied",
        |d| d.iops,
        iops_text,
    );
    let mbps_from = best_read(
        &rows,
        |r| r.size >= MIB && r.read_percent == 100,
        "max_mbps",
        "the highest MB/s (MiB/s, as Oracle's MB) of a read-only class of 1 MiB or larger I/Os",
        |d| d.mbps,
        mbps_text,
    );
    Handover {
        headline: headline_rows,
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
/// 128 KiB; the p99 at its lowest load (a log writer waits on each write).
fn redo(rows: &[&ClassRow]) -> Option<Figure> {
    let named: Vec<&ClassRow> = rows
        .iter()
        .copied()
        .filter(|r| r.class.to_ascii_lowercase().contains("redo") && r.write.is_some())
        .collect();
    let from = if named.is_empty() {
        rows.iter()
            .copied()
            .filter(|r| r.read_percent == 0 && r.access == "sequential" && r.size <= 128 * KIB)
            .collect()
    } else {
        named
    };
    let row = from.into_iter().min_by_key(|r| {
        (
            r.load,
            r.write.as_ref().map_or(u64::MAX, |w| w.latency.p99_ns),
        )
    })?;
    let write = row.write.as_ref()?;
    let v = write.latency.p99_ns as f64;
    Some(figure(
        "Redo write p99",
        row,
        write,
        v,
        units::latency(v),
        "the write p99 of a class named `redo` (else a write-only sequential class of at most \
         128 KiB) at its lowest load",
    ))
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

fn mbps_text(v: f64) -> String {
    format!("{} MB/s", units::number(v))
}
