//! `[drain]`: the online watch for a burst bucket running out while the drain runs, and what a
//! drain means for the figures measured after it.
//!
//! The watch is the same change-point test as the stats' ([`super::burst_step::split`]), run
//! again over the drain's seconds each time a second finishes, with the stricter rate rule of a
//! step over a long series ([`super::burst_across::MAX_AFTER_ACROSS`]: the later rate at most
//! half the earlier). A step ends the drain once it has held for a margin past the two seconds
//! the test needs after it: a tenth of the time before it, [`MIN_MARGIN_S`] to [`MAX_MARGIN_S`].

use super::burst_across::MAX_AFTER_ACROSS;
use super::burst_step::{credit, split};
use crate::model::{DrainRecord, DrainStep};
use crate::view::ResultsView;
use crate::{Interval, PointResult};
use rigel_expr::units;
use std::time::Duration;

/// The margin a step must hold for past the seconds the test needs, seconds, at least and at most.
pub const MIN_MARGIN_S: f64 = 2.0;
pub const MAX_MARGIN_S: f64 = 60.0;
/// The seconds the test needs after a step.
const MIN_AFTER: usize = 2;

/// The drain's seconds so far, and the step once it has held.
#[derive(Debug, Default)]
pub struct Watch {
    secs: Vec<Interval>,
}

impl Watch {
    /// Second `index` (0-based) of the drain finished with `ios` I/Os at a mean latency of
    /// `mean_ns`: the step, once one has held for its margin (the drain ends then).
    pub fn push(&mut self, index: usize, ios: u64, mean_ns: f64) -> Option<DrainStep> {
        self.secs.push(Interval {
            t_s: (index + 1) as f64,
            ios,
            iops: ios as f64,
            mbps: 0.0,
            mean_ns,
            p99_ns: 0,
            read_histogram: None,
            write_histogram: None,
        });
        self.step()
    }

    fn step(&self) -> Option<DrainStep> {
        let refs: Vec<&Interval> = self.secs.iter().collect();
        let (k, before, after, w1, w2, t) = split(&refs)?;
        let at_s = self.secs[k - 1].t_s;
        let margin = (at_s / 10.0).clamp(MIN_MARGIN_S, MAX_MARGIN_S);
        let held = self.secs[self.secs.len() - 1].t_s - at_s;
        (after <= MAX_AFTER_ACROSS * before && held >= MIN_AFTER as f64 + margin).then(|| {
            DrainStep {
                at_s,
                before,
                after,
                latency_before_ns: w1,
                latency_after_ns: w2,
                t,
                ios_before: self.secs[..k].iter().map(|s| s.ios).sum(),
                credit: credit(before, after, at_s),
            }
        })
    }

    /// The record of a drain that ran `seconds` of its `limit` and completed `ios` I/Os, with
    /// the step that ended it (none: the limit came first).
    pub fn record(
        &self,
        step: Option<DrainStep>,
        seconds: f64,
        limit: Duration,
        ios: u64,
    ) -> DrainRecord {
        let summary = match &step {
            Some(s) => format!(
                "a burst bucket ran out after {} of drain ({} → {} IOPS, latency {} → {}; about \
                 {} I/Os of credit)",
                units::duration(Duration::from_secs_f64(s.at_s)),
                units::thousands(s.before),
                units::thousands(s.after),
                units::latency(s.latency_before_ns),
                units::latency(s.latency_after_ns),
                units::thousands(s.credit),
            ),
            None => format!(
                "ran its limit of {} without seeing a burst bucket run out",
                units::duration(limit)
            ),
        };
        DrainRecord {
            seconds,
            limit_s: limit.as_secs_f64(),
            stepped: step.is_some(),
            ios,
            iops: self.secs.iter().map(|s| s.iops).collect(),
            step,
            summary,
        }
    }
}

/// The drain the run's points were measured after, with the point that carries it.
pub fn drain_of<'d>(
    points: impl IntoIterator<Item = &'d PointResult>,
) -> Option<(u32, &'d DrainRecord)> {
    points
        .into_iter()
        .find_map(|p| p.drain.as_ref().map(|d| (p.point.id, d)))
}

/// The points measured after a drain that saw its bucket run out: not burst figures, whatever a
/// later step says.
pub(super) fn drained(view: &ResultsView) -> Vec<u32> {
    let from = view
        .points
        .iter()
        .position(|p| p.result.drain.as_ref().is_some_and(|d| d.stepped));
    from.map(|i| view.points[i..].iter().map(|p| p.id()).collect())
        .unwrap_or_default()
}

/// A drain that ended at its limit: the measured figures may still be on credit.
pub(super) fn limit_warning(view: &ResultsView) -> Option<super::warning::Warning> {
    let (point, d) = drain_of(view.points.iter().map(|p| p.result))?;
    if d.stepped {
        return None;
    }
    Some(super::warning::Warning {
        kind: "drain-limit",
        point: Some(point),
        points: vec![point],
        class: None,
        figure: d.seconds,
        message: format!(
            "the drain {}: the measured figures may still be on a burst bucket's credit (raise \
             [drain] limit, or the volume has no bucket)",
            d.summary
        ),
        evidence: None,
        volume: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ResultsDoc;
    use crate::stats::{ValidityConfig, volume_findings};
    use serde_json::{Value, json};

    /// Seconds at `iops` with a closed loop's latency at load 4, into a watch; the step it
    /// ended at and the second it did.
    fn watched(iops: &[f64]) -> Option<(usize, DrainStep)> {
        let mut w = Watch::default();
        iops.iter()
            .enumerate()
            .find_map(|(i, v)| w.push(i, *v as u64, 4.0 / v * 1e9).map(|s| (i, s)))
    }

    #[test]
    fn the_watch_ends_once_the_step_held_for_its_margin() {
        let mut iops = vec![800.0; 3];
        iops.extend([80.0; 10]);
        let (ended, s) = watched(&iops).expect("a step");
        // The step after 3 s; two seconds for the test and two of margin after it.
        assert_eq!((s.at_s, ended), (3.0, 6));
        assert_eq!((s.before, s.after, s.ios_before), (800.0, 80.0, 2400));
    }

    #[test]
    fn a_fall_to_more_than_half_or_a_dip_that_recovers_does_not_end_it() {
        let mut third = vec![800.0; 3];
        third.extend([500.0; 10]);
        assert_eq!(watched(&third), None);
        let dip = [800.0, 800.0, 800.0, 80.0, 80.0, 80.0, 800.0, 800.0, 800.0];
        assert_eq!(watched(&dip), None);
    }

    /// ORION's simple run with its small points stepping from 3,000 to 300 IOPS between points
    /// (a bucket running out in the sweep), and the first point carrying `drain`.
    fn findings(drain: Option<Value>) -> Vec<&'static str> {
        let mut doc: Value = serde_json::from_str(rigel_testkit::fixtures::BASIC).expect("fixture");
        let small = [(1, 3000.0), (2, 3010.0), (3, 300.0), (4, 301.0), (5, 299.0)];
        for (i, (load, iops)) in small.iter().enumerate() {
            let p = &mut doc["points"][i];
            p["point"]["classes"][0]["load"] = json!(load);
            let mean_ns = f64::from(*load) / iops * 1e9;
            p["classes"][0]["intervals"] = (1..=2)
                .map(|t| json!({"t_s": t, "ios": *iops as u64, "iops": iops, "mbps": 0.0, "mean_ns": mean_ns, "p99_ns": 0}))
                .collect::<Vec<_>>()
                .into();
        }
        if let Some(d) = drain {
            doc["points"][0]["drain"] = d;
        }
        let doc: ResultsDoc = serde_json::from_value(doc).expect("a document");
        let view = ResultsView::new(&doc);
        volume_findings(&view, &ValidityConfig::default())
            .into_iter()
            .map(|w| w.kind)
            .collect()
    }

    fn record(stepped: bool) -> Value {
        json!({"seconds": 40.0, "limit_s": 40.0, "stepped": stepped, "ios": 1000, "summary": "s"})
    }

    #[test]
    fn points_after_a_drain_that_saw_the_step_are_not_burst_figures() {
        assert!(findings(None).contains(&"burst-figure"));
        let drained = findings(Some(record(true)));
        assert!(drained.contains(&"burst"), "{drained:?}");
        assert!(!drained.contains(&"burst-figure"), "{drained:?}");
        assert!(!drained.contains(&"drain-limit"), "{drained:?}");
        let at_limit = findings(Some(record(false)));
        assert!(at_limit.contains(&"burst-figure"), "{at_limit:?}");
        assert!(at_limit.contains(&"drain-limit"), "{at_limit:?}");
    }
}
