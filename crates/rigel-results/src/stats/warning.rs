//! A validity warning, and how many of one kind are told: a sweep of 40 CPU-bound page-cache
//! points says so once, with the points as ranges and the figures' span, not a screenful.

use rigel_expr::units;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Warning {
    /// `cpu`, `cache`, `unsteady`, `seed`, `paused` (rigel did not run in the window), `late` (rigel behind its open-loop schedule),
    /// `arrival` (the sends did not hold the arrival process asked), `device` (the device read
    /// less or more than rigel; its own fold, with the counts summed) `settle` (the first
    /// point's first seconds ran apart from the rest) `rate-cap` (throughput held flat while
    /// the load grew: a provisioned rate or a throttle) or `burst` (a sustained step down within a
    /// point or between points: a burst bucket ran out), each with its [`Evidence`], and
    /// `burst-figure` (the points run before such a step: figures taken on credit), and
    /// `first-touch` (a class's first reads of a block much slower than its re-reads: the volume
    /// was still being initialized; `figure` is the ratio of the p50s).
    pub kind: &'static str,
    /// The point it concerns, when one.
    pub point: Option<u32>,
    /// Every point it concerns: its point, or each point of a folded group (`condense`); empty
    /// for a warning about the run as a whole. The handover puts a warning beside each figure
    /// taken at one of them.
    pub points: Vec<u32>,
    pub class: Option<String>,
    /// The figure that triggered it (cores, bytes, max/min ratio, the seed, or the device's share).
    pub figure: f64,
    /// One sentence with the figure in it.
    pub message: String,
    /// The figures behind it, typed, where a finding has more than one (a rate cap's stretch).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// A finding about the volume (what it did rather than what the device can do: `rate-cap`,
    /// `burst`, `burst-figure`, `drain-limit`, `first-touch`): page 1 says it whatever point it
    /// came from, beside the answers it concerns or, when it concerns none, among the volume's
    /// findings. Set by [`super::validity::volume_findings`], the one list of them.
    pub volume: bool,
}

/// A finding's figures, by kind.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    RateCap(super::rate_cap::RateCap),
    BurstStep(super::burst_step::BurstStep),
    FirstTouch(super::first_touch::FirstTouch),
}

/// Above this many points of one kind (and class), they are told as one warning.
pub(super) const LISTED: usize = 3;

/// The warnings with each large group of per-point ones (same kind and class) folded into one, in
/// the place of the group's first; warnings about the run as a whole stay as they are.
pub(super) fn condense(warnings: Vec<Warning>, workers: f64) -> Vec<Warning> {
    let group_of = |w: &Warning| (w.kind, w.class.clone());
    let mut out: Vec<Warning> = Vec::new();
    let mut done: Vec<(&'static str, Option<String>)> = Vec::new();
    for w in &warnings {
        if w.point.is_none() {
            out.push(w.clone());
            continue;
        }
        let key = group_of(w);
        if done.contains(&key) {
            continue;
        }
        let group: Vec<&Warning> = warnings
            .iter()
            .filter(|x| x.point.is_some() && group_of(x) == key)
            .collect();
        if group.len() <= LISTED {
            out.extend(group.into_iter().cloned());
        } else {
            out.push(folded(&group, workers));
        }
        done.push(key);
    }
    out
}

fn folded(group: &[&Warning], workers: f64) -> Warning {
    let ids: Vec<u32> = group.iter().filter_map(|w| w.point).collect();
    let lo = group.iter().map(|w| w.figure).fold(f64::INFINITY, f64::min);
    let hi = group.iter().map(|w| w.figure).fold(0.0, f64::max);
    let first = group[0];
    let points = format!("{} points ({})", ids.len(), ranges(&ids));
    let message = match (first.kind, &first.class) {
        ("cpu", _) => format!(
            "{points}: rigel used {lo:.2} to {hi:.2} cores with {workers} worker(s); the tool, not the storage, may be the limit"
        ),
        ("paused", _) => format!(
            "{points}: rigel did not run for {lo:.1} to {hi:.1} s of their windows (a stopped process, a paused VM or a starved CPU); left out of the headline figures"
        ),
        ("late", Some(class)) => format!(
            "{points}, {class}: rigel fell behind its schedule: its send lag p99 was {:.0}% to {:.0}% of the response p99",
            lo * 100.0,
            hi * 100.0
        ),
        ("burst", Some(class)) => format!(
            "{points}, {class}: the per-second rate stepped down and stayed down with latency up \
             (a burst bucket ran out): sustained {} to {} IOPS; figures before each step are the burst's",
            units::thousands(lo),
            units::thousands(hi)
        ),
        ("arrival", Some(class)) => format!(
            "{points}, {class}: the sends did not hold the arrival asked: send-gap CV {lo:.2} to {hi:.2}"
        ),
        (_, Some(class)) => format!(
            "{points}, {class}: not steady, per-second IOPS max/min {} to {}",
            ratio(lo),
            ratio(hi)
        ),
        (kind, None) => format!("{points}: {kind} (figures {lo:.2} to {hi:.2})"),
    };
    Warning {
        kind: first.kind,
        point: None,
        points: ids,
        class: first.class.clone(),
        figure: hi,
        message,
        evidence: None,
        volume: first.volume,
    }
}

fn ratio(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.2}×")
    } else {
        "∞ (a second without I/O)".into()
    }
}

/// `1–4, 7, 9–12` for sorted ids.
pub(super) fn ranges(ids: &[u32]) -> String {
    let parts: Vec<String> = rigel_expr::consecutive_runs(ids)
        .into_iter()
        .map(|(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}–{b}")
            }
        })
        .collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(kind: &'static str, point: Option<u32>, class: Option<&str>, figure: f64) -> Warning {
        Warning {
            kind,
            point,
            points: point.into_iter().collect(),
            class: class.map(str::to_owned),
            figure,
            message: format!("{kind} {point:?}"),
            evidence: None,
            volume: false,
        }
    }

    #[test]
    fn a_large_group_folds_into_one_with_ranges_and_span() {
        let mut all: Vec<Warning> = (1..=6)
            .chain([9, 11, 12])
            .map(|p| w("cpu", Some(p), None, 0.9 + f64::from(p) / 100.0))
            .collect();
        all.push(w("unsteady", Some(2), Some("small"), 1.7));
        all.push(w("cache", None, None, 1.0));
        let out = condense(all, 1.0);
        assert_eq!(out.len(), 3, "{out:#?}");
        assert_eq!(
            out[0].message,
            "9 points (1–6, 9, 11–12): rigel used 0.91 to 1.02 cores with 1 worker(s); the tool, not the storage, may be the limit"
        );
        assert_eq!(out[0].point, None);
        assert!((out[0].figure - 1.02).abs() < 1e-9);
        assert_eq!(
            out[1].message, "unsteady Some(2)",
            "a small group stays as it is"
        );
        assert_eq!(out[2].kind, "cache");
    }

    #[test]
    fn unsteady_groups_fold_per_class() {
        let all: Vec<Warning> = (1..=4)
            .flat_map(|p| {
                [
                    w("unsteady", Some(p), Some("a"), 1.6),
                    w("unsteady", Some(p), Some("b"), f64::INFINITY),
                ]
            })
            .collect();
        let out = condense(all, 2.0);
        assert_eq!(out.len(), 2);
        assert_eq!(
            out[0].message,
            "4 points (1–4), a: not steady, per-second IOPS max/min 1.60× to 1.60×"
        );
        assert_eq!(
            out[1].message,
            "4 points (1–4), b: not steady, per-second IOPS max/min ∞ (a second without I/O) to ∞ (a second without I/O)"
        );
    }
}
