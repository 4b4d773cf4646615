//! A class measured at one load over a `[sweep]` (log-writer's `log.size`): its latency against
//! the swept value, the chart its answers ("write p99 of log per size") are read from. Classes
//! whose load varied get theirs against the load (`latency_chart`).

use super::axis::Kind;
use super::plot::{Figure, Line, Mark, Panel};
use super::{LATENCY_MEASURES, LatencyScale, line, slug};
use crate::rows::{ClassRow, ClassView};

/// The swept key and each row's place along it: a size in KiB (or bytes below 1 KiB), else the
/// value as a number; none when the rows differ in more than one key, in their loads, or along a
/// key whose values are not numbers.
type Swept<'r> = (String, Option<&'static str>, Vec<(f64, &'r ClassRow)>);

fn swept_x<'r>(rows: &[&'r ClassRow]) -> Option<Swept<'r>> {
    let first = rows.first()?;
    let loads = |r: &ClassRow| r.loads.iter().map(|l| l.load).collect::<Vec<_>>();
    if rows.iter().any(|r| loads(r) != loads(first)) {
        return None;
    }
    let varying: Vec<&str> = first
        .sweep
        .iter()
        .map(|b| b.key.as_str())
        .filter(|k| {
            let value = |r: &ClassRow| {
                r.sweep
                    .iter()
                    .find(|b| b.key == *k)
                    .map(|b| b.value.clone())
            };
            rows.iter().any(|r| value(r) != value(first))
        })
        .collect();
    let [key] = varying.as_slice() else {
        return None;
    };
    let sizes = key.ends_with(".size") || key.ends_with("size");
    let kib = sizes && rows.iter().all(|r| r.io_size >= 1024);
    let mut xs = Vec::with_capacity(rows.len());
    for r in rows {
        let x = if sizes {
            r.io_size as f64 / if kib { 1024.0 } else { 1.0 }
        } else {
            let v = r.sweep.iter().find(|b| b.key == *key)?;
            v.value.trim().parse::<f64>().ok()?
        };
        xs.push((x, *r));
    }
    xs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let unit = match (sizes, kib) {
        (true, true) => Some("KiB"),
        (true, false) => Some("bytes"),
        _ => None,
    };
    Some((key.to_string(), unit, xs))
}

/// One chart per class that ran at a single load over two or more values of one swept key.
pub(super) fn swept_charts(classes: &[ClassView], scale: LatencyScale) -> Vec<(String, Figure)> {
    let mut out = Vec::new();
    for class in classes {
        let rows: Vec<&ClassRow> = class
            .rows
            .iter()
            .map(|r| &**r)
            .filter(|r| r.ok && r.load > 0)
            .collect();
        if rows.len() < 2 {
            continue;
        }
        let Some((key, unit, xs)) = swept_x(&rows) else {
            continue;
        };
        let values: Vec<f64> = xs.iter().map(|(x, _)| *x).collect();
        let x = Kind::for_loads(&values);
        let notes: Vec<&str> = unit
            .into_iter()
            .chain((x == Kind::Log2).then_some("log₂ scale"))
            .collect();
        let x_label = if notes.is_empty() {
            key.clone()
        } else {
            format!("{key} ({})", notes.join(", "))
        };
        let lines: Vec<Line> = LATENCY_MEASURES
            .iter()
            .enumerate()
            .map(|(i, (stat, f))| {
                let marks = xs
                    .iter()
                    .map(|(x, r)| {
                        let y = f(r) / scale.div;
                        Mark {
                            x: *x,
                            y,
                            label: None,
                            hover: format!("{}: {stat} {y:.1} {}", r.label, scale.unit),
                        }
                    })
                    .collect();
                line(i, stat.to_string(), marks)
            })
            .collect();
        let (y, y_label) = if scale.log {
            (Kind::Log10, format!("latency ({}, log scale)", scale.unit))
        } else {
            (
                Kind::Linear { integer: false },
                format!("latency ({})", scale.unit),
            )
        };
        out.push((
            format!("latency-{}-by-{}", slug(&class.name), slug(&key)),
            Figure {
                title: format!("{} latency vs {key}", class.name),
                panels: vec![Panel {
                    subtitle: String::new(),
                    x_label,
                    y_label,
                    x,
                    y,
                    lines,
                    y_extent: vec![scale.low_ns / scale.div, scale.top_ns / scale.div],
                }],
            },
        ));
    }
    out
}
