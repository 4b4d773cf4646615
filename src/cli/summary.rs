//! The end of a run on the terminal: ORION's headline lines and where the results are.

use super::outln;
use super::progress::human_ns;
use crate::stats::ResultsDoc;
use std::path::Path;

pub fn print(doc: &ResultsDoc, dir: &Path, interrupted: bool) {
    outln!();
    for line in headline(doc) {
        outln!("{line}");
    }
    outln!();
    // Validity warnings: each names the figure that triggered it.
    let cfg = crate::stats::ValidityConfig::default();
    for w in crate::stats::warnings(doc, &crate::record::past_runs(dir), &cfg) {
        eprintln!("warning: {}", w.message);
    }
    let done = doc.points.len();
    let all = doc.plan.points.len();
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

/// ORION's three lines: the best large MB/s, the best small IOPS and the lowest mean small latency,
/// each with its point. Classes play ORION's roles as in ORION's files (`report::orion_roles`).
pub fn headline(doc: &ResultsDoc) -> Vec<String> {
    let roles = crate::report::orion_roles(&doc.plan.classes);
    let role = |r: &str| roles.iter().find(|(_, v)| *v == r).map(|(k, _)| k.as_str());
    let (small, large) = (role("small"), role("large"));
    let at = |p: &crate::stats::PointResult| {
        format!(
            "Small={} and Large={}",
            small.map_or(0, |s| p.point.load_of(s)),
            large.map_or(0, |l| p.point.load_of(l))
        )
    };
    let best = |class: &str, key: &dyn Fn(&crate::stats::ClassResult) -> f64, min: bool| {
        doc.points
            .iter()
            .filter_map(|p| {
                p.class(class)
                    .filter(|c| c.total.ios > 0)
                    .map(|c| (key(c), p))
            })
            .reduce(|a, b| {
                if (b.0 < a.0) == min && b.0 != a.0 {
                    b
                } else {
                    a
                }
            })
    };
    let mut lines = Vec::new();
    if let Some((v, p)) = large.and_then(|l| best(l, &|c| c.total.mbps, false)) {
        lines.push(format!("Maximum Large MBPS={v:.2} @ {}", at(p)));
    }
    if let Some(s) = small {
        if let Some((v, p)) = best(s, &|c| c.total.iops, false) {
            lines.push(format!("Maximum Small IOPS={v:.0} @ {}", at(p)));
        }
        if let Some((v, p)) = best(s, &|c| c.total.latency.mean_ns, true) {
            lines.push(format!(
                "Minimum Small Latency={:.3} usecs @ {} ({})",
                v / 1e3,
                at(p),
                human_ns(v)
            ));
        }
    }
    lines
}
