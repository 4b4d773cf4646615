//! The latency percentile plot: p50 … p99.999 on a "nines" axis, one line per direction, from the
//! point's HDR histograms. Percentiles are clamped to the recorded maximum (HDR values are bucket
//! bounds) and stop where fewer than one I/O lies beyond them.

use super::axis::Kind;
use super::plot::{Figure, Line, Mark, Panel};
use hdrhistogram::Histogram;
use rigel_expr::units;

/// One direction's latencies (`read`, `write`, `total`), with the exact maximum recorded.
pub struct Direction<'a> {
    pub name: String,
    pub histogram: &'a Histogram<u64>,
    pub max_ns: u64,
}

/// The percentiles drawn: every tenth of a nine from p50 to p99.999.
fn percentiles(count: u64) -> Vec<f64> {
    let mut out = vec![50.0];
    let mut k = 0.4;
    while k <= 5.0 + 1e-9 {
        let p = 100.0 - 100.0 * 10f64.powf(-k);
        // Beyond 1 − 1/count the histogram holds no I/O to speak for the percentile.
        if (count as f64) * (1.0 - p / 100.0) < 1.0 {
            break;
        }
        out.push(p);
        k += 0.1;
    }
    out
}

/// `99.9`, `99.99`, `99.9499`: four decimals at most, no trailing zeros.
fn trim(p: f64) -> String {
    let s = format!("{p:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `unit`: the unit every percentile plot of the report shares (`hockey::latency_unit` of the slowest).
pub fn percentile_plot(title: &str, dirs: &[Direction<'_>], unit: (&'static str, f64)) -> Figure {
    let (unit, div) = unit;
    let lines = dirs
        .iter()
        .enumerate()
        .map(|(i, d)| Line {
            name: d.name.clone(),
            colour: i,
            dashed: i % 2 == 1,
            marks: percentiles(d.histogram.len())
                .into_iter()
                .map(|p| {
                    let ns = d.histogram.value_at_quantile(p / 100.0).min(d.max_ns) as f64;
                    Mark {
                        x: p,
                        y: ns / div,
                        label: None,
                        hover: format!("{}: p{} {}", d.name, trim(p), units::latency(ns)),
                    }
                })
                .collect(),
        })
        .collect();
    Figure {
        title: title.to_string(),
        panels: vec![Panel {
            subtitle: String::new(),
            y_extent: Vec::new(),
            x_label: "percentile".into(),
            y_label: format!("latency ({unit}, log scale)"),
            x: Kind::Nines,
            y: Kind::Log10,
            lines,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_stop_where_the_histogram_runs_out() {
        let p = percentiles(1000);
        assert_eq!(p[0], 50.0);
        assert!(*p.last().unwrap() <= 99.9 + 1e-9, "{p:?}");
        assert!(percentiles(10_000_000).last().unwrap() > &99.998);
    }
}
