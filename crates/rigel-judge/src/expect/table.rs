//! The verdicts as an aligned plain-text table, for the terminal at the end of `rigel run`.

use super::{Status, Verdict};

/// A heading with the count of requirements met, then one aligned line per requirement.
pub fn table(verdicts: &[Verdict]) -> String {
    let met = verdicts.iter().filter(|v| v.passed).count();
    let mut out = format!("requirements: {met} of {} met\n", verdicts.len());
    let rows: Vec<[String; 6]> = verdicts
        .iter()
        .map(|v| {
            let at = match (&v.point, v.status) {
                (Some(p), Status::Pass | Status::Fail) if v.note.is_empty() => format!("at {p}"),
                (Some(p), _) => format!("at {p}; {}", v.note),
                (None, _) => v.note.clone(),
            };
            [
                v.status.word().to_owned(),
                v.key.clone(),
                v.requirement.clone(),
                v.measured_text.clone(),
                v.margin_text.clone(),
                at,
            ]
        })
        .collect();
    let mut widths = [0usize; 6];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for row in &rows {
        let mut line = String::from(" ");
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            line.push(' ');
            if i == 3 || i == 4 {
                line.push_str(&format!("{cell:>w$}"));
            } else {
                line.push_str(&format!("{cell:<w$}"));
            }
            line.push(' ');
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
