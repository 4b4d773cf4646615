//! Figures that cannot be, refused where results are read: a negative or non-finite rate, a
//! latency whose minimum exceeds its maximum, percentiles out of order, a point listed twice, a
//! point that is not the plan's. A document that says any of these was damaged or forged, and a
//! report built on it would print what was never measured (`Maximum Small IOPS=-5000000`). Each
//! refusal names the field, for the reader to name the file.

use crate::{ClassResult, DirStats, LatencyStats, PointResult, ResultsDoc};
use rigel_plan::RunPlan;
use std::collections::HashSet;

/// One impossible figure: where it is (`point 7, class small, total.iops`) and what is wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct Impossible {
    pub field: String,
    pub message: String,
}

fn impossible(field: impl Into<String>, message: impl Into<String>) -> Impossible {
    Impossible {
        field: field.into(),
        message: message.into(),
    }
}

/// A rate, a duration or a CPU time: finite and not negative.
pub fn amount(field: &str, value: f64) -> Result<(), Impossible> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(impossible(
            field,
            format!("{value} cannot be (a measured amount is finite and never negative)"),
        ))
    }
}

/// Latency figures: mean and stdev amounts, min ≤ each percentile in order ≤ max (when any I/O
/// completed: an empty direction holds zeros).
pub fn latency(field: &str, l: &LatencyStats, ios: u64) -> Result<(), Impossible> {
    amount(&format!("{field}.mean_ns"), l.mean_ns)?;
    amount(&format!("{field}.stdev_ns"), l.stdev_ns)?;
    if ios == 0 {
        return Ok(());
    }
    if l.min_ns > l.max_ns {
        return Err(impossible(
            format!("{field}.min_ns"),
            format!(
                "the minimum {} ns exceeds the maximum {} ns",
                l.min_ns, l.max_ns
            ),
        ));
    }
    let order = [
        ("p50_ns", l.p50_ns),
        ("p90_ns", l.p90_ns),
        ("p99_ns", l.p99_ns),
        ("p99_9_ns", l.p99_9_ns),
        ("p99_99_ns", l.p99_99_ns),
    ];
    for pair in order.windows(2) {
        let ((a, va), (b, vb)) = (pair[0], pair[1]);
        if va > vb {
            return Err(impossible(
                format!("{field}.{a}"),
                format!("{va} ns exceeds {b} ({vb} ns): percentiles rise with their rank"),
            ));
        }
    }
    // The mean of values within [min, max] lies within them (a nanosecond's rounding aside).
    if l.mean_ns + 1.0 < l.min_ns as f64 || l.mean_ns > l.max_ns as f64 + 1.0 {
        return Err(impossible(
            format!("{field}.mean_ns"),
            format!(
                "{} ns lies outside [min {} ns, max {} ns]",
                l.mean_ns, l.min_ns, l.max_ns
            ),
        ));
    }
    Ok(())
}

/// An encoded histogram whose header claims more than it holds or sane bounds, or that inflates
/// past the limit (a compression bomb): refused, where the merge would otherwise drop it silently.
/// An empty one is "no histogram".
pub fn histogram(field: &str, text: &str) -> Result<(), Impossible> {
    use base64::Engine;
    if text.is_empty() {
        return Ok(());
    }
    let raw = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|_| impossible(field, "not base64"))?;
    crate::codec::checked_v2(&raw)
        .map(|_| ())
        .map_err(|e| impossible(field, e.to_string()))
}

/// One direction's figures.
pub fn rates(field: &str, iops: f64, mbps: f64) -> Result<(), Impossible> {
    amount(&format!("{field}.iops"), iops)?;
    amount(&format!("{field}.mbps"), mbps)
}

fn dir(field: &str, d: &DirStats) -> Result<(), Impossible> {
    rates(field, d.iops, d.mbps)?;
    latency(&format!("{field}.latency"), &d.latency, d.ios)?;
    if let Some(s) = &d.service {
        latency(&format!("{field}.service.latency"), &s.latency, d.ios)?;
    }
    Ok(())
}

fn class(field: &str, c: &ClassResult) -> Result<(), Impossible> {
    dir(&format!("{field}.total"), &c.total)?;
    for (name, d) in [("read", &c.read), ("write", &c.write)] {
        if let Some(d) = d {
            dir(&format!("{field}.{name}"), d)?;
        }
    }
    for (i, s) in c.intervals.iter().enumerate() {
        let at = format!("{field}.intervals[{i}]");
        rates(&at, s.iops, s.mbps)?;
        amount(&format!("{at}.mean_ns"), s.mean_ns)?;
        amount(&format!("{at}.t_s"), s.t_s)?;
    }
    if let Some(depth) = c.depth_held {
        amount(&format!("{field}.depth_held"), depth)?;
    }
    Ok(())
}

/// Every figure of one point, and its classes against the ones its planned point lists.
pub fn point(p: &PointResult) -> Result<(), Impossible> {
    let id = p.point.id;
    amount(&format!("point {id}: elapsed_s"), p.elapsed_s)?;
    amount(&format!("point {id}: cpu.user_s"), p.cpu.user_s)?;
    amount(&format!("point {id}: cpu.system_s"), p.cpu.system_s)?;
    let mut seen = HashSet::new();
    for c in &p.classes {
        let field = format!("point {id}: class {}", c.class);
        if !seen.insert(c.class.as_str()) {
            return Err(impossible(field, "listed twice"));
        }
        // A sparse point lists only the classes that run; every class with figures is one of them.
        if !p.point.classes.iter().any(|l| l.class == c.class) {
            return Err(impossible(
                field,
                "has figures but is not a class of the point",
            ));
        }
        class(&field, c)?;
    }
    if let Some(f) = &p.fleet
        && f.hosts > f.ranks
    {
        return Err(impossible(
            format!("point {id}: fleet.hosts"),
            format!("{} hosts of {} ranks", f.hosts, f.ranks),
        ));
    }
    Ok(())
}

/// What a fleet's merge sums of one rank's point: its rates, latencies and times.
pub fn light(p: &crate::stream::LightPoint) -> Result<(), Impossible> {
    let id = p.point.id;
    amount(&format!("point {id}: elapsed_s"), p.elapsed_s)?;
    amount(&format!("point {id}: cpu.user_s"), p.cpu.user_s)?;
    amount(&format!("point {id}: cpu.system_s"), p.cpu.system_s)?;
    for c in &p.classes {
        let dirs = [
            ("total", Some(&c.total)),
            ("read", c.read.as_ref()),
            ("write", c.write.as_ref()),
        ];
        for (name, d) in dirs {
            let Some(d) = d else { continue };
            let field = format!("point {id}: class {}.{name}", c.class);
            rates(&field, d.iops, d.mbps)?;
            latency(&format!("{field}.latency"), &d.latency, d.ios)?;
            histogram(&format!("{field}.histogram"), &d.histogram)?;
        }
    }
    Ok(())
}

/// Points against their plan: each point id once, and (for a plan that lists its points: a
/// search's trials are made as it goes) each point the very point the plan holds under its id.
pub fn against_plan<'a>(
    plan: &RunPlan,
    points: impl IntoIterator<Item = &'a PointResult>,
) -> Result<(), Impossible> {
    let mut seen = HashSet::new();
    for p in points {
        let id = p.point.id;
        if !seen.insert(id) {
            return Err(impossible(format!("point {id}"), "listed twice"));
        }
        if plan.search.is_some() {
            continue;
        }
        // Ids are 1-based in plan order; a plan written otherwise is searched.
        let planned = plan
            .points
            .get((id as usize).wrapping_sub(1))
            .filter(|q| q.id == id)
            .or_else(|| plan.points.iter().find(|q| q.id == id));
        match planned {
            None => {
                return Err(impossible(
                    format!("point {id}"),
                    format!("the plan has no point {id} (it has {})", plan.points.len()),
                ));
            }
            Some(q) if *q != p.point => {
                return Err(impossible(
                    format!("point {id}"),
                    format!(
                        "it ran {}, the plan's point {id} is {}",
                        p.point.label(),
                        q.label()
                    ),
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// A whole document: every point's figures, and the points against the document's plan.
pub fn doc(d: &ResultsDoc) -> Result<(), Impossible> {
    d.points.iter().try_for_each(point)?;
    against_plan(&d.plan, &d.points)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = rigel_testkit::fixtures::BASIC;

    fn fixture() -> ResultsDoc {
        serde_json::from_str(DOC).expect("fixture")
    }

    #[test]
    fn the_fixtures_hold_no_impossible_figure() {
        for text in [
            DOC,
            rigel_testkit::fixtures::DETAILED,
            rigel_testkit::fixtures::REAL_TWO_CLASSES,
            rigel_testkit::fixtures::REAL_SWEEP_SIZE_MIX,
            rigel_testkit::fixtures::QUICK_REAL_RUN,
        ] {
            let d: ResultsDoc = serde_json::from_str(text).expect("fixture");
            doc(&d).expect("a recorded run's figures are possible");
        }
    }

    #[test]
    fn negative_rates_inverted_extremes_and_duplicates_are_named() {
        let mut d = fixture();
        d.points[0].classes[0].total.iops = -5_000_000.0;
        let e = doc(&d).unwrap_err();
        assert!(e.field.ends_with("total.iops"), "{e}");
        let mut d = fixture();
        let l = &mut d.points[0].classes[0].total.latency;
        l.min_ns = l.max_ns + 1;
        assert!(doc(&d).unwrap_err().field.ends_with("latency.min_ns"));
        let mut d = fixture();
        let again = d.points[0].clone();
        d.points.push(again);
        assert_eq!(doc(&d).unwrap_err().message, "listed twice");
        let mut d = fixture();
        d.points[0].point.classes[0].load += 1;
        assert!(doc(&d).unwrap_err().message.contains("the plan's point"));
    }
}
