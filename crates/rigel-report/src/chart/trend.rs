//! A spec's trend across its runs: one panel per headline figure (max IOPS, max MB/s, min mean
//! latency), the runs in date order along x, each marker labelled with its run's revision.

use super::axis::Kind;
use super::hockey::latency_unit;
use super::plot::{Figure, Line, Mark, Panel};
use rigel_expr::units;

/// One run's figures (none where the run had no such point).
pub struct TrendRun {
    /// The x label's text: its date and revision.
    pub label: String,
    pub max_iops: Option<f64>,
    pub max_mbps: Option<f64>,
    pub min_latency_ns: Option<f64>,
}

/// The trend chart of `spec` over `runs` (in order), as SVG.
pub fn trend(spec: &str, runs: &[TrendRun]) -> String {
    let lat_top = runs
        .iter()
        .filter_map(|r| r.min_latency_ns)
        .fold(0.0, f64::max);
    let (unit, div) = latency_unit(lat_top);
    let panel = |subtitle: &str,
                 y_label: String,
                 pick: &dyn Fn(&TrendRun) -> Option<f64>,
                 text: &dyn Fn(f64) -> String,
                 scale: f64| {
        let marks: Vec<Mark> = runs
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                let v = pick(r)?;
                Some(Mark {
                    x: (i + 1) as f64,
                    y: v / scale,
                    label: None,
                    hover: format!("run {} ({}): {}", i + 1, r.label, text(v)),
                })
            })
            .collect();
        (!marks.is_empty()).then(|| Panel {
            subtitle: subtitle.into(),
            y_extent: Vec::new(),
            x_label: "run (oldest first)".into(),
            y_label,
            x: Kind::Ordinal,
            y: Kind::Linear { integer: false },
            lines: vec![Line {
                name: String::new(),
                colour: 0,
                dashed: false,
                marks,
            }],
        })
    };
    let panels = [
        panel(
            "Max IOPS",
            "IOPS".into(),
            &|r| r.max_iops,
            &|v| units::iops(v),
            1.0,
        ),
        panel(
            "Max MiB/s",
            "MB/s".into(),
            &|r| r.max_mbps,
            &|v| format!("{} MB/s", units::number(v)),
            1.0,
        ),
        panel(
            "Min mean latency",
            format!("latency ({unit})"),
            &|r| r.min_latency_ns,
            &|v| units::latency(v),
            div,
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    Figure {
        title: format!("{spec}: headline figures across {} runs", runs.len()),
        panels,
    }
    .to_svg()
}
