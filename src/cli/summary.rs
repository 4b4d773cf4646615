//! The end of a run on the terminal: the spec's answers, ORION's headline lines for ORION's
//! shapes, and where the results are.

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
    if !super::style::quiet() {
        outln!();
        // The spec's answers, as page 1 of the reports gives them; ORION's own lines for ORION's
        // shapes (scripts parse them).
        for line in answer_lines(doc) {
            outln!("{line}");
        }
        if rigel_judge::answers::orion_shape(doc.plan()) {
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
    warn(doc, dir);
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
            "{why}: {} points did not run; finish with: rigel run --resume {}",
            all - done,
            dir.display()
        );
    }
}

/// The validity warnings, each naming the figure that triggered it (`rigel run` and `rigel orion`
/// alike).
pub fn warn(doc: &ResultsDoc, dir: &Path) {
    let cfg = rigel_results::stats::ValidityConfig::default();
    let view = ResultsView::new(doc);
    for w in rigel_results::stats::warnings(&view, &rigel_record::past_runs(dir), &cfg) {
        eprintln!("warning: {}", w.message);
    }
}

/// One line per answer: its figure, the latency beside it and the point it was taken at, or why
/// no point gave it.
pub fn answer_lines(doc: &ResultsDoc) -> Vec<String> {
    rigel_judge::answers::evaluate(doc)
        .iter()
        .map(|a| {
            let name = if a.group.is_empty() {
                a.name.clone()
            } else {
                format!("{} ({})", a.name, a.group)
            };
            if a.value.is_none() {
                return format!("Answer: {name}: none ({})", a.note);
            }
            let note = if a.note.is_empty() {
                String::new()
            } else {
                format!("; {}", a.note)
            };
            format!(
                "Answer: {name}: {} ({}; at {}{note})",
                a.text, a.latency, a.point
            )
        })
        .collect()
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
