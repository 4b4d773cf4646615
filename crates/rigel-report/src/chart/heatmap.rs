//! A heat map in the plot primitive's frame (`plot::open`, its escaping): one measure (small IOPS)
//! over the grid of two loads (small, large), for detailed matrices where every combination ran.

use super::plot::{esc, open};
use std::fmt::Write as _;

pub struct HeatMap {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub columns: Vec<u32>,
    pub rows: Vec<u32>,
    /// `cells[row][column]`; None where no point ran.
    pub cells: Vec<Vec<Option<f64>>>,
}

const LEFT: f64 = 84.0;
const TOP: f64 = 52.0;

impl HeatMap {
    pub fn to_svg(&self) -> String {
        let cols = self.columns.len().max(1) as f64;
        let rows = self.rows.len().max(1) as f64;
        // As wide as the line charts, so all charts scale alike in the HTML grid.
        let cell_w = ((720.0 - LEFT - 24.0) / cols).clamp(34.0, 150.0);
        let cell_h = (300.0 / rows).clamp(26.0, 60.0);
        let w = (LEFT + cell_w * cols + 24.0).max(720.0);
        let h = TOP + cell_h * rows + 64.0;
        let max = self
            .cells
            .iter()
            .flatten()
            .flatten()
            .fold(0.0, |a: f64, &b| a.max(b));
        let mut out = String::with_capacity(8192);
        open(&mut out, w.round() as u32, h.round() as u32, &self.title);
        let _ = writeln!(
            out,
            r##"<text x="{LEFT}" y="28" font-size="19" font-weight="600" fill="#1f2933">{}</text>"##,
            esc(&self.title)
        );
        // Rows top to bottom from the highest large load, so the origin sits bottom-left like a chart.
        for (ri, (&load, cells)) in self.rows.iter().zip(&self.cells).rev().enumerate() {
            let y = TOP + cell_h * ri as f64;
            let _ = writeln!(
                out,
                r##"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="#52606d">{load}</text>"##,
                LEFT - 8.0,
                y + cell_h / 2.0 + 4.0
            );
            for (ci, cell) in cells.iter().enumerate() {
                let x = LEFT + cell_w * ci as f64;
                let Some(v) = cell else {
                    let _ = write!(
                        out,
                        r##"<rect x="{x:.1}" y="{y:.1}" width="{cell_w:.1}" height="{cell_h:.1}" fill="#f5f7fa" stroke="#ffffff"/>"##
                    );
                    continue;
                };
                let t = if max > 0.0 { v / max } else { 0.0 };
                let ink = if t > 0.55 { "#ffffff" } else { "#1f2933" };
                let _ = writeln!(
                    out,
                    r##"<rect x="{x:.1}" y="{y:.1}" width="{cell_w:.1}" height="{cell_h:.1}" fill="{}" stroke="#ffffff"><title>{} = {}, {} = {}: {:.0}</title></rect><text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="14" fill="{ink}">{}</text>"##,
                    ramp(t),
                    esc(&self.x_label),
                    self.columns.get(ci).copied().unwrap_or(0),
                    esc(&self.y_label),
                    load,
                    v,
                    x + cell_w / 2.0,
                    y + cell_h / 2.0 + 4.0,
                    short_number(*v)
                );
            }
        }
        let bottom = TOP + cell_h * rows;
        for (ci, load) in self.columns.iter().enumerate() {
            let _ = writeln!(
                out,
                r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#52606d">{load}</text>"##,
                LEFT + cell_w * (ci as f64 + 0.5),
                bottom + 18.0
            );
        }
        let _ = writeln!(
            out,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#323f4b">{}</text><text transform="translate(20 {:.1}) rotate(-90)" text-anchor="middle" fill="#323f4b">{}</text>"##,
            LEFT + cell_w * cols / 2.0,
            bottom + 44.0,
            esc(&self.x_label),
            TOP + cell_h * rows / 2.0,
            esc(&self.y_label)
        );
        out.push_str("</svg>\n");
        out
    }
}

/// `1.5k`, `58.8k`, `1.2M`, `0.25`, `12`: a short label for an axis or a cell.
fn short_number(v: f64) -> String {
    let a = v.abs();
    let (scaled, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let s = if scaled.fract().abs() < 1e-9 || scaled.abs() >= 100.0 {
        format!("{scaled:.0}")
    } else if scaled.abs() >= 10.0 {
        format!("{scaled:.1}")
    } else {
        format!("{scaled:.2}")
    };
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    format!("{s}{suffix}")
}

/// A colour on a light-to-dark blue ramp for `t` in 0..=1 (heat maps).
fn ramp(t: f64) -> String {
    let t = t.clamp(0.0, 1.0);
    let lerp = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    // From #eef4fb (pale) to #08306b (deep blue).
    format!(
        "#{:02x}{:02x}{:02x}",
        lerp(238.0, 8.0),
        lerp(244.0, 48.0),
        lerp(251.0, 107.0)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_numbers() {
        assert_eq!(short_number(58778.0), "58.8k");
        assert_eq!(short_number(6000.0), "6000");
        assert_eq!(short_number(20000.0), "20k");
        assert_eq!(short_number(2_500_000.0), "2.5M");
        assert_eq!(short_number(0.25), "0.25");
        assert_eq!(short_number(271.58), "272");
    }

    #[test]
    fn the_ramp_runs_pale_to_deep_blue() {
        assert_eq!(ramp(0.0), "#eef4fb");
        assert_eq!(ramp(1.0), "#08306b");
    }
}
