//! ORION's view of a run: the matrix as ORION's CSV grids
//! (rows = large load, columns = small load), the summary's facts and the per-point histograms.
//! The byte layout itself lives in `templates/orion/`.

use super::context::PointView;
use super::orion_map::{orion_commandline, prefix, roles};
use super::{Dialect, ReportError, hist};
use crate::expr::Access;
use crate::plan::{Layout, MatrixShape, SweepBinding};
use crate::stats::{ClassResult, DirStats, PointResult, ResultsDoc};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct Grid {
    pub columns: Vec<u32>,
    pub rows: Vec<GridRow>,
}

/// One CSV row; `cells` align with the grid's columns and stop at the last tested cell.
#[derive(Clone, Debug, Serialize)]
pub struct GridRow {
    pub load: u32,
    pub cells: Vec<Option<f64>>,
}

/// A summary result line: the value and the point's (small, large) loads.
#[derive(Clone, Debug, Serialize)]
pub struct Peak {
    pub value: f64,
    pub small: u32,
    pub large: u32,
    /// 12c's `Small Read Latency:` / `Small Write Latency:` figures at this point, in µs.
    pub read: Option<LatencyLine>,
    pub write: Option<LatencyLine>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LatencyLine {
    pub avg: f64,
    pub min: f64,
    pub max: f64,
    pub stdev: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Lun {
    pub path: String,
    pub size: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct HistBucket {
    pub lo: u64,
    /// None for the catch-all bucket.
    pub hi: Option<u64>,
    pub read: u64,
    pub read_pct: f64,
    pub write: u64,
    pub write_pct: f64,
}

/// One histogram block of `_hist.txt`: a class role ("Small"/"Large") at a point.
#[derive(Clone, Debug, Serialize)]
pub struct HistBlock {
    pub kind: String,
    pub small: u32,
    pub large: u32,
    pub buckets: Vec<HistBucket>,
}

#[derive(Clone, Debug, Serialize)]
pub struct OrionView {
    /// `11.1` or `12c` (12c to 19c share a layout).
    pub dialect: String,
    /// The text after `ORION VERSION `.
    pub version: String,
    pub testname: String,
    pub prefix: String,
    pub commandline: String,
    pub small: Option<String>,
    pub large: Option<String>,
    pub small_kb: u64,
    pub large_kb: u64,
    pub io_types: String,
    pub large_sequential: bool,
    pub per_stream: u32,
    pub array_type: String,
    pub stripe_kb: u64,
    pub write_percent: u32,
    pub cache_size: String,
    pub duration_s: u64,
    pub small_columns: Vec<u32>,
    pub large_columns: Vec<u32>,
    pub total_points: u64,
    pub luns: Vec<Lun>,
    /// `ms` (11.1) or `us` (12c): the unit of `lat` cells and `min_latency.value`.
    pub latency_unit: String,
    pub max_mbps: Option<Peak>,
    pub max_iops: Option<Peak>,
    pub min_latency: Option<Peak>,
    pub iops: Grid,
    pub mbps: Grid,
    pub lat: Grid,
    pub hist: Vec<HistBlock>,
    /// This matrix's `[sweep]` values (empty without a sweep).
    pub sweep: Vec<SweepBinding>,
    /// This matrix's points, as the top-level `points`.
    pub points: Vec<PointView>,
}

/// What the caller decides about ORION's files.
pub struct OrionSettings<'a> {
    pub dialect: Dialect,
    pub testname: &'a str,
    pub version: &'a str,
}

fn levels(doc: &ResultsDoc, class: Option<&String>, pts: &[&PointResult]) -> Vec<u32> {
    let Some(class) = class else {
        return Vec::new();
    };
    let mut v: Vec<u32> = doc
        .plan
        .matrix
        .levels
        .iter()
        .filter(|l| l.class == *class)
        .flat_map(|l| l.levels.iter().copied())
        .chain(pts.iter().map(|p| p.point.load_of(class)))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn with_zero(mut v: Vec<u32>) -> Vec<u32> {
    if !v.contains(&0) {
        v.insert(0, 0);
    }
    v
}

fn without_zero(v: &[u32]) -> Vec<u32> {
    v.iter().copied().filter(|&l| l > 0).collect()
}

fn loads(p: &PointResult, small: Option<&String>, large: Option<&String>) -> (u32, u32) {
    let of = |c: Option<&String>| c.map_or(0, |c| p.point.load_of(c));
    (of(small), of(large))
}

fn active<'p>(p: &'p PointResult, class: Option<&String>) -> Option<&'p ClassResult> {
    let c = p.class(class?)?;
    (super::context::is_ok(p) && c.outstanding > 0 && c.total.ios > 0).then_some(c)
}

fn grid(columns: Vec<u32>, rows: Vec<u32>, cell: impl Fn(u32, u32) -> Option<f64>) -> Grid {
    let rows = rows
        .into_iter()
        .map(|l| {
            let mut cells: Vec<Option<f64>> = columns.iter().map(|&s| cell(s, l)).collect();
            while cells.last() == Some(&None) {
                cells.pop();
            }
            GridRow { load: l, cells }
        })
        .collect();
    Grid { columns, rows }
}

fn latency_line(d: &DirStats) -> LatencyLine {
    let l = &d.latency;
    LatencyLine {
        avg: l.mean_ns / 1e3,
        min: l.min_ns as f64 / 1e3,
        max: l.max_ns as f64 / 1e3,
        stdev: l.stdev_ns / 1e3,
    }
}

/// Reads and writes of a class, falling back to the total when the class does only one of them.
type Directions<'c> = (Option<&'c DirStats>, Option<&'c DirStats>);

fn directions(c: &ClassResult, read_percent: u8) -> Directions<'_> {
    let read = c
        .read
        .as_ref()
        .or((read_percent == 100).then_some(&c.total));
    let write = c.write.as_ref().or((read_percent == 0).then_some(&c.total));
    (read, write)
}

fn read_percent(doc: &ResultsDoc, p: &PointResult, class: &str) -> u8 {
    p.point
        .classes
        .iter()
        .find(|c| c.class == class)
        .map(|c| c.mix.read_percent)
        .or_else(|| {
            doc.plan
                .classes
                .iter()
                .find(|c| c.name == class)
                .map(|c| c.mix.read_percent)
        })
        .unwrap_or(100)
}

fn peak(doc: &ResultsDoc, p: &PointResult, class: &str, value: f64, at: (u32, u32)) -> Peak {
    let (read, write) = match p.class(class) {
        Some(c) => directions(c, read_percent(doc, p, class)),
        None => (None, None),
    };
    Peak {
        value,
        small: at.0,
        large: at.1,
        read: read.map(latency_line),
        write: write.map(latency_line),
    }
}

fn hist_block(
    doc: &ResultsDoc,
    p: &PointResult,
    class: &str,
    kind: &str,
    at: (u32, u32),
) -> Result<Option<HistBlock>, ReportError> {
    let Some(c) = p.class(class).filter(|c| c.outstanding > 0) else {
        return Ok(None);
    };
    let (read, write) = directions(c, read_percent(doc, p, class));
    let what = |dir: &str| format!("point {} class {class} {dir}", p.point.id);
    let counts = |d: Option<&DirStats>, dir: &str| -> Result<Vec<u64>, ReportError> {
        match d {
            Some(d) => Ok(hist::bucket_counts(&hist::decode(
                &d.histogram,
                &what(dir),
            )?)),
            None => Ok(vec![0; hist::bucket_bounds().len()]),
        }
    };
    let (r, w) = (counts(read, "read")?, counts(write, "write")?);
    let (rp, wp) = (hist::cumulative_percent(&r), hist::cumulative_percent(&w));
    let buckets = hist::bucket_bounds()
        .into_iter()
        .enumerate()
        .map(|(i, (lo, hi))| HistBucket {
            lo,
            hi,
            read: r[i],
            read_pct: rp[i],
            write: w[i],
            write_pct: wp[i],
        })
        .collect();
    Ok(Some(HistBlock {
        kind: kind.to_string(),
        small: at.0,
        large: at.1,
        buckets,
    }))
}

fn summary_columns(shape: MatrixShape, small: &[u32], large: &[u32]) -> (Vec<u32>, Vec<u32>) {
    match shape {
        // ORION prints the basic matrix this way (seen): small 0, large 0 and its levels.
        MatrixShape::Basic => (vec![0], with_zero(large.to_vec())),
        MatrixShape::Detailed | MatrixShape::Max => {
            (with_zero(small.to_vec()), with_zero(large.to_vec()))
        }
        MatrixShape::Point | MatrixShape::Row | MatrixShape::Col => {
            (small.to_vec(), large.to_vec())
        }
    }
}

fn max_by<'p>(
    pts: &[&'p PointResult],
    value: impl Fn(&PointResult) -> Option<f64>,
    lowest: bool,
) -> Option<(&'p PointResult, f64)> {
    let mut best: Option<(&PointResult, f64)> = None;
    for p in pts {
        if let Some(v) = value(p) {
            let better = best.is_none_or(|(_, b)| if lowest { v < b } else { v > b });
            if better {
                best = Some((p, v));
            }
        }
    }
    best
}

/// One ORION matrix: the points of one sweep combination, seen through the two roles.
struct Matrix<'a> {
    doc: &'a ResultsDoc,
    pts: &'a [&'a PointResult],
    small: Option<String>,
    large: Option<String>,
    /// 11.1: latency in milliseconds (else microseconds).
    ms: bool,
}

impl Matrix<'_> {
    fn at(&self, p: &PointResult) -> (u32, u32) {
        loads(p, self.small.as_ref(), self.large.as_ref())
    }

    fn lat_of(&self, ns: f64) -> f64 {
        if self.ms { ns / 1e6 } else { ns / 1e3 }
    }

    /// A figure of a role's class at the (small, large) cell, when that point ran it.
    fn cell(
        &self,
        role: &Option<String>,
        (s, l): (u32, u32),
        f: impl Fn(&ClassResult) -> f64,
    ) -> Option<f64> {
        let p = self.pts.iter().find(|p| self.at(p) == (s, l))?;
        active(p, role.as_ref()).map(f)
    }

    /// `_iops.csv`, `_lat.csv` and `_mbps.csv`.
    fn grids(&self, small_levels: &[u32], large_levels: &[u32]) -> (Grid, Grid, Grid) {
        let (cols, rows) = (without_zero(small_levels), with_zero(large_levels.to_vec()));
        let iops = grid(cols.clone(), rows.clone(), |s, l| {
            self.cell(&self.small, (s, l), |c| c.total.iops)
        });
        let lat = grid(cols, rows, |s, l| {
            self.cell(&self.small, (s, l), |c| {
                self.lat_of(c.total.latency.mean_ns)
            })
        });
        let mbps = grid(
            with_zero(small_levels.to_vec()),
            without_zero(large_levels),
            |s, l| self.cell(&self.large, (s, l), |c| c.total.mbps),
        );
        (iops, lat, mbps)
    }

    /// The summary's three result lines: max large MBPS, max small IOPS, min small mean latency.
    fn peaks(&self) -> [Option<Peak>; 3] {
        let best = |role: &Option<String>,
                    f: fn(&ClassResult) -> f64,
                    lowest: bool,
                    scale: &dyn Fn(f64) -> f64| {
            let name = role.clone().unwrap_or_default();
            max_by(self.pts, |p| active(p, role.as_ref()).map(f), lowest)
                .map(|(p, v)| peak(self.doc, p, &name, scale(v), self.at(p)))
        };
        [
            best(&self.large, |c| c.total.mbps, false, &|v| v),
            best(&self.small, |c| c.total.iops, false, &|v| v),
            best(&self.small, |c| c.total.latency.mean_ns, true, &|v| {
                self.lat_of(v)
            }),
        ]
    }

    /// `_hist.txt` blocks (12c only): each finished point, small then large.
    fn hist(&self) -> Result<Vec<HistBlock>, ReportError> {
        let mut blocks = Vec::new();
        if self.ms {
            return Ok(blocks);
        }
        for p in self.pts.iter().filter(|p| super::context::is_ok(p)) {
            for (name, kind) in [(&self.small, "Small"), (&self.large, "Large")] {
                if let Some(name) = name {
                    blocks.extend(hist_block(self.doc, p, name, kind, self.at(p))?);
                }
            }
        }
        Ok(blocks)
    }
}

pub fn orion_view(
    doc: &ResultsDoc,
    settings: &OrionSettings,
    group: (&[SweepBinding], &[&PointResult]),
    points: Vec<PointView>,
) -> Result<OrionView, ReportError> {
    let (sweep, pts) = group;
    let roles = roles(&doc.plan.classes);
    let role = |r: &str| roles.iter().find(|(_, v)| *v == r).map(|(k, _)| k.clone());
    let m = Matrix {
        doc,
        pts,
        small: role("small"),
        large: role("large"),
        ms: settings.dialect == Dialect::V11,
    };
    let class = |n: &Option<String>| {
        n.as_ref()
            .and_then(|n| doc.plan.classes.iter().find(|c| c.name == *n))
    };
    let (small_class, large_class) = (class(&m.small), class(&m.large));
    let small_levels = levels(doc, m.small.as_ref(), pts);
    let large_levels = levels(doc, m.large.as_ref(), pts);
    let (iops, lat, mbps) = m.grids(&small_levels, &large_levels);
    let [max_mbps, max_iops, min_latency] = m.peaks();
    let (small_columns, large_columns) =
        summary_columns(doc.plan.matrix.shape, &small_levels, &large_levels);
    let large_sequential = large_class.is_some_and(|c| c.access == Access::Sequential);
    let write_percent = [small_class, large_class]
        .into_iter()
        .flatten()
        .map(|c| 100 - u32::from(c.mix.read_percent.min(100)))
        .max()
        .unwrap_or(0);
    let large_io = if large_sequential {
        "Large Sequential Streams"
    } else {
        "Large Random IOs"
    };
    Ok(OrionView {
        dialect: settings.dialect.name().to_string(),
        version: settings.version.to_string(),
        testname: settings.testname.to_string(),
        prefix: prefix(doc, settings.testname, sweep),
        commandline: orion_commandline(&doc.command),
        small_kb: small_class.map_or(8, |c| c.size / 1024),
        large_kb: large_class.map_or(1024, |c| c.size / 1024),
        io_types: format!("Small Random IOs, {large_io}"),
        large_sequential,
        per_stream: large_class.map_or(1, |c| c.per_stream),
        array_type: match doc.plan.volume.layout {
            Layout::Concat => "CONCAT".to_string(),
            Layout::Raid0 => "RAID 0".to_string(),
        },
        stripe_kb: doc.plan.volume.stripe / 1024,
        write_percent,
        cache_size: "Not Entered".to_string(),
        duration_s: (doc.plan.run.duration_ms + 500) / 1000,
        small_columns,
        large_columns,
        total_points: doc.plan.orion_total_points,
        luns: doc
            .targets
            .iter()
            .map(|t| Lun {
                path: t.path.clone(),
                size: t.size,
            })
            .collect(),
        latency_unit: if m.ms { "ms" } else { "us" }.to_string(),
        max_mbps,
        max_iops,
        min_latency,
        iops,
        mbps,
        lat,
        hist: m.hist()?,
        sweep: sweep.to_vec(),
        points,
        small: m.small,
        large: m.large,
    })
}
