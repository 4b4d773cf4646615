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
        // Joined in the order of the x axis, not of the load: a noisy run whose IOPS fell at a
        // higher load would otherwise draw a line doubling back on itself. The markers keep
        // their loads, so the load order is still read off them.
        let mut pts: Vec<&LoadPoint> = g.points.iter().collect();
        pts.sort_by(|a, b| x_of(a).total_cmp(&x_of(b)).then(a.load.cmp(&b.load)));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_noisy_run_is_joined_along_the_x_axis_not_in_load_order() {
        let p = |load: u32, iops: f64| LoadPoint {
            load,
            iops,
            mbps: 0.0,
            mean_ns: 1e5 * f64::from(load),
            p99_ns: 2e5 * f64::from(load),
        };
        // The load of 4 ran slower than the load of 2: in load order the line would double back.
        let points = [p(1, 1000.0), p(2, 3000.0), p(4, 2000.0), p(8, 4000.0)];
        let fig = hockey_stick(
            "c",
            &[Group {
                key: "",
                points: &points,
            }],
            false,
            &Labels {
                what: "the load",
                unit: ("µs", 1e3),
            },
        );
        for line in &fig.panels[0].lines {
            let xs: Vec<f64> = line.marks.iter().map(|m| m.x).collect();
            assert_eq!(xs, [1000.0, 2000.0, 3000.0, 4000.0], "{}", line.name);
        }
        let labels: Vec<_> = fig.panels[0].lines[0]
            .marks
            .iter()
            .map(|m| m.label.clone().unwrap_or_default())
            .collect();
        assert_eq!(labels, ["1", "4", "2", "8"], "each marker keeps its load");
    }
}
