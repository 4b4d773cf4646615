//! A comparison as one self-contained HTML page (`rigel compare --format html`): the outcome, the
//! answers (as the Markdown page has them), every figure with regressions marked, the unmatched
//! points, and the overlay chart.

use super::render::{answer_verdict, capitalize, class_cell, facts, outcome, verdict_cell};
use super::{Change, RunComparison};

/// One self-contained HTML page: the outcome, every figure (regressions marked), the unmatched
/// points, and the overlay chart inline when given (`rigel compare --format html`).
pub fn html(c: &RunComparison, overlay_svg: Option<&str>) -> String {
    use minijinja::HtmlEscape as E;
    let mut out = String::from(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>rigel compare</title><style>\
         body{font-family:system-ui,sans-serif;max-width:1100px;margin:0 auto;padding:16px;color:#1f2933}\
         table{border-collapse:collapse;font-size:.9rem}th,td{padding:4px 8px;border-bottom:1px solid #e4e7eb;text-align:right}\
         th:nth-child(-n+3),td:nth-child(-n+3){text-align:left}.bad{color:#b00020;font-weight:600}\
         .warn{background:#fff4e5;border:1px solid #f0b429;padding:8px 12px;border-radius:6px}\
         .scroll{overflow-x:auto}svg{max-width:100%;height:auto}\
         @page{size:A4;margin:14mm}@media print{body{max-width:none;padding:0}.scroll{overflow:visible}}\
         </style></head><body>\n",
    );
    out.push_str(&format!(
        "<h1>rigel compare</h1>\n<p><strong>BASE</strong> <code>{}</code> {}<br><strong>NEW</strong> <code>{}</code> {}</p>\n",
        E(&c.base.path),
        E(&facts(&c.base)),
        E(&c.new.path),
        E(&facts(&c.new))
    ));
    for w in &c.warnings {
        out.push_str(&format!("<p class=\"warn\">Warning: {}</p>\n", E(w)));
    }
    out.push_str(&format!("<p>{}.</p>\n", E(&capitalize(&outcome(c)))));
    // The answers first, as the Markdown page has them: what the runs exist to give.
    if !c.answers.is_empty() {
        out.push_str(
            "<h2>Answers</h2>\n<div class=\"scroll\"><table>\n<tr><th>Answer</th><th>Taken at (BASE)</th><th></th><th>Base</th><th>New</th><th>Change</th><th>Verdict</th></tr>\n",
        );
        for a in &c.answers {
            let class = row_class(a.verdict);
            out.push_str(&format!(
                "<tr{class}><td>{}</td><td>{}</td><td></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                E(&a.answer),
                E(&a.base_point),
                E(&a.base_text),
                E(&a.new_text),
                E(&a.change_text),
                E(&answer_verdict(a))
            ));
        }
        out.push_str("</table></div>\n");
        for a in c.answers.iter().filter(|a| !a.warnings.is_empty()) {
            out.push_str(&format!(
                "<p class=\"warn\">{}: {}</p>\n",
                E(&a.answer),
                E(&a.warnings.join("; "))
            ));
        }
    }
    if let Some(svg) = overlay_svg {
        out.push_str(&format!("<figure>{svg}</figure>\n"));
    }
    out.push_str(
        "<div class=\"scroll\"><table>\n<tr><th>Point</th><th>Class</th><th>Metric</th><th>Base</th><th>New</th><th>Change</th><th></th></tr>\n",
    );
    for p in &c.points {
        if let Some(s) = &p.status {
            out.push_str(&format!(
                "<tr><td>{}</td><td colspan=\"6\" class=\"bad\">{}</td></tr>\n",
                E(&p.label),
                E(s)
            ));
        }
        for m in &p.metrics {
            let class = row_class(m.verdict);
            out.push_str(&format!(
                "<tr{class}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                E(&p.label),
                E(&class_cell(m)),
                E(&m.stat),
                E(&m.base_text),
                E(&m.new_text),
                E(&m.change_text),
                E(&verdict_cell(m))
            ));
        }
    }
    out.push_str("</table></div>\n");
    for (which, labels) in [("BASE", &c.only_in_base), ("NEW", &c.only_in_new)] {
        if !labels.is_empty() {
            out.push_str(&format!(
                "<p>Only in {which}: {}.</p>\n",
                E(&labels.join(", "))
            ));
        }
    }
    out.push_str("</body></html>\n");
    out
}

/// A row's class attribute: a regression marked.
fn row_class(verdict: Change) -> &'static str {
    if verdict == Change::Regressed {
        " class=\"bad\""
    } else {
        ""
    }
}
