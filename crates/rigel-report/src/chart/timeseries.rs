//! Per-second time series of one point: IOPS and p99 latency for each second of the measured window,
//! from the results' `intervals[]`. Stalls, throttling and garbage collection show here as steps.

use super::axis::Kind;
use super::plot::{Figure, Line, Mark, Panel};
use rigel_expr::units;
use rigel_results::Interval;

/// One line: a class at the point (`small`), or a point's label.
pub struct SecondSeries<'a> {
    pub name: String,
    pub intervals: &'a [Interval],
}

/// The slowest per-second p99 of these series, for `hockey::latency_unit`: every per-second chart of a
/// report shares the unit of the slowest.
pub fn slowest_p99(series: &[SecondSeries<'_>]) -> f64 {
    series
        .iter()
        .flat_map(|s| s.intervals.iter().map(|i| i.p99_ns as f64))
        .fold(0.0, f64::max)
}

/// Two panels sharing the time axis: IOPS per second above, p99 per second below, in `unit`.
pub fn time_series(title: &str, series: &[SecondSeries<'_>], unit: (&'static str, f64)) -> Figure {
    let (unit, div) = unit;
    // `text` spells a value for the hover (units.rs), `div` scales it to the axis' unit.
    let lines = |y: fn(&Interval) -> f64, div: f64, text: fn(f64) -> String| -> Vec<Line> {
        series
            .iter()
            .enumerate()
            .map(|(i, s)| Line {
                name: s.name.clone(),
                colour: i,
                dashed: false,
                marks: s
                    .intervals
                    .iter()
                    .map(|iv| Mark {
                        x: iv.t_s,
                        y: y(iv) / div,
                        label: None,
                        hover: format!("{}: {}, {}", s.name, units::seconds(iv.t_s), text(y(iv))),
                    })
                    .collect(),
            })
            .collect()
    };
    let time = "time into the measured window (s)";
    Figure {
        title: title.to_string(),
        panels: vec![
            Panel {
                subtitle: "IOPS per second".into(),
                y_extent: Vec::new(),
                x_label: time.into(),
                y_label: "IOPS".into(),
                x: Kind::Linear { integer: false },
                y: Kind::Linear { integer: false },
                lines: lines(|i| i.iops, 1.0, units::iops),
            },
            Panel {
                subtitle: "p99 latency per second".into(),
                y_extent: Vec::new(),
                x_label: time.into(),
                y_label: format!("p99 ({unit})"),
                x: Kind::Linear { integer: false },
                y: Kind::Linear { integer: false },
                lines: lines(
                    |i| i.p99_ns as f64,
                    div,
                    |ns| format!("p99 {}", units::latency(ns)),
                ),
            },
        ],
    }
}
