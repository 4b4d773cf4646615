//! ORION's view of a run: the matrix as ORION's CSV grids
//! (rows = large load, columns = small load), the summary's facts and the per-point histograms.
//! The byte layout itself lives in `templates/orion/`.

pub(crate) mod printf;

mod hist;
mod map;
mod templates;

pub use templates::{TEMPLATES, kinds};

use crate::rows::PointView;
use crate::{Dialect, ReportError};
use map::{cache_size, orion_commandline, prefix};
use rigel_expr::{Access, Direction, LatencyStat, Stat};
use rigel_plan::{Layout, MatrixShape, SweepBinding};
use rigel_results::stats::{Evidence, Warning};
use rigel_results::view::{self, ClassRead, Figures, Group, PointRead, ResultsView};
use serde::Serialize;
use std::collections::HashMap;

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
    /// rigel's note of the engine when it was not io_uring (ORION's own files, and rigel's of an
    /// io_uring run, have no such line): `libaio (auto fell back: …)`.
    pub engine: Option<String>,
    /// rigel's notes on what the volume did in this matrix (a rate cap), after ORION's own
    /// lines: ORION's files have none, and scripts that read ORION's lines read them unchanged.
    pub notes: Vec<String>,
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
    pub points: Vec<crate::rows::Shared<PointView>>,
}

/// What the caller decides about ORION's files.
pub struct OrionSettings<'a> {
    pub dialect: Dialect,
    pub testname: &'a str,
    pub version: &'a str,
}

fn levels(view: &ResultsView, class: Option<&str>, pts: &[&PointRead]) -> Vec<u32> {
    let Some(class) = class else {
        return Vec::new();
    };
    let mut v: Vec<u32> = view
        .doc
        .plan()
        .matrix
        .levels
        .iter()
        .filter(|l| l.class == class)
        .flat_map(|l| l.levels.iter().copied())
        .chain(pts.iter().map(|p| p.load_of(class)))
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

/// A grid over `columns` × `rows`, each row filled up to its last tested cell (`at` holds the
/// cells that have a point). The cost is the points' and the rows', not columns × rows: a
/// 5,000-level matrix has 25 million cells of which 10,000 were measured.
fn grid(
    columns: Vec<u32>,
    rows: Vec<u32>,
    at: &HashMap<(u32, u32), usize>,
    cell: impl Fn(u32, u32) -> Option<f64>,
) -> Grid {
    let column_of: HashMap<u32, usize> = columns.iter().enumerate().map(|(i, &s)| (s, i)).collect();
    let mut last: HashMap<u32, usize> = HashMap::new();
    for &(s, l) in at.keys() {
        if let Some(&i) = column_of.get(&s) {
            let end = last.entry(l).or_insert(i);
            *end = (*end).max(i);
        }
    }
    let rows = rows
        .into_iter()
        .map(|l| {
            let end = last.get(&l).map_or(0, |&i| i + 1);
            let mut cells: Vec<Option<f64>> = columns[..end].iter().map(|&s| cell(s, l)).collect();
            while cells.last() == Some(&None) {
                cells.pop();
            }
            GridRow { load: l, cells }
        })
        .collect();
    Grid { columns, rows }
}

fn latency_line(f: &Figures) -> LatencyLine {
    let l = &f.latency;
    LatencyLine {
        avg: l.mean_ns / 1e3,
        min: l.min_ns as f64 / 1e3,
        max: l.max_ns as f64 / 1e3,
        stdev: l.stdev_ns / 1e3,
    }
}

fn hist_block(
    p: &PointRead,
    c: &ClassRead,
    kind: &str,
    at: (u32, u32),
) -> Result<HistBlock, ReportError> {
    let what = |dir: &str| format!("point {} class {} {dir}", p.id(), c.name());
    let counts = |d: Direction| -> Result<Vec<u64>, ReportError> {
        match c.stats(d) {
            Some(s) => Ok(hist::bucket_counts(&hist::decode(
                &s.histogram,
                &what(d.name()),
            )?)),
            None => Ok(vec![0; hist::bucket_bounds().len()]),
        }
    };
    let (r, w) = (counts(Direction::Read)?, counts(Direction::Write)?);
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
    Ok(HistBlock {
        kind: kind.to_string(),
        small: at.0,
        large: at.1,
        buckets,
    })
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

/// One ORION matrix: the points of one sweep combination, seen through the two roles.
struct Matrix<'v, 'a> {
    view: &'v ResultsView<'a>,
    pts: &'v [&'v PointRead<'a>],
    small: Option<&'v str>,
    large: Option<&'v str>,
    /// 11.1: latency in milliseconds (else microseconds).
    ms: bool,
    /// The first point at each (small, large) cell, by its place in `pts`.
    cells: HashMap<(u32, u32), usize>,
}

impl Matrix<'_, '_> {
    fn at(&self, p: &PointRead) -> (u32, u32) {
        let of = |c: Option<&str>| c.map_or(0, |c| p.load_of(c));
        (of(self.small), of(self.large))
    }

    fn lat_of(&self, ns: f64) -> f64 {
        if self.ms { ns / 1e6 } else { ns / 1e3 }
    }

    /// A total figure of a role's class at the (small, large) cell, when that point counts for it.
    fn cell(&self, role: Option<&str>, (s, l): (u32, u32), stat: Stat) -> Option<f64> {
        let p = self.pts[*self.cells.get(&(s, l))?];
        p.class(role?)?.value(Direction::Total, stat)
    }

    /// `_iops.csv`, `_lat.csv` and `_mbps.csv`.
    fn grids(&self, small_levels: &[u32], large_levels: &[u32]) -> (Grid, Grid, Grid) {
        let (cols, rows) = (without_zero(small_levels), with_zero(large_levels.to_vec()));
        let iops = grid(cols.clone(), rows.clone(), &self.cells, |s, l| {
            self.cell(self.small, (s, l), Stat::Iops)
        });
        let lat = grid(cols, rows, &self.cells, |s, l| {
            self.cell(self.small, (s, l), Stat::Latency(LatencyStat::Mean))
                .map(|ns| self.lat_of(ns))
        });
        let mbps = grid(
            with_zero(small_levels.to_vec()),
            without_zero(large_levels),
            &self.cells,
            |s, l| self.cell(self.large, (s, l), Stat::Mbps),
        );
        (iops, lat, mbps)
    }

    /// The summary's three result lines, by the model's headline rule over this matrix's points.
    fn peaks(&self) -> [Option<Peak>; 3] {
        let h = self.view.headline(self.pts);
        let peak = |b: Option<view::Best>, scale: &dyn Fn(f64) -> f64| {
            b.map(|b| {
                let at = self.at(b.point);
                Peak {
                    value: scale(b.value),
                    small: at.0,
                    large: at.1,
                    read: b.class.counted(Direction::Read).as_ref().map(latency_line),
                    write: b.class.counted(Direction::Write).as_ref().map(latency_line),
                }
            })
        };
        [
            peak(h.max_mbps, &|v| v),
            peak(h.max_iops, &|v| v),
            peak(h.min_latency, &|v| self.lat_of(v)),
        ]
    }

    /// `_hist.txt` blocks (12c only): each finished point, small then large.
    fn hist(&self) -> Result<Vec<HistBlock>, ReportError> {
        let mut blocks = Vec::new();
        if self.ms {
            return Ok(blocks);
        }
        for p in self.pts.iter().filter(|p| p.ok) {
            for (name, kind) in [(self.small, "Small"), (self.large, "Large")] {
                if let Some(c) = name.and_then(|n| p.class(n)).filter(|c| c.runs()) {
                    blocks.push(hist_block(p, c, kind, self.at(p))?);
                }
            }
        }
        Ok(blocks)
    }
}

/// The volume findings (`volume_findings`, computed once for every matrix) whose points are this
/// matrix's.
fn notes(findings: &[Warning], group: &Group) -> Vec<String> {
    let ids: Vec<u32> = group.points.iter().map(|p| p.id()).collect();
    findings
        .iter()
        .filter(|w| match &w.evidence {
            Some(Evidence::RateCap(c)) => c.points.iter().all(|p| ids.contains(p)),
            Some(Evidence::BurstStep(b)) => ids.contains(&b.point),
            // The class's first reads summed over the run: told in each matrix that had some.
            Some(Evidence::FirstTouch(t)) => t.points.iter().any(|p| ids.contains(p)),
            None => false,
        })
        .map(|w| w.message.clone())
        .collect()
}

/// The summary's peaks taken before a burst bucket ran out: ORION's lines stay as ORION writes
/// them, and a note says which are burst figures and what the volume holds.
fn burst_notes(findings: &[Warning], m: &Matrix) -> Vec<String> {
    let h = m.view.headline(m.pts);
    let peaks = [
        ("Maximum Large MBPS", h.max_mbps),
        ("Maximum Small IOPS", h.max_iops),
        ("Minimum Small Latency", h.min_latency),
    ];
    let mut out = Vec::new();
    for (name, best) in peaks {
        let Some(best) = best else { continue };
        let on_credit = findings
            .iter()
            .find(|w| w.kind == "burst-figure" && w.points.contains(&best.point.id()));
        if let Some(w) = on_credit {
            out.push(format!("{name} ({}): {}", best.point.label(), w.message));
        }
    }
    out
}

/// ORION's view of one `[sweep]` combination: its sizes, access, mix and streams are the
/// combination's effective ones (`Small IO size: 4 KB` for the 4 KiB combination).
pub fn orion_view(
    view: &ResultsView,
    settings: &OrionSettings,
    group: &Group,
    points: Vec<crate::rows::Shared<PointView>>,
    findings: &[Warning],
) -> Result<OrionView, ReportError> {
    let doc = view.doc;
    let mut m = Matrix {
        view,
        pts: &group.points,
        small: view.role("small"),
        large: view.role("large"),
        ms: settings.dialect == Dialect::V11,
        cells: HashMap::new(),
    };
    for (i, p) in m.pts.iter().enumerate() {
        let at = m.at(p);
        m.cells.entry(at).or_insert(i);
    }
    let params = |n: Option<&str>| n.and_then(|n| view.params_in(group.sweep, n));
    let (small_class, large_class) = (params(m.small), params(m.large));
    let small_levels = levels(view, m.small, m.pts);
    let large_levels = levels(view, m.large, m.pts);
    let (iops, lat, mbps) = m.grids(&small_levels, &large_levels);
    let [max_mbps, max_iops, min_latency] = m.peaks();
    let (small_columns, large_columns) =
        summary_columns(doc.plan().matrix.shape, &small_levels, &large_levels);
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
        prefix: prefix(doc, settings.testname, group.sweep),
        commandline: orion_commandline(doc.command()),
        small_kb: small_class.map_or(8, |c| c.size / 1024),
        large_kb: large_class.map_or(1024, |c| c.size / 1024),
        io_types: format!("Small Random IOs, {large_io}"),
        large_sequential,
        per_stream: large_class.map_or(1, |c| c.per_stream),
        array_type: match doc.plan().volume.layout {
            Layout::Concat => "CONCAT".to_string(),
            Layout::Raid0 => "RAID 0".to_string(),
        },
        stripe_kb: doc.plan().volume.stripe / 1024,
        write_percent,
        cache_size: cache_size(doc.command()),
        engine: (rigel_results::stats::engines::engine_names(doc.points()) != ["io_uring"])
            .then(|| rigel_results::stats::engines::engines_text(doc.points()))
            .flatten(),
        notes: notes(findings, group)
            .into_iter()
            .chain(burst_notes(findings, &m))
            .collect(),
        duration_s: (doc.plan().run.duration_ms + 500) / 1000,
        small_columns,
        large_columns,
        total_points: doc.plan().orion_total_points,
        luns: doc
            .targets()
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
        sweep: group.sweep.to_vec(),
        points,
        small: m.small.map(str::to_string),
        large: m.large.map(str::to_string),
    })
}
