//! A comparison as an aligned plain-text table (terminals, CI logs) or as Markdown ready to paste
//! into a ticket or a pull request.

use super::{AnswerChange, Change, MetricChange, RunComparison, RunSummary};
use rigel_expr::{Direction, units};

fn describe(r: &RunSummary) -> String {
    format!("{} {}", r.path, facts(r))
}

/// `(oltp, 12 points, 2026-11-30 01:02)`; `(oltp, 12 points, 3 runs from 2026-11-30 01:02)`.
pub(super) fn facts(r: &RunSummary) -> String {
    let at = r.started.get(..16).unwrap_or(&r.started).replace('T', " ");
    if r.runs > 1 {
        return format!(
            "({}, {}, {} runs from {at})",
            r.name,
            units::count(r.points as u64, "point"),
            r.runs
        );
    }
    format!(
        "({}, {}, {at})",
        r.name,
        units::count(r.points as u64, "point")
    )
}

fn verdict_word(c: Change) -> &'static str {
    match c {
        Change::Within => "",
        Change::Improved => "improved",
        Change::Regressed => "REGRESSED",
        Change::Inconclusive => "inconclusive",
    }
}

/// The verdict as a table shows it: an inconclusive line says why.
pub(super) fn verdict_cell(m: &MetricChange) -> String {
    match (m.verdict, m.noise_percent) {
        (Change::Inconclusive, _) if m.host.is_some() => {
            format!("inconclusive: {}", m.host.as_deref().unwrap_or_default())
        }
        (Change::Inconclusive, _) if m.ticks.is_some() => {
            format!("inconclusive: {}", m.ticks.as_deref().unwrap_or_default())
        }
        (Change::Inconclusive, Some(_)) => "inconclusive: too noisy to judge".into(),
        (Change::Inconclusive, None) => format!("inconclusive: {}", m.noise_basis),
        (v @ (Change::Regressed | Change::Improved), _) if m.ticks.is_some() => {
            format!(
                "{}: {}",
                verdict_word(v),
                m.ticks.as_deref().unwrap_or_default()
            )
        }
        (v, _) => verdict_word(v).into(),
    }
}

pub(super) fn class_cell(m: &MetricChange) -> String {
    match m.direction {
        Direction::Total => m.class.clone(),
        d => format!("{} {}", m.class, d.name()),
    }
}

/// The outcome in one line: `2 regressions in 1 point (threshold 5%); 0 improvements; 26 of 28
/// lines judged, 2 inconclusive (too noisy to judge)`.
pub(super) fn outcome(c: &RunComparison) -> String {
    let mut out = verdicts(c);
    if c.lines > 0 {
        out.push_str(&format!("; {} of {} lines judged", c.judged, c.lines));
        if c.inconclusive > 0 {
            out.push_str(&format!(
                ", {} inconclusive (too noisy to judge)",
                c.inconclusive
            ));
        }
    }
    if !c.answers.is_empty() {
        out.push_str(&format!(
            "; answers: {} of {} regressed, {} inconclusive",
            c.answer_regressions,
            c.answers.len(),
            c.answer_inconclusive
        ));
    }
    out
}

fn verdicts(c: &RunComparison) -> String {
    let points = c.points.iter().filter(|p| p.regressed).count();
    let plural = |n: usize, one: &str, many: &str| {
        if n == 1 {
            format!("{n} {one}")
        } else {
            format!("{n} {many}")
        }
    };
    if c.regressions == 0 {
        return format!(
            "no regression beyond {}% over {} matched points; {}",
            c.threshold_percent,
            c.points.len(),
            plural(c.improvements, "improvement", "improvements")
        );
    }
    format!(
        "{} in {} (threshold {}%); {}",
        plural(c.regressions, "regression", "regressions"),
        plural(points, "point", "points"),
        c.threshold_percent,
        plural(c.improvements, "improvement", "improvements")
    )
}

/// Every matched figure in an aligned table, then the unmatched points, then the outcome.
pub fn text(c: &RunComparison) -> String {
    let mut out = format!("BASE  {}\nNEW   {}\n", describe(&c.base), describe(&c.new));
    for w in &c.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out.push('\n');
    out.push_str(&answers_text(&c.answers));
    let mut rows: Vec<[String; 7]> = vec![[
        "point".into(),
        "class".into(),
        "metric".into(),
        "base".into(),
        "new".into(),
        "change".into(),
        String::new(),
    ]];
    for p in &c.points {
        if let Some(s) = &p.status {
            // The last column is not padded: a long message does not widen the table.
            let word = if p.regressed { "REGRESSED: " } else { "" };
            let mut row: [String; 7] = Default::default();
            row[0] = p.label.clone();
            row[6] = format!("{word}{s}");
            rows.push(row);
        }
        for (i, m) in p.metrics.iter().enumerate() {
            let label = if i == 0 {
                p.label.clone()
            } else {
                String::new()
            };
            rows.push([
                label,
                class_cell(m),
                m.stat.clone(),
                m.base_text.clone(),
                m.new_text.clone(),
                m.change_text.clone(),
                verdict_cell(m),
            ]);
        }
    }
    out.push_str(&aligned(&rows));
    for (which, labels) in [("BASE", &c.only_in_base), ("NEW", &c.only_in_new)] {
        if !labels.is_empty() {
            out.push_str(&format!("\nonly in {which}: {}\n", labels.join("; ")));
        }
    }
    out.push_str(&format!("\n{}\n", outcome(c)));
    out
}

/// The answers first: what the runs exist to give, each line with where it was taken and, when
/// flagged, the validity warnings at its point.
fn answers_text(answers: &[AnswerChange]) -> String {
    if answers.is_empty() {
        return String::new();
    }
    let mut rows: Vec<[String; 7]> = vec![[
        "answer".into(),
        "taken at (BASE)".into(),
        String::new(),
        "base".into(),
        "new".into(),
        "change".into(),
        String::new(),
    ]];
    for a in answers {
        rows.push([
            a.answer.clone(),
            a.base_point.clone(),
            String::new(),
            a.base_text.clone(),
            a.new_text.clone(),
            a.change_text.clone(),
            answer_verdict(a),
        ]);
    }
    let mut out = aligned(&rows);
    for a in answers {
        for w in &a.warnings {
            out.push_str(&format!("  {}: {w}\n", a.answer));
        }
    }
    out.push('\n');
    out
}

/// An answer's verdict word and its note.
pub(super) fn answer_verdict(a: &AnswerChange) -> String {
    match (verdict_word(a.verdict), a.note.is_empty()) {
        (w, true) => w.to_owned(),
        ("", false) => a.note.clone(),
        (w, false) => format!("{w}: {}", a.note),
    }
}

fn aligned(rows: &[[String; 7]]) -> String {
    let mut widths = [0usize; 7];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            if (3..=5).contains(&i) {
                line.push_str(&format!("{cell:>w$}  "));
            } else {
                line.push_str(&format!("{cell:<w$}  "));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A heading with the outcome, the runs, warnings, the regressions (when any) and every figure in
/// a collapsed section.
pub fn markdown(c: &RunComparison) -> String {
    let title = if c.regressions == 0 {
        "no regression".to_owned()
    } else if c.regressions == 1 {
        "1 regression".to_owned()
    } else {
        format!("{} regressions", c.regressions)
    };
    let mut out = format!("### rigel compare: {title}\n\n");
    out.push_str(&format!(
        "- **BASE** `{}` {}\n- **NEW** `{}` {}\n- threshold: {}% (fewer IOPS or MiB/s, or more latency, is worse)\n\n",
        c.base.path,
        facts(&c.base),
        c.new.path,
        facts(&c.new),
        c.threshold_percent
    ));
    if !c.warnings.is_empty() {
        let quoted: Vec<String> = c
            .warnings
            .iter()
            .map(|w| format!("> **Warning:** {w}"))
            .collect();
        out.push_str(&quoted.join("\n>\n"));
        out.push_str("\n\n");
    }
    out.push_str(&format!("{}.\n\n", capitalize(&outcome(c))));
    if !c.answers.is_empty() {
        out.push_str("#### Answers\n\n| answer | BASE | NEW | change | verdict |\n|---|---:|---:|---:|---|\n");
        for a in &c.answers {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                a.answer,
                a.base_text,
                a.new_text,
                a.change_text,
                answer_verdict(a)
            ));
        }
        for a in c.answers.iter().filter(|a| !a.warnings.is_empty()) {
            out.push_str(&format!("\n{}: {}\n", a.answer, a.warnings.join("; ")));
        }
        out.push('\n');
    }
    let failed: Vec<String> = c
        .points
        .iter()
        .filter_map(|p| p.status.as_ref().map(|s| format!("- `{}`: {s}\n", p.label)))
        .collect();
    if !failed.is_empty() {
        out.push_str("Failed points:\n\n");
        out.push_str(&failed.concat());
        out.push('\n');
    }
    let regressed: Vec<(&str, &MetricChange)> = c
        .points
        .iter()
        .flat_map(|p| p.metrics.iter().map(move |m| (p.label.as_str(), m)))
        .filter(|(_, m)| m.verdict == Change::Regressed)
        .collect();
    if !regressed.is_empty() {
        out.push_str("#### Regressions\n\n");
        out.push_str(&md_table(&regressed));
        out.push('\n');
    }
    let all: Vec<(&str, &MetricChange)> = c
        .points
        .iter()
        .flat_map(|p| p.metrics.iter().map(move |m| (p.label.as_str(), m)))
        .collect();
    if !all.is_empty() {
        out.push_str(&format!(
            "<details><summary>All {} figures of {} matched points</summary>\n\n",
            all.len(),
            c.points.len()
        ));
        out.push_str(&md_table(&all));
        out.push_str("\n</details>\n");
    }
    for (which, labels) in [("BASE", &c.only_in_base), ("NEW", &c.only_in_new)] {
        if !labels.is_empty() {
            let list: Vec<String> = labels.iter().map(|l| format!("`{l}`")).collect();
            out.push_str(&format!("\nOnly in {which}: {}.\n", list.join(", ")));
        }
    }
    out
}

fn md_table(rows: &[(&str, &MetricChange)]) -> String {
    let mut out = String::from(
        "| Point | Class | Metric | Base | New | Change | |\n|---|---|---|--:|--:|--:|---|\n",
    );
    for (label, m) in rows {
        let word = match m.verdict {
            Change::Regressed => "**regressed**",
            Change::Improved => "improved",
            Change::Inconclusive => "inconclusive",
            Change::Within => "",
        };
        let word = if m.verdict == Change::Inconclusive {
            verdict_cell(m)
        } else {
            word.to_owned()
        };
        out.push_str(&format!(
            "| `{label}` | {} | {} | {} | {} | {} | {word} |\n",
            class_cell(m),
            m.stat,
            m.base_text,
            m.new_text,
            m.change_text
        ));
    }
    out
}

pub(super) fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_point_is_one_point() {
        let r = RunSummary {
            path: "a".into(),
            name: "oltp".into(),
            started: "2026-11-30T01:02:03".into(),
            host: "h".into(),
            rigel_version: "0".into(),
            points: 1,
            runs: 1,
        };
        assert_eq!(facts(&r), "(oltp, 1 point, 2026-11-30 01:02)");
    }
}
