//! The overlay chart of `rigel compare`: both runs in one picture, IOPS against load, and mean and
//! p99 latency against IOPS per class, BASE solid and NEW dashed in the class's colour.

use super::axis::Kind;
use super::plot::{Figure, Line, Mark, Panel};
use rigel_expr::Direction;
use rigel_expr::units;
use rigel_results::ResultsDoc;
use rigel_results::view::ResultsView;

/// (load, IOPS, mean latency µs, p99 latency µs)
type Row = (f64, f64, f64, f64);

/// The rows of each ok point where `class` ran, by load, one series per sweep
/// combination (`io.size=4KiB`; empty without a sweep).
fn series(doc: &ResultsDoc, class: &str) -> Vec<(String, Vec<Row>)> {
    let view = ResultsView::new(doc);
    let mut out: Vec<(String, Vec<Row>)> = Vec::new();
    for p in &view.points {
        // Counted points only (the model's rule): finished, the class ran and completed I/O.
        let Some((c, f)) = p
            .class(class)
            .and_then(|c| Some((c, c.counted(Direction::Total)?)))
        else {
            continue;
        };
        let key: Vec<String> = p
            .sweep()
            .iter()
            .map(|b| format!("{}={}", b.key, b.value))
            .collect();
        let key = key.join(" ");
        let row = (
            f64::from(c.params.load),
            f.iops,
            f.latency.mean_ns / 1e3,
            f.latency.p99_ns as f64 / 1e3,
        );
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, rows)) => rows.push(row),
            None => out.push((key, vec![row])),
        }
    }
    for (_, rows) in &mut out {
        rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

pub fn compare_overlay(base: &ResultsDoc, new: &ResultsDoc) -> String {
    let mut by_load = Vec::new();
    let mut by_iops = Vec::new();
    let mut p99_by_iops = Vec::new();
    let mut colour = 0;
    for class in &base.plan().classes {
        let base_series = series(base, &class.name);
        for (key, _) in &base_series {
            for (run, doc, dashed) in [("BASE", base, false), ("NEW", new, true)] {
                let Some((_, s)) = series(doc, &class.name).into_iter().find(|(k, _)| k == key)
                else {
                    continue;
                };
                let name = if key.is_empty() {
                    format!("{} {run}", class.name)
                } else {
                    format!("{} @ {key} {run}", class.name)
                };
                let line = |xy: fn(&Row) -> (f64, f64)| Line {
                    name: name.clone(),
                    colour,
                    dashed,
                    marks: s
                        .iter()
                        .map(|p| {
                            let (x, y) = xy(p);
                            Mark {
                                x,
                                y,
                                label: None,
                                hover: format!(
                                    "{name}: load {}, {}, mean {}, p99 {}",
                                    p.0,
                                    units::iops(p.1),
                                    units::latency(p.2 * 1e3),
                                    units::latency(p.3 * 1e3)
                                ),
                            }
                        })
                        .collect(),
                };
                by_load.push(line(|p| (p.0, p.1)));
                by_iops.push(line(|p| (p.1, p.2)));
                p99_by_iops.push(line(|p| (p.1, p.3)));
            }
            colour += 1;
        }
    }
    let loads: Vec<f64> = by_load
        .iter()
        .flat_map(|l| l.marks.iter().map(|m| m.x))
        .collect();
    Figure {
        title: "BASE (solid) and NEW (dashed)".into(),
        panels: vec![
            Panel {
                subtitle: "IOPS vs load".into(),
                y_extent: Vec::new(),
                x_label: "load (outstanding I/Os)".into(),
                y_label: "IOPS".into(),
                x: Kind::for_loads(&loads),
                y: Kind::Linear { integer: false },
                lines: by_load,
            },
            Panel {
                subtitle: "mean latency vs IOPS".into(),
                y_extent: Vec::new(),
                x_label: "IOPS".into(),
                y_label: "mean latency (µs)".into(),
                x: Kind::Linear { integer: false },
                y: Kind::Linear { integer: false },
                lines: by_iops,
            },
            Panel {
                subtitle: "p99 latency vs IOPS".into(),
                y_extent: Vec::new(),
                x_label: "IOPS".into(),
                y_label: "p99 latency (µs)".into(),
                x: Kind::Linear { integer: false },
                y: Kind::Linear { integer: false },
                lines: p99_by_iops,
            },
        ],
    }
    .to_svg()
}
