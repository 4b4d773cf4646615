//! The "hockey stick": latency against throughput for one class, one marker per load level labelled
//! with the load. Where the curve turns upwards the device has saturated: more load buys latency,
//! not IOPS.

use super::axis::Kind;
use super::plot::{Figure, Line, Mark, Panel};
use rigel_expr::units;

/// One load level's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadPoint {
    pub load: u32,
    pub iops: f64,
    /// MiB/s.
    pub mbps: f64,
    pub mean_ns: f64,
    pub p99_ns: f64,
}

/// A series of load levels that ran under the same other conditions (`""` when alone).
pub struct Group<'a> {
    pub key: &'a str,
    pub points: &'a [LoadPoint],
}

/// What the markers are labelled with and the latency unit: the report's shared one.
pub struct Labels<'a> {
    /// `the load`, or `small's load` for a class held while another varied.
    pub what: &'a str,
    pub unit: (&'static str, f64),
}

/// Microseconds, or milliseconds when the slowest p99 reaches 5 ms.
pub fn latency_unit(max_ns: f64) -> (&'static str, f64) {
    if max_ns >= 5e6 {
        ("ms", 1e6)
    } else {
        ("µs", 1e3)
    }
}

/// Mean (solid) and p99 (dashed) against IOPS, or MiB/s when `by_mbps` (large, sequential classes).
/// `load` in each point is the marker's label: the class's own load, or the load that varied.
pub fn hockey_stick(
    class: &str,
    groups: &[Group<'_>],
    by_mbps: bool,
    labels: &Labels<'_>,
) -> Figure {
    let (unit, div) = labels.unit;
    let (x_name, x_of): (&str, fn(&LoadPoint) -> f64) = if by_mbps {
        ("MiB/s", |p| p.mbps)
    } else {
        ("IOPS", |p| p.iops)
    };
    let mut lines = Vec::new();
    for (i, g) in groups.iter().enumerate() {
        let mut pts: Vec<&LoadPoint> = g.points.iter().collect();
        pts.sort_by_key(|p| p.load);
        let suffix = if g.key.is_empty() {
            String::new()
        } else {
            format!(" @ {}", g.key)
        };
        for (stat, dashed, get) in [
            (
                "mean",
                false,
                (|p: &LoadPoint| p.mean_ns) as fn(&LoadPoint) -> f64,
            ),
            ("p99", true, |p: &LoadPoint| p.p99_ns),
        ] {
            lines.push(Line {
                name: format!("{stat}{suffix}"),
                colour: i,
                dashed,
                marks: pts
                    .iter()
                    .map(|p| Mark {
                        x: x_of(p),
                        y: get(p) / div,
                        label: (!dashed).then(|| p.load.to_string()),
                        hover: format!(
                            "load {}: {} {x_name}, {stat} {}",
                            p.load,
                            units::number(x_of(p)),
                            units::latency(get(p))
                        ),
                    })
                    .collect(),
            });
        }
    }
    Figure {
        title: format!(
            "{class}: latency vs {x_name} (markers labelled with {})",
            labels.what
        ),
        panels: vec![Panel {
            subtitle: String::new(),
            y_extent: Vec::new(),
            x_label: x_name.to_string(),
            y_label: format!("latency ({unit})"),
            x: Kind::Linear { integer: false },
            y: Kind::Linear { integer: false },
            lines,
        }],
    }
}
