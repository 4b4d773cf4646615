//! Line charts as hand-written SVG: IOPS, MB/s and latency percentiles against load. No crate: the
//! charts are simple, and plain SVG keeps the binary small and the output stable for snapshots.

use super::axis::{Kind, Scale};
use super::svg::{PALETTE, esc, legend_rows, open};
use std::fmt::Write as _;

pub struct Series {
    pub name: String,
    /// (x, y, hover text)
    pub points: Vec<(f64, f64, String)>,
}

pub struct LineChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// A logarithmic y axis: for latency percentiles that span orders of magnitude.
    pub log_y: bool,
}

const W: f64 = 720.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 48.0;
const PLOT_H: f64 = 280.0;
const LEGEND_ROW: f64 = 22.0;

/// Dash patterns, so series stay apart when the palette repeats.
const DASHES: [&str; 3] = ["", "6 4", "2 3"];

impl LineChart {
    /// Rows of legend entries, laid out left to right within the chart's width.
    fn legend_rows(&self) -> Vec<Vec<(usize, f64)>> {
        let entries = self
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| (i, s.name.chars().count()));
        legend_rows(entries, 8.4, (W, LEFT, RIGHT))
    }

    pub fn to_svg(&self) -> String {
        let legend = self.legend_rows();
        let h = TOP + PLOT_H + 56.0 + LEGEND_ROW * legend.len() as f64 + 8.0;
        let mut out = String::with_capacity(8192);
        open(&mut out, W as u32, h as u32, &self.title);
        let _ = writeln!(
            out,
            r##"<text x="{LEFT}" y="28" font-size="19" font-weight="600" fill="#1f2933">{}</text>"##,
            esc(&self.title)
        );
        let xs: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .collect();
        let ys: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .collect();
        // Geometric load levels (`1..=128 x2`) on a log₂ axis, so 1–8 are not crammed to the left.
        let xa = Kind::for_loads(&xs).axis(&xs);
        let ya = if self.log_y {
            Kind::Log10
        } else {
            Kind::Linear { integer: false }
        }
        .axis(&ys);
        let x_label = match xa.scale {
            Scale::Log2 { .. } => format!("{} (log₂ scale)", self.x_label),
            _ => self.x_label.clone(),
        };
        let plot_w = W - LEFT - RIGHT;
        let px = |x: f64| LEFT + xa.scale.fraction(x) * plot_w;
        let py = |y: f64| TOP + PLOT_H - ya.scale.fraction(y) * PLOT_H;
        for (&t, label) in ya.ticks.iter().zip(&ya.labels) {
            let y = py(t);
            let _ = writeln!(
                out,
                r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e4e7eb"/><text x="{:.1}" y="{:.1}" text-anchor="end" fill="#52606d">{label}</text>"##,
                W - RIGHT,
                LEFT - 8.0,
                y + 4.0,
            );
        }
        for (&t, label) in xa.ticks.iter().zip(&xa.labels) {
            let x = px(t);
            let _ = writeln!(
                out,
                r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#9aa5b1"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="#52606d">{label}</text>"##,
                TOP + PLOT_H,
                TOP + PLOT_H + 5.0,
                TOP + PLOT_H + 20.0,
            );
        }
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" y1="{b:.1}" x2="{:.1}" y2="{b:.1}" stroke="#52606d"/><line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{b:.1}" stroke="#52606d"/>"##,
            W - RIGHT,
            b = TOP + PLOT_H
        );
        let _ = writeln!(
            out,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#323f4b">{}</text><text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle" fill="#323f4b">{}</text>"##,
            LEFT + plot_w / 2.0,
            TOP + PLOT_H + 40.0,
            esc(&x_label),
            TOP + PLOT_H / 2.0,
            esc(&self.y_label)
        );
        for (i, s) in self.series.iter().enumerate() {
            let (color, dash_attr) = series_style(i);
            let coords: Vec<String> = s
                .points
                .iter()
                .map(|p| format!("{:.1},{:.1}", px(p.0), py(p.1)))
                .collect();
            let _ = writeln!(
                out,
                r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2.2"{dash_attr}/>"#,
                coords.join(" ")
            );
            for p in &s.points {
                let _ = writeln!(
                    out,
                    r##"<circle cx="{:.1}" cy="{:.1}" r="3.6" fill="{color}" stroke="#ffffff" stroke-width="1"><title>{}</title></circle>"##,
                    px(p.0),
                    py(p.1),
                    esc(&p.2)
                );
            }
        }
        for (r, row) in legend.iter().enumerate() {
            let y = TOP + PLOT_H + 62.0 + LEGEND_ROW * r as f64;
            for &(i, x) in row {
                let (color, dash_attr) = series_style(i);
                let _ = writeln!(
                    out,
                    r##"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{color}" stroke-width="3"{dash_attr}/><text x="{:.1}" y="{:.1}" fill="#323f4b">{}</text>"##,
                    x + 24.0,
                    x + 30.0,
                    y + 4.5,
                    esc(&self.series[i].name)
                );
            }
        }
        if self.series.iter().all(|s| s.points.is_empty()) {
            let _ = writeln!(
                out,
                r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#7b8794">no finished points</text>"##,
                LEFT + plot_w / 2.0,
                TOP + PLOT_H / 2.0
            );
        }
        out.push_str("</svg>\n");
        out
    }
}

/// Series `i`'s colour and dash attribute: colours first, then the same colours dashed.
fn series_style(i: usize) -> (&'static str, String) {
    let dash = DASHES[(i / PALETTE.len()) % DASHES.len()];
    let dash_attr = if dash.is_empty() {
        String::new()
    } else {
        format!(r#" stroke-dasharray="{dash}""#)
    };
    (PALETTE[i % PALETTE.len()], dash_attr)
}
