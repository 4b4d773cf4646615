//! Which charts are the answers' (page 2 of the handover): each answer's figure against the load,
//! and its class's latency against the load; the other charts go to the appendix.

use super::{Chart, slug};
use crate::handover::Figure;

/// What an answer's figure measures, read from its unit: a chart shows one of these.
fn quantity(f: &Figure) -> &'static str {
    if f.text.ends_with("IOPS") {
        "iops"
    } else if f.text.contains("MB/s") || f.text.contains("MiB/s") {
        "mbps"
    } else {
        "latency"
    }
}

/// True when `name` is `base` or one of its numbered or swept siblings (`iops-2`, `latency-data-size-8k`).
fn is_of(name: &str, base: &str) -> bool {
    name == base
        || name
            .strip_prefix(base)
            .is_some_and(|rest| rest.starts_with('-'))
}

/// Marks the charts of `figures`: the IOPS or MiB/s chart of an IOPS or MiB/s answer (its class's
/// `held` chart when its load stood still), and the latency chart of every answer's class (the latency beside each answer is that chart's at its load).
pub fn mark(charts: &mut [Chart], figures: &[&Figure]) {
    for c in charts.iter_mut() {
        c.answer = figures.iter().any(|f| {
            let q = quantity(f);
            let class = slug(&f.class);
            // A class held still while another's load rises has its figure in its `held` chart.
            (q != "latency" && (is_of(&c.name, q) || is_of(&c.name, &format!("held-{class}"))))
                || is_of(&c.name, &format!("latency-{class}"))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::is_of;

    #[test]
    fn a_chart_is_of_its_base_and_its_siblings_only() {
        assert!(is_of("iops", "iops"));
        assert!(is_of("iops-2", "iops"));
        assert!(is_of("latency-data-size-8k", "latency-data"));
        assert!(!is_of("latency-database", "latency-data"));
        assert!(!is_of("mbps", "iops"));
    }
}
