//! Burst buckets that run out between points: a sweep whose later points fall while their latency
//! rises, not explained by the load (the class's own load did not fall, the others' did not grow,
//! nothing else in the point changed). The bucket is the volume's, so it does not wait for a
//! point to end: a point of a few seconds cannot show the step alone, and an ORION sweep runs its
//! burst on credit through the first levels and its baseline through the rest.
//!
//! The test is [`super::burst_step::split`] over the class's full seconds, its points end to end
//! in run order within one `[sweep]` combination: the same change point, confidence and
//! sustained-step rules as within a point.

use super::burst_step::{BurstStep, before_ok, credit, split, within_points};
use super::seconds::full_seconds;
use crate::Interval;
use crate::view::{PointRead, ResultsView};

/// Every step: within a point, then for a class with no such point, between its points.
pub(super) fn burst_steps(view: &ResultsView) -> Vec<BurstStep> {
    let mut out = within_points(view);
    let stepped: Vec<String> = out.iter().map(|b| b.class.clone()).collect();
    out.extend(across_points(view, &stepped));
    out
}

/// Across points, the rate after the step as a share of the rate before, at most: stricter than
/// within a point ([`super::burst_step::MAX_AFTER`]), since points apart in time are also apart
/// in what else the host ran (a busy neighbour for a minute is not a bucket); a bucket's
/// baseline is a fraction of its burst (gp2: 3,000 against 100 to 3,000 by size).
pub const MAX_AFTER_ACROSS: f64 = 0.5;

/// Steps between the points of each closed-loop class not in `stepped` (those whose step one
/// point already shows).
fn across_points(view: &ResultsView, stepped: &[String]) -> Vec<BurstStep> {
    let mut out = Vec::new();
    for group in view.groups() {
        let mut classes: Vec<&str> = Vec::new();
        for p in group.points.iter().filter(|p| p.ok) {
            for c in p.running().filter(|c| c.params.rate.is_none()) {
                if !classes.contains(&c.name()) && !stepped.iter().any(|s| s == c.name()) {
                    classes.push(c.name());
                }
            }
        }
        for class in classes {
            let points: Vec<&PointRead> = group
                .points
                .iter()
                .copied()
                .filter(|p| p.ok && p.class(class).is_some_and(|c| c.runs()))
                .collect();
            out.extend(class_step(view, &points, class));
        }
    }
    out
}

/// The step in one class's points, when it falls past the first point and the load explains it
/// not.
fn class_step(view: &ResultsView, points: &[&PointRead], class: &str) -> Option<BurstStep> {
    if points.len() < 2 {
        return None;
    }
    // Each full second with the index of its point.
    let mut secs: Vec<(usize, &Interval)> = Vec::new();
    for (i, p) in points.iter().enumerate() {
        let r = p.class(class)?.result?;
        secs.extend(full_seconds(&r.intervals).map(|s| (i, s)));
    }
    let flat: Vec<&Interval> = secs.iter().map(|(_, s)| *s).collect();
    let (k, before, after, w1, w2, t) = split(&flat)?;
    if after > MAX_AFTER_ACROSS * before {
        return None;
    }
    let (last_before, last_s) = secs[k - 1];
    let first_after = secs[k].0;
    if first_after == 0 || !load_explains_not(&points[last_before..], class) {
        return None;
    }
    let at_s = since_first(points, last_before) + last_s.t_s;
    let stepped = points[first_after];
    // The point holding the step's last credit second is a burst figure too when the step
    // falls inside it.
    let mut on_credit = before_ok(view, stepped.id());
    if last_before == first_after {
        on_credit.push(stepped.id());
    }
    Some(BurstStep {
        point: stepped.id(),
        class: class.to_owned(),
        at_s,
        before,
        after,
        latency_before_ns: w1,
        latency_after_ns: w2,
        t,
        credit: credit(before, after, at_s),
        across: true,
        on_credit,
    })
}

/// From the point before the step on, the class's load never fell and the other classes' never
/// grew: a drop in throughput there is not the load's.
fn load_explains_not(points: &[&PointRead], class: &str) -> bool {
    let others = |p: &PointRead| -> u32 {
        p.running()
            .filter(|c| c.name() != class)
            .map(|c| c.params.load)
            .sum()
    };
    let first = points[0];
    points
        .iter()
        .all(|p| p.load_of(class) >= first.load_of(class) && others(p) <= others(first))
}

/// Seconds from the start of the first point's measured window to the start of point `i`'s:
/// wall clock where the points kept it, else the measured windows end to end.
fn since_first(points: &[&PointRead], i: usize) -> f64 {
    let wall = |p: &PointRead| p.result.window.map(|w| w.start_ns);
    match (wall(points[0]), wall(points[i])) {
        (Some(a), Some(b)) if b >= a => (b - a) as f64 / 1e9,
        _ => points[..i].iter().map(|p| p.result.elapsed_s).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ResultsDoc;
    use serde_json::{Value, json};

    /// ORION's simple run (small at loads 1–5, then large) with the small points' loads and
    /// per-second IOPS replaced; latency as a closed loop gives it (load / IOPS).
    fn steps(small: &[(u32, f64)]) -> Vec<BurstStep> {
        let mut doc: Value = serde_json::from_str(rigel_testkit::fixtures::BASIC).expect("fixture");
        for (i, (load, iops)) in small.iter().enumerate() {
            let p = &mut doc["points"][i];
            p["point"]["classes"][0]["load"] = json!(load);
            let c = &mut p["classes"][0];
            assert_eq!(c["class"], "small");
            let mean_ns = f64::from(*load) / iops * 1e9;
            let secs: Vec<Value> = (1..=2)
                .map(|t| {
                    json!({"t_s": t, "ios": *iops as u64, "iops": iops, "mbps": 0.0,
                    "mean_ns": mean_ns, "p99_ns": 0})
                })
                .collect();
            c["intervals"] = secs.into();
        }
        let doc: ResultsDoc = serde_json::from_value(doc).expect("a document");
        super::burst_steps(&ResultsView::new(&doc))
    }

    #[test]
    fn later_points_falling_while_the_load_grows_are_a_step_after_the_credit_points() {
        let found = steps(&[(1, 3000.0), (2, 3010.0), (3, 300.0), (4, 301.0), (5, 299.0)]);
        assert_eq!(found.len(), 1, "{found:#?}");
        let b = &found[0];
        assert!(b.across && b.class == "small" && b.point == 3, "{b:#?}");
        assert_eq!(b.on_credit, vec![1, 2]);
        assert!((b.after - 300.0).abs() < 1.0, "{b:#?}");
        assert!(b.t >= super::super::burst_step::MIN_T, "{b:#?}");
    }

    #[test]
    fn a_fall_the_load_explains_or_growth_is_no_step() {
        // The load fell with the throughput: a sweep downwards, not a bucket.
        let falling = [(5, 3000.0), (4, 3010.0), (3, 300.0), (2, 301.0), (1, 299.0)];
        assert_eq!(steps(&falling), vec![]);
        let growing = [
            (1, 1000.0),
            (2, 1900.0),
            (3, 2700.0),
            (4, 3300.0),
            (5, 3500.0),
        ];
        assert_eq!(steps(&growing), vec![]);
        // A third lower from load 3 on: a neighbour's load as much as a bucket, not told.
        let third = [
            (1, 3000.0),
            (2, 3010.0),
            (3, 2000.0),
            (4, 2010.0),
            (5, 1990.0),
        ];
        assert_eq!(steps(&third), vec![]);
        // One low point that recovers is not sustained.
        let dip = [
            (1, 3000.0),
            (2, 3010.0),
            (3, 300.0),
            (4, 3000.0),
            (5, 3005.0),
        ];
        assert_eq!(steps(&dip), vec![]);
    }
}
