//! Warnings about the open loop's own timing: rigel late on its schedule (its send lag a large
//! part of the response times it reports), and sends that did not hold the arrival process the
//! spec claims (their gaps far more or less spread than uniform or Poisson gaps are). Computed
//! from each open-loop class's `pace` figures; results written before rigel kept them give none.

use super::warning::Warning;
use crate::PointResult;
use crate::view::ResultsView;
use rigel_expr::{Arrival, units};

/// rigel's lag p99 above this share of the response p99 is told: the response times are then
/// partly the tool's own delay, not the storage's.
pub const LAG_SHARE: f64 = 0.25;
/// ... when it is also at least this long (ns): a wake-up of a few µs late is the timer's
/// granularity, not falling behind, even beside a fast device's p99.
pub const LAG_FLOOR_NS: u64 = 50_000;
/// The send gaps' CV further than this from what the arrival claims (0 uniform, 1 Poisson) is
/// told: the arrival process was not held.
pub const GAP_CV_SLACK: f64 = 0.5;

/// Whether rigel fell behind an open-loop class's schedule: its send lag p99 at least
/// [`LAG_FLOOR_NS`] and above [`LAG_SHARE`] of the response p99 (the response times are then partly
/// the tool's own delay). The `late` warning and a search trial spoiled by rigel both ask here.
pub fn late(c: &crate::ClassResult) -> bool {
    let Some(lag) = c.pace.as_ref().and_then(|p| p.lag.as_ref()) else {
        return false;
    };
    let (lag99, resp99) = (lag.latency.p99_ns, c.total.latency.p99_ns);
    lag99 >= LAG_FLOOR_NS && lag99 as f64 > LAG_SHARE * resp99 as f64
}

/// The warnings of every point that counts.
pub(super) fn warnings(view: &ResultsView) -> Vec<Warning> {
    let mut out = Vec::new();
    for read in view.points.iter().filter(|p| p.ok) {
        for c in read.running().filter_map(|c| c.result) {
            let Some(pace) = &c.pace else { continue };
            let p = read.result;
            if let Some(lag) = pace.lag.as_ref().filter(|_| late(c)) {
                let (lag99, resp99) = (lag.latency.p99_ns, c.total.latency.p99_ns);
                {
                    out.push(Warning {
                        kind: "late",
                        point: Some(p.point.id),
                        points: vec![p.point.id],
                        class: Some(c.class.clone()),
                        figure: lag99 as f64 / resp99.max(1) as f64,
                        message: format!(
                            "{}, {}: rigel fell behind its schedule: response times include up to {} of the tool's own delay (send lag p99 {} against a response p99 of {}, service p99 {})",
                            at(p),
                            c.class,
                            units::latency(lag.latency.max_ns as f64),
                            units::latency(lag99 as f64),
                            units::latency(resp99 as f64),
                            c.total
                                .service
                                .as_ref()
                                .map_or("—".into(), |s| units::latency(s.latency.p99_ns as f64)),
                        ),
                                            evidence: None,
                                            volume: false,
});
                }
            }
            // A replay sends at the trace's own times (`unsent` is kept for replays only): no
            // drawn arrival process was asked, so none was missed.
            if let Some(cv) = pace.send_gap_cv.filter(|_| pace.unsent.is_none()) {
                let claimed = match pace.arrival {
                    Arrival::Uniform => 0.0,
                    Arrival::Poisson => 1.0,
                };
                if (cv - claimed).abs() > GAP_CV_SLACK {
                    out.push(Warning {
                        kind: "arrival",
                        point: Some(p.point.id),
                        points: vec![p.point.id],
                        class: Some(c.class.clone()),
                        figure: cv,
                        message: format!(
                            "{}, {}: the sends did not hold the {} arrival asked: the gaps between them have a CV of {} (about {claimed} expected) at {} requested",
                            at(p),
                            c.class,
                            arrival_name(pace.arrival),
                            units::number(cv),
                            units::iops(pace.requested_iops),
                        ),
                                            evidence: None,
                                            volume: false,
});
                }
            }
        }
    }
    out
}

fn at(p: &PointResult) -> String {
    format!("point {} ({})", p.point.id, p.point.label())
}

fn arrival_name(a: Arrival) -> &'static str {
    match a {
        Arrival::Uniform => "uniform",
        Arrival::Poisson => "poisson",
    }
}
