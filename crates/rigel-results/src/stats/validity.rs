//! Validity warnings: reasons a result may not say what it seems to say about the storage. Each
//! warning carries the figure that triggered it. Computed from the results document (and, for seed
//! reuse, the earlier runs the caller found); reports show them at the top, the terminal prints them.

use super::seconds::{MIN_SECONDS, full_seconds};
pub use super::warning::Warning;
use crate::view::ResultsView;
use crate::{Interval, ResultsDoc};
use rigel_expr::units;

/// The seed a spec gets when it names none.
pub const DEFAULT_SEED: u64 = 1;

/// How strict the checks are.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidityConfig {
    /// A volume smaller than this many times the host's RAM may be served from a cache.
    pub cache_ratio: f64,
    /// rigel's CPU use per worker, as a fraction of one core, above which the tool may be the limit.
    pub cpu_fraction: f64,
    /// Per-second IOPS max/min above this is "not steady".
    pub spread: f64,
}

impl Default for ValidityConfig {
    fn default() -> Self {
        ValidityConfig {
            cache_ratio: 2.0,
            cpu_fraction: 0.85,
            spread: 1.5,
        }
    }
}

/// An earlier run found beside this one: when, with which seed, on which targets.
#[derive(Clone, Debug, PartialEq)]
pub struct PastRun {
    pub folder: String,
    pub started: String,
    pub seed: u64,
    pub targets: Vec<String>,
}

/// Per-second IOPS max/min over the full seconds; none with fewer than [`MIN_SECONDS`]. A second
/// with no I/O at all gives infinity: the storage stalled.
pub fn iops_spread(intervals: &[Interval]) -> Option<f64> {
    let iops: Vec<f64> = full_seconds(intervals).map(|i| i.iops).collect();
    if iops.len() < MIN_SECONDS {
        return None;
    }
    let max = iops.iter().copied().fold(0.0, f64::max);
    let min = iops.iter().copied().fold(f64::INFINITY, f64::min);
    if max <= 0.0 {
        return None;
    }
    Some(if min <= 0.0 { f64::INFINITY } else { max / min })
}

/// Every warning, over the points the results model counts (finished without error); more than a
/// few points tripping one check are told as one warning.
pub fn warnings(view: &ResultsView, past: &[PastRun], cfg: &ValidityConfig) -> Vec<Warning> {
    let doc = view.doc;
    let mut out = Vec::new();
    let workers = f64::from(doc.plan.run.workers.max(1));
    for read in view.points.iter().filter(|p| p.ok) {
        let p = read.result;
        if p.elapsed_s <= 0.0 {
            continue;
        }
        let cores = (p.cpu.user_s + p.cpu.system_s) / p.elapsed_s;
        if cores / workers >= cfg.cpu_fraction {
            out.push(Warning {
                kind: "cpu",
                point: Some(p.point.id),
                points: vec![p.point.id],
                class: None,
                figure: cores,
                message: format!(
                    "point {} ({}): rigel used {cores:.2} cores with {} worker(s); the tool, not the storage, may be the limit",
                    p.point.id,
                    p.point.label(),
                    workers
                ),
                            evidence: None,
                            volume: false,
});
        }
        for c in read.running().filter_map(|c| c.result) {
            if let Some(s) = iops_spread(&c.intervals).filter(|s| *s > cfg.spread) {
                let figure = if s.is_finite() {
                    format!("{s:.2}×")
                } else {
                    "∞ (a second without I/O)".into()
                };
                out.push(Warning {
                    kind: "unsteady",
                    point: Some(p.point.id),
                    points: vec![p.point.id],
                    class: Some(c.class.clone()),
                    figure: s,
                    message: format!(
                        "point {} ({}), {}: not steady, per-second IOPS max/min {figure}",
                        p.point.id,
                        p.point.label(),
                        c.class
                    ),
                    evidence: None,
                    volume: false,
                });
            }
        }
    }
    out.extend(paused_warnings(view));
    out.extend(super::lateness::warnings(view));
    out.extend(super::paced::paced_warnings(view));
    let counted = view.points.iter().filter(|p| p.ok).map(|p| p.result);
    out.extend(super::device_share::device_warnings(counted));
    out.extend(super::settle::settle_warning(doc));
    out.extend(cache_warning(doc, cfg));
    out.extend(seed_warning(doc, past));
    out.extend(volume_findings(view, cfg));
    super::warning::condense(out, workers)
}

/// What the volume was doing rather than what the device can do (a rate cap, a burst bucket
/// running out, and the figures taken before it did; first reads of its blocks much slower than
/// later ones), as warnings with their evidence: `results.json` keeps these beside the document,
/// and every report's page 1 says them (beside the answers they concern, else among the volume's
/// findings).
pub fn volume_findings(view: &ResultsView, cfg: &ValidityConfig) -> Vec<Warning> {
    let caps = super::rate_cap::rate_caps(view, cfg.cpu_fraction)
        .into_iter()
        .map(|cap| Warning {
            kind: "rate-cap",
            point: None,
            points: cap.points.clone(),
            class: Some(cap.class.clone()),
            figure: cap.mean,
            message: cap.message.clone(),
            evidence: Some(super::warning::Evidence::RateCap(cap)),
            volume: false,
        });
    let mut steps = super::burst_across::burst_steps(view);
    // Points measured after a drain that saw its bucket run out are the baseline's.
    let drained = super::drain::drained(view);
    for b in &mut steps {
        b.on_credit.retain(|p| !drained.contains(p));
    }
    // After the steps: a figure taken on credit, beside each answer taken at one of its points.
    let on_credit: Vec<Warning> = steps
        .iter()
        .filter(|b| !b.on_credit.is_empty())
        .map(|b| Warning {
            kind: "burst-figure",
            point: None,
            points: b.on_credit.clone(),
            class: None,
            figure: b.after,
            message: b.on_credit_message(),
            evidence: None,
            volume: false,
        })
        .collect();
    let steps = steps.into_iter().map(|b| {
        let label = view
            .points
            .iter()
            .find(|p| p.id() == b.point)
            .map(|p| p.label())
            .unwrap_or_default();
        Warning {
            kind: "burst",
            point: Some(b.point),
            points: vec![b.point],
            class: Some(b.class.clone()),
            figure: b.after,
            message: b.message(&label),
            evidence: Some(super::warning::Evidence::BurstStep(b)),
            volume: false,
        }
    });
    let drain = super::drain::limit_warning(view);
    let touches = super::first_touch::first_touches(view)
        .into_iter()
        .map(|t| Warning {
            kind: "first-touch",
            point: None,
            points: t.points.clone(),
            class: Some(t.class.clone()),
            figure: t.slower,
            message: t.message.clone(),
            evidence: Some(super::warning::Evidence::FirstTouch(t)),
            volume: false,
        });
    caps.chain(steps)
        .chain(on_credit)
        .chain(drain)
        .chain(touches)
        // Marked here, the one list of them: page 1 says each whatever point it came from.
        .map(|w| Warning { volume: true, ..w })
        .collect()
}

/// Points in whose window rigel itself did not run (a stopped process, a paused VM, a starved
/// CPU): told whatever else the point says, since its figures are not the storage's alone.
fn paused_warnings<'v>(view: &'v ResultsView) -> impl Iterator<Item = Warning> + 'v {
    view.points.iter().filter_map(|read| {
        let p = read.result;
        let paused = p.paused?;
        Some(Warning {
            kind: "paused",
            point: Some(p.point.id),
            points: vec![p.point.id],
            class: None,
            figure: paused.in_window_s,
            message: format!(
                "point {} ({}): {}; left out of the headline figures",
                p.point.id,
                p.point.label(),
                paused.reason(p.elapsed_s)
            ),
            evidence: None,
            volume: false,
        })
    })
}

/// The volume against the host's RAM: the page cache (buffered) or an array's cache may hold it.
fn cache_warning(doc: &ResultsDoc, cfg: &ValidityConfig) -> Option<Warning> {
    let ram = doc.host.memory_bytes as f64;
    let volume: u64 = doc.targets.iter().map(|t| t.size).sum();
    if ram <= 0.0 || volume == 0 || (volume as f64) >= cfg.cache_ratio * ram {
        return None;
    }
    let files = doc.targets.iter().all(|t| t.kind == "file");
    let what = if files {
        "the file target(s) hold"
    } else {
        "the volume holds"
    };
    let cache = if doc.plan.run.direct {
        "a storage array's or device's cache"
    } else {
        "the page cache (buffered I/O)"
    };
    Some(Warning {
        kind: "cache",
        point: None,
        points: Vec::new(),
        class: None,
        figure: volume as f64,
        message: format!(
            "{what} {}, less than {} × the host's {} of RAM: {cache} may serve the I/O",
            units::size(volume as f64),
            cfg.cache_ratio,
            units::size(ram)
        ),
        evidence: None,
        volume: false,
    })
}

/// The default seed reused on a target an earlier run already read with it: the offsets repeat, so
/// a cache may hold exactly the blocks this run asks for.
fn seed_warning(doc: &ResultsDoc, past: &[PastRun]) -> Option<Warning> {
    let seed = doc.plan.run.seed;
    if seed != DEFAULT_SEED {
        return None;
    }
    let mine: Vec<&str> = doc.targets.iter().map(|t| t.path.as_str()).collect();
    let before = past.iter().find(|r| {
        r.seed == seed
            && r.started < doc.started
            && r.targets.iter().any(|t| mine.contains(&t.as_str()))
    })?;
    Some(Warning {
        kind: "seed",
        point: None,
        points: Vec::new(),
        class: None,
        figure: seed as f64,
        message: format!(
            "the default seed {seed} ran against the same target before ({}, started {}): the same offsets may come from a cache; set [run] seed",
            before.folder, before.started
        ),
        evidence: None,
        volume: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(t_s: f64, iops: f64) -> Interval {
        Interval {
            t_s,
            ios: iops as u64,
            iops,
            mbps: 0.0,
            mean_ns: 0.0,
            p99_ns: 0,
            read_histogram: None,
            write_histogram: None,
        }
    }

    #[test]
    fn spread_ignores_the_last_sliver_and_sees_stalls() {
        let secs = |iops: &[f64]| -> Vec<Interval> {
            (1..).zip(iops).map(|(t, v)| iv(f64::from(t), *v)).collect()
        };
        let mut steady = secs(&[1000.0, 1100.0, 1050.0, 1000.0, 1020.0]);
        steady.push(iv(5.1, 10.0));
        assert!((iops_spread(&steady).unwrap() - 1.1).abs() < 1e-9);
        let stepped = secs(&[1000.0, 1000.0, 400.0, 400.0, 400.0]);
        assert!((iops_spread(&stepped).unwrap() - 2.5).abs() < 1e-9);
        assert_eq!(
            iops_spread(&secs(&[9.0, 9.0, 9.0, 9.0, 0.0])),
            Some(f64::INFINITY)
        );
        // Fewer than five full seconds are not judged: 2 samples say nothing of steadiness.
        assert_eq!(iops_spread(&secs(&[1000.0, 400.0, 1000.0, 400.0])), None);
        assert_eq!(iops_spread(&[iv(1.0, 9.0)]), None);
    }
}
