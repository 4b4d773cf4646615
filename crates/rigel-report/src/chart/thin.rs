//! Lines with more marks than a chart can show are thinned before drawing, and the chart says so:
//! 100,000 points on a 620 px axis are a smear and a 20 MB SVG. The line is cut into equal runs and
//! each run keeps its highest and its lowest mark, so that peaks and dips stay where they were;
//! every mark kept is a measured point (nothing averaged), and every point is in `rows.csv`.

use super::plot::{Figure, Mark};
use rigel_expr::units;

impl Figure {
    /// The figure as SVG, its long lines thinned, as the chart then says.
    pub fn to_svg(&self) -> String {
        match thinned(self) {
            Some(f) => f.draw(),
            None => self.draw(),
        }
    }
}

/// The most marks a line keeps.
pub const MOST_MARKS: usize = 500;

/// The figure with every line of more than [`MOST_MARKS`] marks thinned and the decimation stated
/// in its panels' subtitles; none when no line needs it.
pub fn thinned(fig: &Figure) -> Option<Figure> {
    let longest = fig
        .panels
        .iter()
        .flat_map(|p| &p.lines)
        .map(|l| l.marks.len())
        .max()?;
    if longest <= MOST_MARKS {
        return None;
    }
    let mut out = fig.clone();
    for p in &mut out.panels {
        let Some(most) = p.lines.iter().map(|l| l.marks.len()).max() else {
            continue;
        };
        if most <= MOST_MARKS {
            continue;
        }
        let run = most.div_ceil(MOST_MARKS / 2);
        for l in &mut p.lines {
            l.marks = thin(&l.marks, run);
        }
        let note = format!(
            "thinned to at most {MOST_MARKS} of {} points a line: each run of {run} keeps its highest and lowest",
            units::thousands(most as f64)
        );
        p.subtitle = if p.subtitle.is_empty() {
            note
        } else {
            format!("{}; {note}", p.subtitle)
        };
    }
    Some(out)
}

/// Each run of `run` consecutive marks reduced to its lowest and highest, in their order.
fn thin(marks: &[Mark], run: usize) -> Vec<Mark> {
    let mut out = Vec::with_capacity(2 * marks.len().div_ceil(run.max(1)));
    for chunk in marks.chunks(run.max(1)) {
        let by_y = |a: &&Mark, b: &&Mark| a.y.total_cmp(&b.y);
        let (Some(lo), Some(hi)) = (chunk.iter().min_by(by_y), chunk.iter().max_by(by_y)) else {
            continue;
        };
        let (first, second) = if std::ptr::eq(lo, hi) {
            (lo, None)
        } else if (lo as *const Mark) < (hi as *const Mark) {
            (lo, Some(hi))
        } else {
            (hi, Some(lo))
        };
        out.push(first.clone());
        out.extend(second.cloned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::axis::Kind;
    use crate::chart::plot::{Line, Panel};

    fn figure(n: usize) -> Figure {
        let marks = (0..n)
            .map(|i| Mark {
                x: i as f64,
                y: if i == 777 { 1e9 } else { (i % 13) as f64 },
                label: None,
                hover: String::new(),
            })
            .collect();
        Figure {
            title: "t".into(),
            panels: vec![Panel {
                subtitle: String::new(),
                x_label: "x".into(),
                y_label: "y".into(),
                x: Kind::Linear { integer: false },
                y: Kind::Linear { integer: false },
                lines: vec![Line {
                    name: "a".into(),
                    colour: 0,
                    dashed: false,
                    marks,
                }],
                y_extent: Vec::new(),
            }],
        }
    }

    #[test]
    fn long_lines_keep_their_peaks_and_say_they_were_thinned() {
        assert!(thinned(&figure(MOST_MARKS)).is_none());
        let f = thinned(&figure(100_000)).expect("thinned");
        let p = &f.panels[0];
        let marks = &p.lines[0].marks;
        assert!(marks.len() <= MOST_MARKS, "{}", marks.len());
        assert!(marks.iter().any(|m| m.y == 1e9), "the peak is kept");
        assert!(marks.windows(2).all(|w| w[0].x < w[1].x), "in order");
        assert!(p.subtitle.contains("of 100,000 points"), "{}", p.subtitle);
    }
}
