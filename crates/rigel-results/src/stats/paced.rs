//! Classes that pace each other on one worker: one thread and one io_uring serve every class, and
//! where the storage completes an I/O at its submission (tmpfs, the page cache) each turn of the
//! worker completes one I/O of each class of one outstanding I/O, so those classes complete the
//! same number of I/Os at the speed of the slowest. Their figures are real but not their own: the
//! point says so, and how to measure them apart.

use super::warning::Warning;
use crate::view::ResultsView;
use rigel_expr::units;

/// A class needs this many I/Os in the window before equal counts mean anything.
const MIN_IOS: u64 = 100;

/// One warning per point where two or more classes of a one-worker run completed the same
/// number of I/Os (within 0.5%, or 2): lockstep, not two measurements.
pub fn paced_warnings(view: &ResultsView) -> Vec<Warning> {
    let workers = view.doc.plan.run.workers;
    if workers != 1 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for read in view.points.iter().filter(|p| p.ok) {
        let p = read.result;
        let mut counts: Vec<(&str, u64)> = read
            .running()
            .filter_map(|c| c.result)
            // An open-loop class's count is its schedule's: two at one rate agree by design.
            .filter(|c| c.pace.is_none() && c.total.ios >= MIN_IOS)
            .map(|c| (c.class.as_str(), c.total.ios))
            .collect();
        counts.sort_by_key(|(_, n)| *n);
        let Some(group) = lockstep(&counts) else {
            continue;
        };
        // Named in the spec's order: counts within 0.5% of each other sort either way.
        let mut names: Vec<&str> = group.iter().map(|(c, _)| *c).collect();
        let order = |c: &str| view.doc.plan.classes.iter().position(|k| k.name == c);
        names.sort_by_key(|c| order(c));
        let n = group[0].1;
        out.push(Warning {
            kind: "paced",
            point: Some(p.point.id),
            points: vec![p.point.id],
            class: None,
            figure: n as f64,
            message: format!(
                "point {} ({}): {} completed the same number of I/Os ({} each) on one worker: \
                 they share its io_uring and pace each other, so neither figure is its own; set \
                 run.workers to {} (one per class) to measure them apart",
                p.point.id,
                p.point.label(),
                names.join(" and "),
                units::thousands(n as f64),
                view.doc.plan.classes.len()
            ),
            evidence: None,
            volume: false,
        });
    }
    out
}

/// The longest run of neighbours (sorted by count) within 0.5% (or 2 I/Os) of each other, when
/// it has two classes or more.
fn lockstep<'a>(counts: &[(&'a str, u64)]) -> Option<Vec<(&'a str, u64)>> {
    let close = |a: u64, b: u64| a.abs_diff(b) <= 2.max(a.max(b) / 200);
    let mut best: Vec<(&str, u64)> = Vec::new();
    let mut run: Vec<(&str, u64)> = Vec::new();
    for &(c, n) in counts {
        match run.last() {
            Some(&(_, last)) if close(last, n) => run.push((c, n)),
            _ => run = vec![(c, n)],
        }
        if run.len() > best.len() {
            best = run.clone();
        }
    }
    (best.len() >= 2).then_some(best)
}

#[cfg(test)]
mod tests {
    #[test]
    fn equal_counts_are_lockstep_and_different_ones_are_not() {
        let g = super::lockstep(&[("redo", 1_136), ("scan", 1_137), ("data", 37_754)]);
        let names: Vec<&str> = g.expect("lockstep").iter().map(|(c, _)| *c).collect();
        assert_eq!(names, ["redo", "scan"]);
        assert!(super::lockstep(&[("redo", 829), ("scan", 505)]).is_none());
    }
}
