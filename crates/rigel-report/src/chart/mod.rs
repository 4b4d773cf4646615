//! Which charts a report gets, built from the context's views: IOPS and MB/s against load, latency
//! percentiles against load per class, and a heat map of small IOPS when the matrix is detailed.

mod axis;
pub(crate) mod bars;
mod heatmap;
pub(crate) mod hockey;
mod more;
mod overlay;
pub(crate) mod percentiles;
mod plot;
pub(crate) mod timeseries;
pub(crate) mod trend;

pub use more::more_charts;
pub use overlay::compare_overlay;

use crate::rows::{ClassRow, ClassView, PointView};
use axis::Kind;
use heatmap::HeatMap;
use plot::{Figure, Line, Mark, Panel};
use serde::Serialize;
use std::collections::BTreeMap;

/// One chart: `file` is its name beside the Markdown report, `svg` the whole `<svg>` element.
#[derive(Clone, Debug, Serialize)]
pub struct Chart {
    pub name: String,
    pub title: String,
    pub file: String,
    pub svg: String,
}

const X_LABEL: &str = "load (outstanding I/Os, or streams for sequential classes)";

/// What else was running at this row's point: `large=1`, plus any sweep values.
fn context_key(row: &ClassRow) -> String {
    let mut parts: Vec<String> = row
        .loads
        .iter()
        .filter(|l| l.class != row.class)
        .map(|l| format!("{}={}", l.class, l.load))
        .collect();
    parts.extend(row.sweep.iter().map(|b| format!("{}={}", b.key, b.value)));
    parts.join(" ")
}

fn alone(row: &ClassRow) -> bool {
    row.loads
        .iter()
        .all(|l| l.class == row.class || l.load == 0)
}

/// A class's finished rows split by what ran beside them, in first-seen order.
pub(super) fn groups(rows: &[ClassRow]) -> Vec<(String, Vec<&ClassRow>)> {
    let mut out: Vec<(String, Vec<&ClassRow>)> = Vec::new();
    for r in rows.iter().filter(|r| r.ok) {
        let key = context_key(r);
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, rows)) => rows.push(r),
            None => out.push((key, vec![r])),
        }
    }
    for (_, rows) in &mut out {
        rows.sort_by_key(|r| r.load);
    }
    out
}

fn series_name(class: &ClassView, key: &str, single: bool) -> String {
    if single || key.is_empty() {
        class.name.clone()
    } else {
        format!("{} @ {key}", class.name)
    }
}

fn per_load_chart(
    classes: &[ClassView],
    title: &str,
    y_label: &str,
    unit: &str,
    value: fn(&ClassRow) -> f64,
) -> Figure {
    let mut lines = Vec::new();
    for class in classes {
        let groups = groups(&class.rows);
        let single = groups.len() == 1 && groups[0].1.iter().all(|r| alone(r));
        for (key, rows) in &groups {
            let marks = rows
                .iter()
                .map(|r| {
                    mark(
                        r,
                        value(r),
                        format!("{}: {:.2} {unit} {}", r.label, value(r), class.name),
                    )
                })
                .collect();
            lines.push(line(lines.len(), series_name(class, key, single), marks));
        }
    }
    load_figure(
        title,
        y_label.to_string(),
        Kind::Linear { integer: false },
        lines,
    )
}

fn mark(r: &ClassRow, y: f64, hover: String) -> Mark {
    Mark {
        x: f64::from(r.load),
        y,
        label: None,
        hover,
    }
}

/// The `i`th line of a chart: the palette's colours first, then the same colours dashed.
fn line(i: usize, name: String, marks: Vec<Mark>) -> Line {
    Line {
        name,
        colour: i,
        dashed: (i / plot::PALETTE.len()) % 2 == 1,
        marks,
    }
}

/// One panel against load: geometric load levels (`1..=128 x2`) on a log₂ axis, so that 1–8 are
/// not crammed to the left.
fn load_figure(title: &str, y_label: String, y: Kind, lines: Vec<Line>) -> Figure {
    let xs: Vec<f64> = lines
        .iter()
        .flat_map(|l| l.marks.iter().map(|m| m.x))
        .collect();
    let x = Kind::for_loads(&xs);
    let x_label = match x {
        Kind::Log2 => format!("{X_LABEL} (log₂ scale)"),
        _ => X_LABEL.to_string(),
    };
    Figure {
        title: title.to_string(),
        panels: vec![Panel {
            subtitle: String::new(),
            x_label,
            y_label,
            x,
            y,
            lines,
        }],
    }
}

/// The latency percentiles of one class in one `[sweep]` combination (`rows`) against its load.
fn latency_chart(name: &str, rows: &[ClassRow]) -> Option<Figure> {
    let groups = groups(rows);
    let (key, rows) = groups
        .iter()
        .find(|(_, rows)| rows.iter().all(|r| alone(r)))
        .or_else(|| groups.iter().max_by_key(|(_, rows)| rows.len()))?;
    let top = rows.iter().map(|r| r.latency.p99_9_ns).max().unwrap_or(0);
    let (unit, div) = if top >= 5_000_000 {
        ("ms", 1e6)
    } else {
        ("µs", 1e3)
    };
    type Measure = (&'static str, fn(&ClassRow) -> f64);
    let measures: [Measure; 4] = [
        ("mean", |r| r.latency.mean_ns),
        ("p50", |r| r.latency.p50_ns as f64),
        ("p99", |r| r.latency.p99_ns as f64),
        ("p99.9", |r| r.latency.p99_9_ns as f64),
    ];
    let lines = measures
        .iter()
        .enumerate()
        .map(|(i, (name, f))| {
            let marks = rows
                .iter()
                .map(|r| {
                    let v = f(r) / div;
                    mark(r, v, format!("{}: {name} {v:.1} {unit}", r.label))
                })
                .collect();
            line(i, name.to_string(), marks)
        })
        .collect();
    let beside = if key.is_empty() {
        String::new()
    } else {
        format!(" ({key})")
    };
    // Tail percentiles far above the median flatten a linear axis: switch to a log one.
    let low = rows
        .iter()
        .map(|r| r.latency.p50_ns.max(1))
        .min()
        .unwrap_or(1);
    let log_y = top as f64 / low as f64 > 20.0;
    let (y, y_label) = if log_y {
        (Kind::Log10, format!("latency ({unit}, log scale)"))
    } else {
        (Kind::Linear { integer: false }, format!("latency ({unit})"))
    };
    Some(load_figure(
        &format!("{name} latency vs load{beside}"),
        y_label,
        y,
        lines,
    ))
}

/// Small IOPS over (small load, large load), when points ran both classes at once.
fn heat_map(points: &[PointView], small: &str, large: &str) -> Option<HeatMap> {
    let first_sweep = points.first().map(|p| {
        p.sweep
            .iter()
            .map(|b| (b.key.clone(), b.value.clone()))
            .collect::<Vec<_>>()
    });
    let same_sweep = |p: &PointView| {
        Some(
            p.sweep
                .iter()
                .map(|b| (b.key.clone(), b.value.clone()))
                .collect::<Vec<_>>(),
        ) == first_sweep
    };
    let load = |p: &PointView, c: &str| p.loads.iter().find(|l| l.class == c).map_or(0, |l| l.load);
    let mut cells: BTreeMap<(u32, u32), f64> = BTreeMap::new();
    for p in points.iter().filter(|p| p.ok && same_sweep(p)) {
        if let Some(row) = p.c.get(small) {
            cells.insert((load(p, small), load(p, large)), row.iops);
        }
    }
    if !cells.keys().any(|&(s, l)| s > 0 && l > 0) {
        return None;
    }
    let mut columns: Vec<u32> = cells.keys().map(|k| k.0).collect();
    let mut rows: Vec<u32> = cells.keys().map(|k| k.1).collect();
    columns.sort_unstable();
    columns.dedup();
    rows.sort_unstable();
    rows.dedup();
    let grid = rows
        .iter()
        .map(|&l| {
            columns
                .iter()
                .map(|&s| cells.get(&(s, l)).copied())
                .collect()
        })
        .collect();
    Some(HeatMap {
        title: format!("{small} IOPS over ({small}, {large}) loads"),
        x_label: format!("{small} load"),
        y_label: format!("{large} load"),
        columns,
        rows,
        cells: grid,
    })
}

pub fn charts(classes: &[ClassView], points: &[PointView]) -> Vec<Chart> {
    let mut out = Vec::new();
    let mut push = |name: String, title: String, svg: String| {
        out.push(Chart {
            file: format!("chart-{name}.svg"),
            name,
            title,
            svg,
        });
    };
    // ORION's habit, and a readable scale: IOPS for small I/O, MB/s for large; unmapped classes in both.
    let without = |role: &str| -> Vec<ClassView> {
        let kept: Vec<ClassView> = classes
            .iter()
            .filter(|c| c.orion_role.as_deref() != Some(role))
            .cloned()
            .collect();
        if kept.is_empty() {
            classes.to_vec()
        } else {
            kept
        }
    };
    let iops = per_load_chart(&without("large"), "IOPS vs load", "IOPS", "IOPS", |r| {
        r.iops
    });
    push("iops".into(), iops.title.clone(), iops.to_svg());
    let mbps = per_load_chart(
        &without("small"),
        "MB/s vs load (MiB/s)",
        "MB/s (MiB/s)",
        "MB/s",
        |r| r.mbps,
    );
    push("mbps".into(), mbps.title.clone(), mbps.to_svg());
    // One latency chart per class and `[sweep]` combination: each combination keeps its series.
    for class in classes {
        for g in &class.groups {
            let Some(chart) = latency_chart(&class.name, &g.rows) else {
                continue;
            };
            let mut name = format!("latency-{}", slug(&class.name));
            for b in &g.sweep {
                name.push_str(&format!("-{}", slug(&format!("{}-{}", b.key, b.value))));
            }
            push(name, chart.title.clone(), chart.to_svg());
        }
    }
    let role = |r: &str| {
        classes
            .iter()
            .find(|c| c.orion_role.as_deref() == Some(r))
            .map(|c| c.name.clone())
    };
    if let (Some(small), Some(large)) = (role("small"), role("large")) {
        if let Some(map) = heat_map(points, &small, &large) {
            push("heatmap".into(), map.title.clone(), map.to_svg());
        }
    }
    out
}

pub(super) fn slug(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}
