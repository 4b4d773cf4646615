//! Small helpers shared by the SVG charts: escaping, axis ticks, number labels, colours.

use std::fmt::Write as _;

/// Colour-blind-safe palette (Okabe–Ito, with black last), one per series.
pub const PALETTE: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#8C6D00", "#000000",
];

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

/// A "nice" step (1, 2, 2.5 or 5 × 10^k) giving about `target` intervals over `span`.
pub fn nice_step(span: f64, target: f64) -> f64 {
    if span <= 0.0 || !span.is_finite() {
        return 1.0;
    }
    let raw = span / target;
    let mag = 10f64.powf(raw.log10().floor());
    let frac = raw / mag;
    let nice = if frac <= 1.0 {
        1.0
    } else if frac <= 2.0 {
        2.0
    } else if frac <= 2.5 {
        2.5
    } else if frac <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// Ticks from 0 to at least `max`, and the axis end (the last tick).
pub fn ticks(max: f64, target: f64, integer: bool) -> (Vec<f64>, f64) {
    let mut step = nice_step(max, target);
    if integer {
        step = step.max(1.0).round();
    }
    let mut ticks = vec![0.0];
    let mut t = 0.0;
    while t < max - step * 1e-9 {
        t += step;
        ticks.push(t);
    }
    if ticks.len() < 2 {
        ticks.push(step);
    }
    let end = *ticks.last().unwrap_or(&1.0);
    (ticks, end)
}

/// `1.5k`, `58.8k`, `1.2M`, `0.25`, `12`: a short label for an axis or a cell.
pub fn short_number(v: f64) -> String {
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

/// Opening `<svg>` element with a white background; `width`/`height` make the file stand alone,
/// while the `viewBox` lets HTML scale it.
pub fn open(out: &mut String, w: u32, h: u32, title: &str) {
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="{t}" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" font-size="15"><title>{t}</title><rect width="{w}" height="{h}" fill="#ffffff"/>"##,
        t = esc(title)
    );
}

/// A colour on a light-to-dark blue ramp for `t` in 0..=1 (heat maps).
pub fn ramp(t: f64) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_cover_the_maximum_with_nice_steps() {
        let (t, end) = ticks(6210.0, 5.0, false);
        assert_eq!(t, vec![0.0, 2000.0, 4000.0, 6000.0, 8000.0]);
        assert_eq!(end, 8000.0);
        let (t, _) = ticks(5.0, 5.0, true);
        assert_eq!(t, vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        let (t, _) = ticks(0.0, 5.0, true);
        assert_eq!(t, vec![0.0, 1.0]);
    }

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
    fn escaping() {
        assert_eq!(esc(r#"a<b & "c""#), "a&lt;b &amp; &quot;c&quot;");
        assert_eq!(ramp(0.0), "#eef4fb");
        assert_eq!(ramp(1.0), "#08306b");
    }
}
