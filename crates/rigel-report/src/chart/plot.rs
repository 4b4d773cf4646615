//! The plotting primitive every chart is drawn with: the SVG frame (`open`, escaping, palette,
//! legend layout) and figures of one or more panels stacked vertically, each with its own axes
//! (linear, log₂, log₁₀ or nines), lines with markers, optional marker labels (kept apart so they
//! never overlap), and one legend for the figure. White background, colour-blind-safe palette,
//! dashes as a second cue: it prints in black and white.

use super::axis::{Axis, Kind};
use std::fmt::Write as _;

/// Colour-blind-safe palette (Okabe–Ito, with black last), one per series.
pub const PALETTE: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#8C6D00", "#000000",
];

/// Text and attribute values escaped for SVG.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Opening `<svg>` element with a white background; `width`/`height` make the file stand alone,
/// while the `viewBox` lets HTML scale it.
pub fn open(out: &mut String, w: u32, h: u32, title: &str) {
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="{t}" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" font-size="15"><title>{t}</title><rect width="{w}" height="{h}" fill="#ffffff"/>"##,
        t = esc(title)
    );
}

/// Lays legend entries out in rows across a chart `width` px wide with `left`/`right` margins:
/// each entry is a swatch plus its label (`char_px` a character), and a row that would overflow
/// starts a new one. Returns the rows, each entry with its x; empty rows are dropped.
pub fn legend_rows<T>(
    entries: impl IntoIterator<Item = (T, usize)>,
    char_px: f64,
    (width, left, right): (f64, f64, f64),
) -> Vec<Vec<(T, f64)>> {
    let mut rows: Vec<Vec<(T, f64)>> = vec![Vec::new()];
    let mut x = left;
    for (e, chars) in entries {
        let w = 34.0 + char_px * chars as f64;
        if x + w > width - right && x > left {
            rows.push(Vec::new());
            x = left;
        }
        if let Some(row) = rows.last_mut() {
            row.push((e, x));
        }
        x += w + 14.0;
    }
    rows.retain(|r| !r.is_empty());
    rows
}

/// One marker: position, an optional label drawn beside it, and hover text.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub x: f64,
    pub y: f64,
    pub label: Option<String>,
    pub hover: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// Legend text; lines with the same name, colour and dash share one legend entry.
    pub name: String,
    /// Index into the palette.
    pub colour: usize,
    pub dashed: bool,
    pub marks: Vec<Mark>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// A line above the panel, e.g. "IOPS per second"; may be empty.
    pub subtitle: String,
    pub x_label: String,
    pub y_label: String,
    pub x: Kind,
    pub y: Kind,
    pub lines: Vec<Line>,
    /// Values the y axis must reach beyond the lines' own: small multiples share one scale.
    pub y_extent: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub title: String,
    pub panels: Vec<Panel>,
}

/// A legend entry: name, colour, dashed.
type LegendEntry<'a> = (&'a str, usize, bool);

const W: f64 = 720.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 24.0;
const TITLE_H: f64 = 40.0;
/// A title's second line, below the first.
const TITLE_LINE: f64 = 24.0;
/// Width of a character of a 19 px semibold title, generously (wide glyphs, `%`, `W`).
const TITLE_CHAR: f64 = 11.5;
const SUBTITLE_H: f64 = 24.0;
/// A subtitle's second line, below the first.
const SUBTITLE_LINE: f64 = 19.0;
/// Width of a character of a 15 px semibold subtitle, generously.
const SUBTITLE_CHAR: f64 = 9.2;
const AXIS_H: f64 = 50.0;
const LEGEND_ROW: f64 = 22.0;

impl Figure {
    fn panel_height(&self) -> f64 {
        if self.panels.len() > 1 { 200.0 } else { 280.0 }
    }

    /// The legend's distinct entries (name, colour, dash), in first-seen order.
    fn legend(&self) -> Vec<LegendEntry<'_>> {
        let mut out: Vec<LegendEntry<'_>> = Vec::new();
        for l in self.panels.iter().flat_map(|p| &p.lines) {
            let e = (l.name.as_str(), l.colour, l.dashed);
            if !l.name.is_empty() && !out.contains(&e) {
                out.push(e);
            }
        }
        out
    }

    fn legend_rows(&self) -> Vec<Vec<(LegendEntry<'_>, f64)>> {
        let entries = self.legend().into_iter().map(|e| (e, e.0.chars().count()));
        legend_rows(entries, 8.8, (W, LEFT, RIGHT))
    }

    /// The figure as SVG as it is; [`Figure::to_svg`] (in `thin`) thins its long lines first.
    pub(super) fn draw(&self) -> String {
        let ph = self.panel_height();
        let legend = self.legend_rows();
        let room = W - LEFT - RIGHT;
        let subtitles: Vec<_> = self
            .panels
            .iter()
            .map(|p| text_lines(&p.subtitle, room, SUBTITLE_CHAR))
            .collect();
        // Every panel keeps the same height, so that stacked panels line up.
        let sub_lines = subtitles.iter().map(Vec::len).max().unwrap_or(1).max(1);
        let sub_h = SUBTITLE_H + SUBTITLE_LINE * (sub_lines as f64 - 1.0);
        let panel_h = sub_h + ph + AXIS_H;
        let title = text_lines(&self.title, room, TITLE_CHAR);
        let title_h = TITLE_H + TITLE_LINE * (title.len().max(1) as f64 - 1.0);
        let h =
            title_h + panel_h * self.panels.len() as f64 + LEGEND_ROW * legend.len() as f64 + 12.0;
        let mut out = String::with_capacity(16384);
        open(&mut out, W as u32, h as u32, &self.title);
        for (i, (line, fit)) in title.iter().enumerate() {
            let _ = writeln!(
                out,
                r##"<text x="{LEFT}" y="{:.0}" font-size="19" font-weight="600" fill="#1f2933"{fit}>{}</text>"##,
                28.0 + TITLE_LINE * i as f64,
                esc(line)
            );
        }
        for (i, (p, subtitle)) in self.panels.iter().zip(&subtitles).enumerate() {
            let top = title_h + panel_h * i as f64 + sub_h;
            draw_panel(&mut out, p, subtitle, top, ph);
        }
        let legend_top = title_h + panel_h * self.panels.len() as f64 + 6.0;
        for (r, row) in legend.iter().enumerate() {
            let y = legend_top + LEGEND_ROW * r as f64;
            for &((name, colour, dashed), x) in row {
                let (c, dash) = style(colour, dashed);
                let _ = writeln!(
                    out,
                    r##"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{c}" stroke-width="3"{dash}/><text x="{:.1}" y="{:.1}" fill="#323f4b">{}</text>"##,
                    x + 24.0,
                    x + 30.0,
                    y + 4.5,
                    esc(name)
                );
            }
        }
        out.push_str("</svg>\n");
        out
    }
}

/// A title (or subtitle) in at most two lines that fit `room` px at `char_w` px a character,
/// broken between words; a line still too long (one long word) is squeezed to the width rather than
/// cut at the edge. Each line with its `textLength` attribute, empty when it fits as it is.
fn text_lines(title: &str, room: f64, char_w: f64) -> Vec<(String, String)> {
    if title.is_empty() {
        return Vec::new();
    }
    let fits = |t: &str| t.chars().count() as f64 * char_w <= room;
    let mut lines = vec![title.to_string()];
    if !fits(title) {
        let words: Vec<&str> = title.split(' ').collect();
        // The longest first line that fits, the rest on the second.
        let mut cut = 1;
        while cut < words.len() && fits(&words[..=cut].join(" ")) {
            cut += 1;
        }
        if cut < words.len() {
            lines = vec![words[..cut].join(" "), words[cut..].join(" ")];
        }
    }
    lines
        .into_iter()
        .map(|l| {
            let fit = if fits(&l) {
                String::new()
            } else {
                format!(r#" textLength="{room}" lengthAdjust="spacingAndGlyphs""#)
            };
            (l, fit)
        })
        .collect()
}

fn style(colour: usize, dashed: bool) -> (&'static str, &'static str) {
    let dash = if dashed {
        r#" stroke-dasharray="6 4""#
    } else {
        ""
    };
    (PALETTE[colour % PALETTE.len()], dash)
}

fn draw_panel(out: &mut String, p: &Panel, subtitle: &[(String, String)], top: f64, ph: f64) {
    let plot_w = W - LEFT - RIGHT;
    let xs: Vec<f64> = p
        .lines
        .iter()
        .flat_map(|l| l.marks.iter().map(|m| m.x))
        .collect();
    let ys: Vec<f64> = p
        .lines
        .iter()
        .flat_map(|l| l.marks.iter().map(|m| m.y))
        .chain(p.y_extent.iter().copied())
        .collect();
    let xa: Axis = p.x.axis(&xs);
    let ya: Axis = p.y.axis(&ys);
    let bottom = top + ph;
    let px = |x: f64| LEFT + xa.scale.fraction(x) * plot_w;
    let py = |y: f64| bottom - ya.scale.fraction(y) * ph;
    let above = subtitle.len().saturating_sub(1) as f64;
    for (i, (line, fit)) in subtitle.iter().enumerate() {
        let _ = writeln!(
            out,
            r##"<text x="{LEFT}" y="{:.1}" font-weight="600" fill="#323f4b"{fit}>{}</text>"##,
            top - 8.0 - SUBTITLE_LINE * (above - i as f64),
            esc(line)
        );
    }
    for (t, label) in ya.ticks.iter().zip(&ya.labels) {
        let y = py(*t);
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e4e7eb"/><text x="{:.1}" y="{:.1}" text-anchor="end" fill="#52606d">{label}</text>"##,
            W - RIGHT,
            LEFT - 8.0,
            y + 4.0,
        );
    }
    for (t, label) in xa.ticks.iter().zip(&xa.labels) {
        let x = px(*t);
        // A label centred on the last tick would run past the edge: end it there instead.
        let half = 4.5 * label.chars().count() as f64;
        let anchor = if x + half > W - 2.0 { "end" } else { "middle" };
        let _ = writeln!(
            out,
            r##"<line x1="{x:.1}" y1="{bottom:.1}" x2="{x:.1}" y2="{:.1}" stroke="#9aa5b1"/><text x="{x:.1}" y="{:.1}" text-anchor="{anchor}" fill="#52606d">{label}</text>"##,
            bottom + 5.0,
            bottom + 20.0,
        );
    }
    let _ = writeln!(
        out,
        r##"<line x1="{LEFT}" y1="{bottom:.1}" x2="{:.1}" y2="{bottom:.1}" stroke="#52606d"/><line x1="{LEFT}" y1="{top:.1}" x2="{LEFT}" y2="{bottom:.1}" stroke="#52606d"/>"##,
        W - RIGHT,
    );
    let _ = writeln!(
        out,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#323f4b">{}</text><text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle" fill="#323f4b">{}</text>"##,
        LEFT + plot_w / 2.0,
        bottom + 40.0,
        esc(&p.x_label),
        top + ph / 2.0,
        esc(&p.y_label)
    );
    let mut placed: Vec<(f64, f64, f64)> = Vec::new();
    for l in &p.lines {
        let (c, dash) = style(l.colour, l.dashed);
        let coords: Vec<String> = l
            .marks
            .iter()
            .map(|m| format!("{:.1},{:.1}", px(m.x), py(m.y)))
            .collect();
        let _ = writeln!(
            out,
            r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="2.2"{dash}/>"#,
            coords.join(" ")
        );
        // A dense line (a percentile curve) reads better without a dot on every sample.
        let dots = l.marks.len() <= 24;
        for m in &l.marks {
            let (x, y) = (px(m.x), py(m.y));
            if dots {
                let _ = writeln!(
                    out,
                    r##"<circle cx="{x:.1}" cy="{y:.1}" r="3.6" fill="{c}" stroke="#ffffff" stroke-width="1"><title>{}</title></circle>"##,
                    esc(&m.hover)
                );
            }
            if let Some(label) = &m.label {
                label_beside(out, &mut placed, label, x, y, c);
            }
        }
    }
    if p.lines.iter().all(|l| l.marks.is_empty()) {
        let _ = writeln!(
            out,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#7b8794">no data</text>"##,
            LEFT + plot_w / 2.0,
            top + ph / 2.0
        );
    }
}

/// Draws `label` above-left of the marker at (x, y), unless it would overlap a label already placed
/// (dense markers keep every other label); kept inside the plot's right edge.
fn label_beside(
    out: &mut String,
    placed: &mut Vec<(f64, f64, f64)>,
    label: &str,
    x: f64,
    y: f64,
    colour: &str,
) {
    let w = 7.0 * label.chars().count() as f64 + 2.0;
    let lx = (x - w - 4.0).max(LEFT + 2.0);
    let ly = y - 8.0;
    let clash = placed
        .iter()
        .any(|&(px, py, pw)| lx < px + pw && px < lx + w && (ly - py).abs() < 13.0);
    if clash {
        return;
    }
    placed.push((lx, ly, w));
    let _ = writeln!(
        out,
        r##"<text x="{lx:.1}" y="{ly:.1}" font-size="12" fill="{colour}">{}</text>"##,
        esc(label)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(name: &str, pts: &[(f64, f64)]) -> Line {
        Line {
            name: name.into(),
            colour: 0,
            dashed: false,
            marks: pts
                .iter()
                .map(|&(x, y)| Mark {
                    x,
                    y,
                    label: Some(format!("{x}")),
                    hover: String::new(),
                })
                .collect(),
        }
    }

    #[test]
    fn crowded_labels_are_thinned_not_overlapped() {
        let fig = Figure {
            title: "t".into(),
            panels: vec![Panel {
                subtitle: String::new(),
                y_extent: Vec::new(),
                x_label: "x".into(),
                y_label: "y".into(),
                x: Kind::Linear { integer: false },
                y: Kind::Linear { integer: false },
                lines: vec![line("a", &[(1.0, 1.0), (1.01, 1.0), (50.0, 1.0)])],
            }],
        };
        let svg = fig.to_svg();
        assert_eq!(svg.matches(r#"font-size="12""#).count(), 2, "{svg}");
    }

    #[test]
    fn long_titles_wrap_between_words_and_short_ones_stay_whole() {
        let room = W - LEFT - RIGHT;
        assert_eq!(text_lines("IOPS vs load", room, TITLE_CHAR).len(), 1);
        let long =
            "large latency vs load (small=0 small.size=4KiB large.mix=70% read large.per_stream=4)";
        let lines = text_lines(long, room, TITLE_CHAR);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(format!("{} {}", lines[0].0, lines[1].0), long);
        assert!(
            lines[0].1.is_empty(),
            "the first line fits without squeezing"
        );
    }

    #[test]
    fn a_long_subtitle_wraps_onto_a_second_line_inside_the_chart() {
        let room = W - LEFT - RIGHT;
        let note = "p99 latency per second; thinned to at most 500 of 100,000 points a line: \
                    each run of 400 keeps its highest and lowest";
        let lines = text_lines(note, room, SUBTITLE_CHAR);
        assert_eq!(lines.len(), 2, "{lines:?}");
        for (line, fit) in &lines {
            assert!(fit.is_empty(), "{line:?} fits without squeezing");
            assert!(
                line.chars().count() as f64 * SUBTITLE_CHAR <= room,
                "{line:?}"
            );
        }
        assert!(text_lines("", room, SUBTITLE_CHAR).is_empty());
    }

    #[test]
    fn escaping() {
        assert_eq!(esc(r#"a<b & "c""#), "a&lt;b &amp; &quot;c&quot;");
    }
}
