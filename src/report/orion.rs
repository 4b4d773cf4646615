//! ORION's view of a run: which classes are ORION's "small" and "large", the matrix as ORION's CSV grids
//! (rows = large load, columns = small load), the summary's facts and the per-point histograms.
//! The byte layout itself lives in `templates/orion/`.

use super::context::{PointView, shell_join};
use super::{Dialect, ReportError, hist};
use crate::expr::Access;
use crate::plan::{IoClass, Layout, MatrixShape, SweepBinding};
use crate::stats::{ClassResult, DirStats, PointResult, ResultsDoc};
use serde::Serialize;
use std::collections::BTreeMap;

/// A lone unnamed class at least this large (or sequential) is ORION's "large" class.
const LARGE_IO_FROM: u64 = 128 * 1024;

/// Maps classes to ORION's two roles: a class named `small` or `large` takes that role; a free
/// "small" role goes to the smallest random class left, a free "large" role to the largest class left.
/// A lone unnamed class is "large" when sequential or at least 128 KiB, else "small".
pub fn roles(classes: &[IoClass]) -> BTreeMap<String, String> {
    let mut roles = BTreeMap::new();
    for c in classes {
        let name = c.name.to_ascii_lowercase();
        if (name == "small" || name == "large") && !roles.values().any(|r| *r == name) {
            roles.insert(c.name.clone(), name);
        }
    }
    let has = |roles: &BTreeMap<String, String>, r: &str| roles.values().any(|v| v == r);
    let rest = |roles: &BTreeMap<String, String>| -> Vec<&IoClass> {
        classes
            .iter()
            .filter(|c| !roles.contains_key(&c.name))
            .collect()
    };
    if !has(&roles, "small") && !has(&roles, "large") && rest(&roles).len() == 1 {
        let c = rest(&roles)[0];
        let role = if c.access == Access::Sequential || c.size >= LARGE_IO_FROM {
            "large"
        } else {
            "small"
        };
        roles.insert(c.name.clone(), role.to_string());
        return roles;
    }
    if !has(&roles, "small") {
        let pick = rest(&roles)
            .into_iter()
            .filter(|c| c.access == Access::Random)
            .min_by_key(|c| c.size)
            .map(|c| c.name.clone());
        if let Some(name) = pick {
            roles.insert(name, "small".to_string());
        }
    }
    if !has(&roles, "large") {
        let pick = rest(&roles)
            .into_iter()
            .max_by_key(|c| c.size)
            .map(|c| c.name.clone());
        if let Some(name) = pick {
            roles.insert(name, "large".to_string());
        }
    }
    roles
}

/// Points sharing the same `[sweep]` values, in run order: ORION's files hold one matrix each.
pub fn sweep_groups(doc: &ResultsDoc) -> Vec<(Vec<SweepBinding>, Vec<&PointResult>)> {
    let mut groups: Vec<(Vec<SweepBinding>, Vec<&PointResult>)> = Vec::new();
    for p in &doc.points {
        match groups.iter_mut().find(|(s, _)| *s == p.point.sweep) {
            Some((_, pts)) => pts.push(p),
            None => groups.push((p.point.sweep.clone(), vec![p])),
        }
    }
    if groups.is_empty() {
        groups.push((Vec::new(), Vec::new()));
    }
    groups
}

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

pub fn orion_view(
    doc: &ResultsDoc,
    settings: &OrionSettings,
    group: (&[SweepBinding], &[&PointResult]),
    points: Vec<PointView>,
) -> Result<OrionView, ReportError> {
    let (sweep, pts) = group;
    let roles = roles(&doc.plan.classes);
    let role = |r: &str| roles.iter().find(|(_, v)| *v == r).map(|(k, _)| k.clone());
    let (small, large) = (role("small"), role("large"));
    let class = |n: &Option<String>| {
        n.as_ref()
            .and_then(|n| doc.plan.classes.iter().find(|c| c.name == *n))
    };
    let (small_class, large_class) = (class(&small), class(&large));
    let ms = settings.dialect == Dialect::V11;
    let lat_of = |ns: f64| if ms { ns / 1e6 } else { ns / 1e3 };
    let at = |p: &PointResult| loads(p, small.as_ref(), large.as_ref());
    let cell_point = |s: u32, l: u32| pts.iter().find(|p| at(p) == (s, l));

    let small_levels = levels(doc, small.as_ref(), pts);
    let large_levels = levels(doc, large.as_ref(), pts);
    let iops = grid(
        without_zero(&small_levels),
        with_zero(large_levels.clone()),
        |s, l| {
            cell_point(s, l)
                .and_then(|p| active(p, small.as_ref()))
                .map(|c| c.total.iops)
        },
    );
    let lat = grid(
        without_zero(&small_levels),
        with_zero(large_levels.clone()),
        |s, l| {
            cell_point(s, l)
                .and_then(|p| active(p, small.as_ref()))
                .map(|c| lat_of(c.total.latency.mean_ns))
        },
    );
    let mbps = grid(
        with_zero(small_levels.clone()),
        without_zero(&large_levels),
        |s, l| {
            cell_point(s, l)
                .and_then(|p| active(p, large.as_ref()))
                .map(|c| c.total.mbps)
        },
    );

    let small_name = small.clone().unwrap_or_default();
    let large_name = large.clone().unwrap_or_default();
    let max_mbps = max_by(
        pts,
        |p| active(p, large.as_ref()).map(|c| c.total.mbps),
        false,
    )
    .map(|(p, v)| peak(doc, p, &large_name, v, at(p)));
    let max_iops = max_by(
        pts,
        |p| active(p, small.as_ref()).map(|c| c.total.iops),
        false,
    )
    .map(|(p, v)| peak(doc, p, &small_name, v, at(p)));
    let min_latency = max_by(
        pts,
        |p| active(p, small.as_ref()).map(|c| c.total.latency.mean_ns),
        true,
    )
    .map(|(p, v)| peak(doc, p, &small_name, lat_of(v), at(p)));

    let mut hist = Vec::new();
    if !ms {
        for p in pts.iter().filter(|p| super::context::is_ok(p)) {
            for (name, kind) in [(&small, "Small"), (&large, "Large")] {
                if let Some(name) = name {
                    hist.extend(hist_block(doc, p, name, kind, at(p))?);
                }
            }
        }
    }

    let (small_columns, large_columns) =
        summary_columns(doc.plan.matrix.shape, &small_levels, &large_levels);
    let large_sequential = large_class.is_some_and(|c| c.access == Access::Sequential);
    let write_percent = [small_class, large_class]
        .into_iter()
        .flatten()
        .map(|c| 100 - u32::from(c.mix.read_percent.min(100)))
        .max()
        .unwrap_or(0);
    let io_types = format!(
        "Small Random IOs, {}",
        if large_sequential {
            "Large Sequential Streams"
        } else {
            "Large Random IOs"
        }
    );
    Ok(OrionView {
        dialect: settings.dialect.name().to_string(),
        version: settings.version.to_string(),
        testname: settings.testname.to_string(),
        prefix: prefix(doc, settings.testname, sweep),
        commandline: orion_commandline(&doc.command),
        small_kb: small_class.map_or(8, |c| c.size / 1024),
        large_kb: large_class.map_or(1024, |c| c.size / 1024),
        io_types,
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
        latency_unit: if ms { "ms" } else { "us" }.to_string(),
        max_mbps,
        max_iops,
        min_latency,
        iops,
        mbps,
        lat,
        hist,
        sweep: sweep.to_vec(),
        points,
        small,
        large,
    })
}

/// ORION's command line: what followed `orion` when rigel ran as ORION, else rigel's whole command.
fn orion_commandline(command: &[String]) -> String {
    match command.iter().position(|a| a == "orion") {
        Some(i) if i <= 1 => shell_join(&command[i + 1..]),
        _ => shell_join(command),
    }
}

/// `<testname>_<yyyymmdd>_<hhmm>` from the run's start (in its own offset); a sweep adds its values
/// to the test name (`t-small.size-4KiB_20250101_1200`) so each matrix gets its own files.
pub fn prefix(doc: &ResultsDoc, testname: &str, sweep: &[SweepBinding]) -> String {
    let stamp = chrono::DateTime::parse_from_rfc3339(&doc.started)
        .map(|t| t.format("%Y%m%d_%H%M").to_string())
        .unwrap_or_else(|_| chrono::Local::now().format("%Y%m%d_%H%M").to_string());
    let mut name = testname.to_string();
    for b in sweep {
        let slug: String = format!("{}-{}", b.key, b.value)
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        name.push('-');
        name.push_str(&slug);
    }
    format!("{name}_{stamp}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Mix;

    fn class(name: &str, size: u64, access: Access) -> IoClass {
        IoClass {
            name: name.into(),
            size,
            access,
            mix: Mix::READ,
            per_stream: 1,
        }
    }

    fn role_of(classes: &[IoClass]) -> Vec<(String, String)> {
        roles(classes).into_iter().collect()
    }

    #[test]
    fn classes_named_small_and_large_take_their_roles() {
        let c = [
            class("large", 8192, Access::Random),
            class("small", 1 << 20, Access::Sequential),
        ];
        assert_eq!(
            role_of(&c),
            [
                ("large".into(), "large".into()),
                ("small".into(), "small".into())
            ]
        );
    }

    #[test]
    fn unnamed_classes_map_by_size_and_access() {
        let c = [
            class("scan", 1 << 20, Access::Sequential),
            class("oltp", 8192, Access::Random),
            class("log", 512, Access::Sequential),
        ];
        assert_eq!(
            role_of(&c),
            [
                ("oltp".into(), "small".into()),
                ("scan".into(), "large".into())
            ]
        );
        assert_eq!(
            role_of(&[class("r", 4096, Access::Random)]),
            [("r".into(), "small".into())]
        );
        assert_eq!(
            role_of(&[class("s", 4096, Access::Sequential)]),
            [("s".into(), "large".into())]
        );
        assert_eq!(
            role_of(&[
                class("small", 4096, Access::Random),
                class("x", 65536, Access::Random)
            ]),
            [
                ("small".into(), "small".into()),
                ("x".into(), "large".into())
            ]
        );
    }

    #[test]
    fn orion_commandline_is_what_followed_orion() {
        let cmd = ["rigel", "orion", "-run", "simple"].map(String::from);
        assert_eq!(orion_commandline(&cmd), "-run simple");
        let cmd = ["rigel", "run", "specs/orion/simple.toml"].map(String::from);
        assert_eq!(orion_commandline(&cmd), "rigel run specs/orion/simple.toml");
    }
}
