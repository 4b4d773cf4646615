//! What differs between the compared runs beyond their figures (spec, duration, host, an
//! incomplete run), and each side's one-line summary.

use super::{RunSummary, spec_diff};
use rigel_expr::units;
use rigel_results::ResultsDoc;
use rigel_results::stats::engines;

pub(super) fn summary(doc: &ResultsDoc, runs: usize) -> RunSummary {
    RunSummary {
        path: String::new(),
        name: doc.plan().name.clone(),
        started: doc.started().to_owned(),
        host: doc.host().hostname.clone(),
        rigel_version: doc.rigel_version().to_owned(),
        points: doc.points().len(),
        runs,
    }
}

/// What differs between the runs beyond the figures.
pub(super) fn warnings(base: &ResultsDoc, new: &ResultsDoc) -> Vec<String> {
    let mut w = Vec::new();
    let diff = spec_diff::spec_diff(base.spec_toml(), new.spec_toml());
    if !diff.is_empty() {
        let names = if base.plan().name == new.plan().name {
            String::new()
        } else {
            format!(" (BASE `{}`, NEW `{}`)", base.plan().name, new.plan().name)
        };
        w.push(format!(
            "the runs come from different specs{names}: points are compared where their workloads match; differing keys ([expect] left out): {}",
            diff.join("; ")
        ));
    }
    let (b, n) = (&base.plan().run, &new.plan().run);
    let mut differ = |what: &str, x: String, y: String| {
        if x != y {
            // `the targets differ`, `the engine differs`: the verb agrees with its subject.
            let verb = if what.ends_with('s') {
                "differ"
            } else {
                "differs"
            };
            w.push(format!("{what} {verb}: BASE {x}, NEW {y}"));
        }
    };
    differ(
        "the duration per point",
        ms(b.duration_ms),
        ms(n.duration_ms),
    );
    differ("the warmup", ms(b.warmup_ms), ms(n.warmup_ms));
    differ("direct I/O", b.direct.to_string(), n.direct.to_string());
    differ(
        "the worker count",
        b.workers.to_string(),
        n.workers.to_string(),
    );
    // Figures taken through another I/O path measure the path too (its CPU cost, its batching).
    differ(
        "the engine",
        engines::engines_label(base.points()),
        engines::engines_label(new.points()),
    );
    let paths = |d: &ResultsDoc| {
        let p: Vec<&str> = d.plan().targets.iter().map(|t| t.path.as_str()).collect();
        p.join(", ")
    };
    differ("the targets", paths(base), paths(new));
    differ(
        "the host",
        base.host().hostname.clone(),
        new.host().hostname.clone(),
    );
    for (which, d) in [("BASE", base), ("NEW", new)] {
        if d.points().len() < d.plan().points.len() {
            w.push(format!(
                "{which} is incomplete: {} of {} points ran",
                d.points().len(),
                d.plan().points.len()
            ));
        }
    }
    w
}

fn ms(v: u64) -> String {
    units::duration(std::time::Duration::from_millis(v))
}
