//! One matched point's lines: per running class and direction, each statistic's change between
//! the sides' figures (their runs' means), its noise band and its verdict.

use super::{Change, CompareOptions, MetricChange, PointComparison, band};
use rigel_expr::units;
use rigel_expr::{Direction, Stat};
use rigel_results::view::PointRead;
use rigel_results::{PointResult, PointStatus};

pub(super) fn compare_point<'a>(
    bs: &[&'a PointResult],
    ns: &[&'a PointResult],
    opts: &CompareOptions,
) -> PointComparison {
    let (b, n) = (bs[0], ns[0]);
    let mut out = PointComparison {
        label: b.point.label(),
        base_id: b.point.id,
        new_id: n.point.id,
        status: None,
        regressed: false,
        metrics: Vec::new(),
    };
    let failed = |p: &PointResult| match &p.status {
        PointStatus::Ok => None,
        PointStatus::Failed { error } => {
            Some(format!("{} at offset {}", error.message, error.offset))
        }
    };
    match (failed(b), failed(n)) {
        (None, None) => {}
        (Some(e), None) => {
            out.status = Some(format!("failed in BASE ({e}), ran in NEW"));
            return out;
        }
        (None, Some(e)) => {
            out.status = Some(format!("failed in NEW: {e}"));
            out.regressed = true;
            return out;
        }
        (Some(_), Some(e)) => {
            out.status = Some(format!("failed in both runs (NEW: {e})"));
            return out;
        }
    }
    // Repeats that failed at this point are left out of their side.
    let ok = |ps: &[&'a PointResult]| -> Vec<PointRead<'a>> {
        ps.iter()
            .filter(|p| failed(p).is_none())
            .map(|p| PointRead::new(p))
            .collect()
    };
    let (bv, nv) = (ok(bs), ok(ns));
    let host = super::host::HostChange::of(&bv, &nv);
    for bc in bv[0].running() {
        if nv[0].class(bc.name()).is_none() {
            continue;
        }
        // A class that only reads (or writes) has the same figures in total and that direction.
        let directions = if bc.mixed() {
            bc.directions()
        } else {
            &[Direction::Total]
        };
        for &direction in directions {
            for &stat in &opts.stats {
                let (bl, nl) = (
                    lines(&bv, bc.name(), direction, stat),
                    lines(&nv, bc.name(), direction, stat),
                );
                if bl.is_empty() || nl.is_empty() {
                    continue;
                }
                let noise = band::band(stat, direction, &bl, &nl, opts.drift_floor_percent);
                let mut change = metric_change(
                    (bc.name(), direction, stat),
                    mean(&bl),
                    mean(&nl),
                    opts.threshold_for(stat),
                    noise,
                );
                host.attribute(&mut change, stat);
                out.regressed |= change.verdict == Change::Regressed;
                out.metrics.push(change);
            }
        }
    }
    out
}

/// Each run's line of `class` in `direction` for `stat` (runs where it counts).
fn lines<'a>(
    side: &[PointRead<'a>],
    class: &str,
    direction: Direction,
    stat: Stat,
) -> Vec<band::RunLine<'a>> {
    side.iter()
        .filter_map(|p| {
            let c = p.class(class)?;
            let f = c.counted(direction)?;
            Some(band::RunLine {
                class: c.result?,
                dir: c.stats(direction)?,
                window_s: p.result.elapsed_s,
                value: f.value(stat),
            })
        })
        .collect()
}

/// A side's figure: its runs' mean (what a run of the spec gives on average; the band is about
/// run-level figures).
fn mean(lines: &[band::RunLine<'_>]) -> f64 {
    lines.iter().map(|l| l.value).sum::<f64>() / lines.len() as f64
}

/// How far apart (a ratio) a rate's typical ticks and its figure may be for the ticks to flag a
/// figure inside its band: a few ticks that held the figure back moved it by less than that.
const FEW: f64 = 2.0;

pub(super) fn metric_change(
    (class, direction, stat): (&str, Direction, Stat),
    base: f64,
    new: f64,
    threshold: f64,
    noise: Result<band::Band, &'static str>,
) -> MetricChange {
    let change = (base != 0.0).then(|| (new - base) / base * 100.0);
    let worse = |c: f64| {
        if stat.higher_is_better() { -c } else { c }
    };
    let band = noise.as_ref().ok().map(|b| b.percent);
    // Within the threshold: ok, whatever the noise. Beyond it, flagged only beyond the band too;
    // inside the band (or with none) it is too noisy to judge.
    let verdict = match (change.map(worse), band) {
        (Some(w), _) if w.abs() <= threshold => Change::Within,
        (Some(w), Some(b)) if w > b => Change::Regressed,
        (Some(w), Some(b)) if w < -b => Change::Improved,
        (Some(_), _) => Change::Inconclusive,
        (None, _) => Change::Within,
    };
    // A rate flagged by its mean alone: a few ticks moved it, not the typical one (see `rate`).
    let typical = noise.as_ref().ok().and_then(|b| b.typical);
    let (verdict, ticks, flagged_by) = match (verdict, typical, band, change.map(worse)) {
        (Change::Regressed | Change::Improved, Some(t), Some(b), _)
            if worse(t).abs() <= threshold.max(b)
                || (worse(t) > 0.0) != (verdict == Change::Regressed) =>
        {
            let why = format!(
                "the typical 100 ms tick moved {} (a few ticks moved the figure: a stall, or the host)",
                units::change(t)
            );
            (Change::Inconclusive, Some(why), None)
        }
        // The other way round: a figure beyond the threshold but inside the band, whose typical
        // tick moved the same way beyond the band. A few ticks held the figure back: a stall
        // and the burst a rate limit let through after it (benches/noise.sh: a throttled 20%
        // drop whose NEW run completed 8 I/Os in its first tick and 485 in its second, three
        // times its limit's share, read −11.3% against a band of ±12.2%; its ticks, −20%).
        // A few: the typical ticks and the figure within a factor of [`FEW`] of each other. A
        // run whose most ticks completed nothing has a typical tick of nothing, and its figure
        // is all in the few (noise2-6: a throttle that let 208 I/Os through once a second,
        // 362 IOPS against 2,875, typical tick 24× further).
        (Change::Inconclusive, Some(t), Some(b), Some(w))
            if worse(t).abs() > threshold.max(b)
                && (worse(t) > 0.0) == (w > 0.0)
                && change.is_some_and(|c| {
                    let apart = (1.0 + t / 100.0) / (1.0 + c / 100.0);
                    (1.0 / FEW..=FEW).contains(&apart)
                }) =>
        {
            let why = format!(
                "the typical 100 ms tick moved {} (a few ticks held the figure back: a stall, \
                 and a burst after it)",
                units::change(t)
            );
            let v = if w > 0.0 {
                Change::Regressed
            } else {
                Change::Improved
            };
            (v, Some(why), Some(t))
        }
        (v, ..) => (v, None, None),
    };
    let text = |v: f64| match stat {
        Stat::Latency(_) | Stat::Service(_) => units::latency(v),
        _ => units::number(v),
    };
    MetricChange {
        class: class.to_owned(),
        direction,
        stat: stat.name(),
        base,
        new,
        base_text: text(base),
        new_text: text(new),
        change_percent: change,
        change_text: match (change, band) {
            (Some(c), Some(n)) => format!("{} (noise ±{n:.1}%)", units::change(c)),
            (Some(c), None) => format!("{} (noise unknown)", units::change(c)),
            (None, _) => "-".to_owned(),
        },
        noise_percent: band,
        noise_basis: match &noise {
            Ok(b) => b.basis.to_owned(),
            Err(why) => (*why).to_owned(),
        },
        threshold_percent: threshold,
        verdict,
        host: None,
        ticks,
        typical_percent: flagged_by,
    }
}
