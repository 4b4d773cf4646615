//! The end of a run on the terminal: page 1's verdict and answers, ORION's headline lines for
//! ORION's shapes, and where the results are.

use super::style::outln;
use rigel_results::ResultsDoc;
use rigel_results::stats::engines;
use rigel_results::view::{Best, ResultsView};
use std::path::Path;

pub fn print(doc: &ResultsDoc, dir: &Path, interrupted: bool) {
    // The run's verdict before any figure: a corrupted block makes every figure beside it moot.
    if super::integrity::failed(doc) {
        eprintln!(
            "DATA INTEGRITY FAILURE: blocks read back were not what the storage had acknowledged; \
             the figures below are not to be handed over (each point's account follows)"
        );
    }
    // What page 1's words already said on the terminal (its warnings are not said twice).
    let mut said = String::new();
    if !super::style::quiet() {
        outln!();
        // Page 1's verdict and answers, in its words; ORION's own lines after them for ORION's
        // shapes only (scripts parse those; another spec's classes are not ORION's small/large).
        match rigel_report::closing_summary(doc, rigel_record::past_runs(dir)) {
            Ok(text) => {
                for line in text.lines() {
                    outln!("{line}");
                }
                said = text;
            }
            Err(e) => eprintln!("rigel: the closing summary could not be written: {e}"),
        }
        if doc.plan().orion_shaped() {
            outln!();
            for line in headline(doc) {
                outln!("{line}");
            }
        }
        outln!();
        if let Some(e) = engines::engines_text(doc.points()) {
            outln!("engine: {e}");
        }
        if let Some(p) = engines::placement(doc.points()) {
            outln!("placement: {}", engines::placement_text(p));
        }
    }
    warn_unsaid(doc, dir, &said);
    for p in doc.points() {
        if let Some(st) = &p.steady {
            outln!("point {}: {}", p.point.id, st.summary);
        }
    }
    if let Some(s) = &doc.search() {
        outln!("search: {}", s.summary);
        if !s.finished {
            eprintln!(
                "finish the search with: rigel run --resume {}",
                dir.display()
            );
        }
    }
    let done = doc.points().len();
    // A search plans no points: its trials are all it runs.
    let all = if doc.search().is_some() {
        done
    } else {
        doc.plan().points.len()
    };
    outln!("results: {} ({done} of {all} points)", dir.display());
    if done < all {
        let why = if interrupted {
            "interrupted"
        } else {
            "stopped"
        };
        eprintln!(
            "{why}: {} did not run; finish with: rigel run --resume {}",
            rigel_expr::units::count((all - done) as u64, "point"),
            dir.display()
        );
    }
}

/// The validity warnings, each naming the figure that triggered it (`rigel run` and `rigel orion`
/// alike).
pub fn warn(doc: &ResultsDoc, dir: &Path) {
    warn_unsaid(doc, dir, "");
}

/// [`warn`], but not the warnings `said` (page 1's words on the terminal) already holds.
fn warn_unsaid(doc: &ResultsDoc, dir: &Path, said: &str) {
    let cfg = rigel_results::stats::ValidityConfig::default();
    let view = ResultsView::new(doc);
    for w in rigel_results::stats::warnings(&view, &rigel_record::past_runs(dir), &cfg) {
        if !said.contains(&rigel_report::terminal_text(&w.message)) {
            eprintln!("warning: {}", w.message);
        }
    }
}

/// ORION's three lines: the best large MB/s, the best small IOPS and the lowest mean small latency,
/// each with its point, by the results model's headline rule (the reports name the same points).
pub fn headline(doc: &ResultsDoc) -> Vec<String> {
    let view = ResultsView::new(doc);
    let h = view.headline(&view.all());
    let at = |b: &Best| {
        let mut s = format!(
            "Small={} and Large={}",
            view.role("small").map_or(0, |c| b.point.load_of(c)),
            view.role("large").map_or(0, |c| b.point.load_of(c))
        );
        let sweep: Vec<String> = b
            .point
            .sweep()
            .iter()
            .map(|s| format!("{}={}", s.key, s.value))
            .collect();
        if !sweep.is_empty() {
            s.push_str(&format!(" ({})", sweep.join(", ")));
        }
        s
    };
    let mut lines = Vec::new();
    if let Some(b) = &h.max_mbps {
        lines.push(format!("Maximum Large MBPS={:.2} @ {}", b.value, at(b)));
    }
    if let Some(b) = &h.max_iops {
        lines.push(format!("Maximum Small IOPS={:.0} @ {}", b.value, at(b)));
    }
    if let Some(b) = &h.min_latency {
        // ORION's line as ORION prints it: scripts parse it, so no human-friendly unit is added.
        lines.push(format!(
            "Minimum Small Latency={:.3} usecs @ {}",
            b.value / 1e3,
            at(b)
        ));
    }
    let left: Vec<String> = view
        .points
        .iter()
        .filter(|p| {
            ["small", "large"]
                .iter()
                .filter_map(|r| view.role(r))
                .any(|c| p.load_of(c) > 0 && !p.eligible_for_best(c))
        })
        .map(|p| p.id().to_string())
        .collect();
    if !left.is_empty() {
        lines.push(format!(
            "(left out: point {}: the rate was not achieved or the search target failed)",
            left.join(", ")
        ));
    }
    lines
}
