//! Which charts a report gets, built from the context's views: IOPS and MB/s against load, latency
//! percentiles against load per class, and a heat map of small IOPS when the matrix is detailed.

mod answers;
mod axis;
pub(crate) mod bars;
mod heatmap;
pub(crate) mod hockey;
mod more;
mod overlay;
pub(crate) mod percentiles;
mod plot;
mod swept;
mod thin;
pub(crate) mod timeseries;
pub(crate) mod trend;
mod varied;

pub use answers::mark as mark_answer_charts;
pub use more::{chart_notes, more_charts};
pub use overlay::compare_overlay;

use crate::rows::{ClassRow, ClassView, Point, Row};
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
    /// Drawn on page 2 of the handover: an answer's figure against the load (`answers::mark`).
    pub answer: bool,
}

const X_LABEL: &str = "load (outstanding I/Os, or streams for sequential classes)";

/// The most series a chart's legend holds; more are split into small multiples sharing one scale.
pub(super) const MOST_SERIES: usize = 8;

/// The latency unit and scale every latency-against-load chart of a report shares, so that two
/// classes' charts side by side read alike: ms from a slowest p99.9 of 5 ms, a log axis when the
/// tail runs more than 20× above the fastest median.
#[derive(Clone, Copy, Debug)]
pub(super) struct LatencyScale {
    pub unit: &'static str,
    pub div: f64,
    pub log: bool,
    /// The fastest median and the slowest p99.9 over every class, in ns: each latency chart's axis
    /// reaches both, so sibling charts share one range.
    pub low_ns: f64,
    pub top_ns: f64,
}

pub(super) fn latency_scale(classes: &[ClassView]) -> LatencyScale {
    let rows = || {
        classes
            .iter()
            .flat_map(|c| &c.rows)
            .filter(|r| r.ok && r.load > 0)
    };
    let top = rows().map(|r| r.latency.p99_9_ns).max().unwrap_or(0);
    let low = rows().map(|r| r.latency.p50_ns.max(1)).min().unwrap_or(1);
    let (unit, div) = hockey::latency_unit(top as f64);
    LatencyScale {
        unit,
        div,
        log: top as f64 / low as f64 > 20.0,
        low_ns: low as f64,
        top_ns: top as f64,
    }
}

/// The latency figures a chart against load or a swept value draws, one line each.
type Measure = (&'static str, fn(&ClassRow) -> f64);
pub(super) const LATENCY_MEASURES: [Measure; 4] = [
    ("mean", |r| r.latency.mean_ns),
    ("p50", |r| r.latency.p50_ns as f64),
    ("p99", |r| r.latency.p99_ns as f64),
    ("p99.9", |r| r.latency.p99_9_ns as f64),
];

/// A series' legend name: the class, then what held still along it.
fn series_name(class: &str, key: &str, alone: bool) -> String {
    if alone || key.is_empty() {
        class.to_string()
    } else {
        format!("{class} @ {key}")
    }
}

/// One figure per at most [`MOST_SERIES`] lines, sharing the y scale: `title (2 of 3)`.
fn small_multiples(
    title: &str,
    lines: Vec<Line>,
    panel: impl Fn(Vec<Line>) -> Panel,
) -> Vec<Figure> {
    let all_y: Vec<f64> = lines
        .iter()
        .flat_map(|l| l.marks.iter().map(|m| m.y))
        .collect();
    let parts = varied::chunks(lines, MOST_SERIES);
    let n = parts.len();
    parts
        .into_iter()
        .enumerate()
        .map(|(i, part)| {
            let lines = part
                .into_iter()
                .enumerate()
                .map(|(j, l)| line(j, l.name, l.marks))
                .collect();
            let mut p = panel(lines);
            p.y_extent = vec![all_y.iter().copied().fold(0.0, f64::max)];
            Figure {
                title: if n > 1 {
                    format!("{title} ({} of {n})", i + 1)
                } else {
                    title.to_string()
                },
                panels: vec![p],
            }
        })
        .collect()
}

/// IOPS or MB/s against load: one line per class and what held still beside it, for the classes
/// whose own load varied. A class held at one load is drawn against what varied instead
/// ([`held_charts`]); one that ran under a single condition is a table row.
fn per_load_charts(
    classes: &[ClassView],
    title: &str,
    y_label: &str,
    unit: &str,
    value: fn(&ClassRow) -> f64,
) -> Vec<Figure> {
    let mut lines = Vec::new();
    for class in classes {
        let Some(v) = varied::varied(&class.name, &class.rows).filter(|v| v.own) else {
            continue;
        };
        // One series with every other class idle: the class's name says it all.
        let alone = v.series.len() == 1
            && v.series[0]
                .rows
                .iter()
                .all(|r| r.loads.iter().all(|l| l.class == class.name || l.load == 0));
        for s in &v.series {
            let marks = s
                .rows
                .iter()
                .map(|r| {
                    mark(
                        r,
                        value(r),
                        format!("{}: {:.2} {unit} {}", r.label, value(r), class.name),
                    )
                })
                .collect();
            lines.push(line(0, series_name(&class.name, &s.key, alone), marks));
        }
    }
    if lines.is_empty() {
        return Vec::new();
    }
    small_multiples(title, lines, |lines| {
        load_panel(
            X_LABEL,
            y_label.to_string(),
            Kind::Linear { integer: false },
            lines,
        )
    })
}

/// A class held at one load while another's varied: its IOPS (MB/s for large or sequential
/// classes) against the load that varied, one line per what else held still.
fn held_charts(classes: &[ClassView]) -> Vec<(String, Figure)> {
    let mut out = Vec::new();
    for class in classes {
        let Some(v) = varied::varied(&class.name, &class.rows).filter(|v| !v.own) else {
            continue;
        };
        let by_mbps = class.orion_role.as_deref() == Some("large")
            || (class.orion_role.is_none() && class.access == "sequential");
        let (what, value): (&str, fn(&ClassRow) -> f64) = if by_mbps {
            ("MiB/s", |r| r.mbps)
        } else {
            ("IOPS", |r| r.iops)
        };
        let lines: Vec<Line> = v
            .series
            .iter()
            .map(|s| {
                let marks = s
                    .rows
                    .iter()
                    .map(|r| Mark {
                        x: f64::from(v.x(r)),
                        y: value(r),
                        label: None,
                        hover: format!("{}: {:.2} {what}", r.label, value(r)),
                    })
                    .collect();
                line(
                    0,
                    series_name(&class.name, &s.key, v.series.len() == 1),
                    marks,
                )
            })
            .collect();
        let x_label = x_label_of(classes, &v.x_class);
        let title = format!("{}{} {what} vs {}", class.name, v.held_text(), v.x_name());
        for (i, fig) in small_multiples(&title, lines, |lines| {
            load_panel(
                &x_label,
                what.to_string(),
                Kind::Linear { integer: false },
                lines,
            )
        })
        .into_iter()
        .enumerate()
        {
            let suffix = if i == 0 {
                String::new()
            } else {
                format!("-{}", i + 1)
            };
            out.push((format!("held-{}{suffix}", slug(&class.name)), fig));
        }
    }
    out
}

/// `small load (outstanding I/Os)` or `large load (streams)`, by the class's access.
pub(super) fn x_label_of(classes: &[ClassView], class: &str) -> String {
    let sequential = classes
        .iter()
        .find(|c| c.name == class)
        .is_some_and(|c| c.access == "sequential");
    let what = if sequential {
        "streams"
    } else {
        "outstanding I/Os"
    };
    format!("{class} load ({what})")
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
fn load_panel(x_label: &str, y_label: String, y: Kind, lines: Vec<Line>) -> Panel {
    let xs: Vec<f64> = lines
        .iter()
        .flat_map(|l| l.marks.iter().map(|m| m.x))
        .collect();
    let x = Kind::for_loads(&xs);
    let x_label = match x {
        Kind::Log2 => format!("{x_label} (log₂ scale)"),
        _ => x_label.to_string(),
    };
    Panel {
        subtitle: String::new(),
        y_extent: Vec::new(),
        x_label,
        y_label,
        x,
        y,
        lines,
    }
}

/// The latency percentiles of one class in one `[sweep]` combination (`rows`) against what varied:
/// its own load, or the load of the class that varied beside it. The series drawn is the one with
/// the class alone where there is one, else the longest.
fn latency_chart(
    classes: &[ClassView],
    name: &str,
    rows: &[Row],
    scale: LatencyScale,
) -> Option<Figure> {
    let v = varied::varied(name, rows)?;
    let idle_beside = |s: &&varied::Series<'_>| {
        s.rows.iter().all(|r| {
            r.loads
                .iter()
                .all(|l| l.class == name || l.class == v.x_class || l.load == 0)
        })
    };
    let s = v
        .series
        .iter()
        .find(idle_beside)
        .or_else(|| v.series.iter().max_by_key(|s| s.rows.len()))?;
    if s.rows.len() < 2 {
        return None;
    }
    let LatencyScale {
        unit,
        div,
        log,
        low_ns,
        top_ns,
    } = scale;
    let lines = LATENCY_MEASURES
        .iter()
        .enumerate()
        .map(|(i, (stat, f))| {
            let marks = s
                .rows
                .iter()
                .map(|r| {
                    let y = f(r) / div;
                    Mark {
                        x: f64::from(v.x(r)),
                        y,
                        label: None,
                        hover: format!("{}: {stat} {y:.1} {unit}", r.label),
                    }
                })
                .collect();
            line(i, stat.to_string(), marks)
        })
        .collect();
    let beside = if s.key.is_empty() {
        String::new()
    } else {
        format!(" ({})", s.key)
    };
    let (y, y_label) = if log {
        (Kind::Log10, format!("latency ({unit}, log scale)"))
    } else {
        (Kind::Linear { integer: false }, format!("latency ({unit})"))
    };
    let x_label = if v.own {
        X_LABEL.to_string()
    } else {
        x_label_of(classes, &v.x_class)
    };
    let mut panel = load_panel(&x_label, y_label, y, lines);
    panel.y_extent = vec![low_ns / div, top_ns / div];
    Some(Figure {
        title: format!("{name}{} latency vs {}{beside}", v.held_text(), v.x_name()),
        panels: vec![panel],
    })
}

/// Small IOPS over (small load, large load), when points ran both classes at once.
fn heat_map(points: &[Point], small: &str, large: &str) -> Option<HeatMap> {
    let first_sweep = points.first().map(|p| {
        p.sweep
            .iter()
            .map(|b| (b.key.clone(), b.value.clone()))
            .collect::<Vec<_>>()
    });
    let same_sweep = |p: &Point| {
        Some(
            p.sweep
                .iter()
                .map(|b| (b.key.clone(), b.value.clone()))
                .collect::<Vec<_>>(),
        ) == first_sweep
    };
    let load = |p: &Point, c: &str| p.loads.iter().find(|l| l.class == c).map_or(0, |l| l.load);
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

pub fn charts(classes: &[ClassView], points: &[Point]) -> Vec<Chart> {
    let mut out = Vec::new();
    let mut push = |name: String, fig: &Figure| {
        out.push(Chart {
            file: format!("chart-{name}.svg"),
            name,
            title: fig.title.clone(),
            svg: fig.to_svg(),
            answer: false,
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
    let numbered = |base: &str, i: usize| {
        if i == 0 {
            base.to_string()
        } else {
            format!("{base}-{}", i + 1)
        }
    };
    let iops = per_load_charts(&without("large"), "IOPS vs load", "IOPS", "IOPS", |r| {
        r.iops
    });
    for (i, fig) in iops.iter().enumerate() {
        push(numbered("iops", i), fig);
    }
    let mbps = per_load_charts(&without("small"), "MiB/s vs load", "MiB/s", "MiB/s", |r| {
        r.mbps
    });
    for (i, fig) in mbps.iter().enumerate() {
        push(numbered("mbps", i), fig);
    }
    for (name, fig) in held_charts(classes) {
        push(name, &fig);
    }
    // One latency chart per class and `[sweep]` combination, all in one unit and scale.
    let scale = latency_scale(classes);
    for class in classes {
        for g in &class.groups {
            let Some(chart) = latency_chart(classes, &class.name, &g.rows, scale) else {
                continue;
            };
            let mut name = format!("latency-{}", slug(&class.name));
            for b in &g.sweep {
                name.push_str(&format!("-{}", slug(&format!("{}-{}", b.key, b.value))));
            }
            push(name, &chart);
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
            out.push(Chart {
                file: "chart-heatmap.svg".into(),
                name: "heatmap".into(),
                title: map.title.clone(),
                svg: map.to_svg(),
                answer: false,
            });
        }
    }
    out
}

/// A class name or `[sweep]` binding as a word of a chart's file name (`crate::names`).
pub(super) fn slug(name: &str) -> String {
    crate::names::file_word(name)
}
