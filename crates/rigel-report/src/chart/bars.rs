//! Horizontal bars, one per row, for figures that have no load axis (each host's IOPS at one
//! point): labels left, bars scaled so the largest fills the width, each value written at its
//! bar's end. Drawn with the plotting primitive's frame, escaping and palette.

use super::plot::{PALETTE, esc, open};
use std::fmt::Write as _;

/// One bar: its label, its value, and whether it is drawn as failed.
pub struct Bar<'a> {
    pub label: &'a str,
    pub value: f64,
    pub failed: bool,
}

const ROW_H: f64 = 22.0;
const LABEL_W: f64 = 200.0;
const BAR_W: f64 = 420.0;
const VALUE_W: f64 = 110.0;

/// The SVG of `bars` titled `title` (for screen readers), with `value` formatting each figure.
pub fn hbars(title: &str, bars: &[Bar], value: impl Fn(f64) -> String) -> String {
    let max = bars.iter().map(|b| b.value).fold(0.0, f64::max);
    let height = (ROW_H * bars.len() as f64 + 10.0).ceil() as u32;
    let mut svg = String::new();
    open(&mut svg, (LABEL_W + BAR_W + VALUE_W) as u32, height, title);
    for (i, b) in bars.iter().enumerate() {
        let y = 5.0 + ROW_H * i as f64;
        let w = if max > 0.0 {
            b.value / max * BAR_W
        } else {
            0.0
        };
        // The palette's blue for a host that passed, its vermillion for one that failed.
        let fill = if b.failed { PALETTE[3] } else { PALETTE[0] };
        let _ = write!(
            svg,
            r#"<text x="{lx:.0}" y="{ty:.1}" font-size="13" text-anchor="end">{label}</text><rect x="{LABEL_W}" y="{y:.1}" width="{w:.1}" height="{bh:.0}" fill="{fill}"/><text x="{vx:.1}" y="{ty:.1}" font-size="13">{v}</text>"#,
            lx = LABEL_W - 8.0,
            ty = y + 15.0,
            label = esc(b.label),
            bh = ROW_H - 6.0,
            vx = LABEL_W + w + 6.0,
            v = esc(&value(b.value)),
        );
    }
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_bar_fills_the_width_and_labels_are_escaped() {
        let bars = [
            Bar {
                label: "0 <a&b>",
                value: 50.0,
                failed: false,
            },
            Bar {
                label: "1 c",
                value: 100.0,
                failed: true,
            },
        ];
        let svg = hbars("IOPS per host", &bars, |v| format!("{v:.0}"));
        assert!(svg.contains(r#"width="210.0""#), "{svg}");
        assert!(svg.contains(r#"width="420.0""#), "{svg}");
        assert!(svg.contains("0 &lt;a&amp;b&gt;"), "{svg}");
        assert!(svg.contains(PALETTE[3]), "{svg}");
        assert!(svg.ends_with("</svg>"));
    }

    #[test]
    fn all_zero_draws_empty_bars() {
        let bars = [Bar {
            label: "0 h",
            value: 0.0,
            failed: false,
        }];
        let svg = hbars("t", &bars, |v| format!("{v:.0}"));
        assert!(svg.contains(r#"width="0.0""#), "{svg}");
    }
}
