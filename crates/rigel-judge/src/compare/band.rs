//! A compared line's noise band: ± percent of BASE inside which a change is not told from chance
//! at 99% (two-sided), from both sides' runs.
//!
//! One run per side: each run's own standard error (see `noise`), combined as independent errors,
//! times Student's t at the Welch–Satterthwaite degrees of freedom; then widened by the **drift
//! floor** (`√(within² + floor²)`): two back-to-back runs of an unchanged spec differ by more than
//! either run's own spread (a page cache or a device's internal state that differs from one run
//! to the next, the host's other load), and no run can show that drift from the inside. The
//! floor is the 99% half-width of that drift, measured (benches/noise.sh) and settable.
//!
//! Several runs on a side (`rigel run --repeat N`, or `compare` over several folders per side):
//! the runs' figures give the between-run variance itself, pooled over both sides, and the band is
//! Student's t (df = runs − 2) times the standard error of the difference of the sides' means; the
//! floor is then not needed (the drift was measured), and the band is never narrower than the one
//! the first runs' own spread gives.

use super::noise::{Estimate, interval, t99, why_none, within};
use super::rate::typical;
use rigel_expr::{Direction, Stat};
use rigel_results::{ClassResult, DirStats};
use serde::Serialize;

/// One run's line: the class's records, the direction's figures, the window, and the figure.
#[derive(Clone, Copy)]
pub struct RunLine<'a> {
    pub class: &'a ClassResult,
    pub dir: &'a DirStats,
    pub window_s: f64,
    pub value: f64,
}

/// A band and what it was computed from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Band {
    /// ± percent of BASE's figure.
    pub percent: f64,
    /// `ticks` (each run's own spread, widened by the drift floor) or `runs` (between-run
    /// variance of repeated runs).
    pub basis: &'static str,
    /// A rate line of one run a side: the change of the typical tick (percent of BASE's; see
    /// `rate`), which must move beyond the band too for the line to be flagged.
    pub typical: Option<f64>,
}

/// The band of one line; the reason when there is none.
pub fn band(
    stat: Stat,
    direction: Direction,
    base: &[RunLine<'_>],
    new: &[RunLine<'_>],
    floor_percent: f64,
) -> Result<Band, &'static str> {
    let (Some(b0), Some(n0)) = (base.first(), new.first()) else {
        return Err("no run on a side");
    };
    if b0.value <= 0.0 {
        return Err("the base figure is 0");
    }
    let est = |l: &RunLine<'_>| within(l.class, l.dir, l.window_s, direction, stat);
    let own = match (est(b0), est(n0)) {
        (Some(b), Some(n)) => Some(pair(b, n, n0.value / b0.value)),
        _ => None,
    };
    if base.len() + new.len() >= 3 {
        let between = between(base, new);
        let percent = between.max(own.unwrap_or(0.0));
        return Ok(Band {
            percent,
            basis: "runs",
            typical: None,
        });
    }
    if matches!(stat, Stat::Iops | Stat::Mbps)
        && let (Some((tb, eb)), Some((tn, en))) = (
            typical(b0.class, b0.window_s, direction),
            typical(n0.class, n0.window_s, direction),
        )
    {
        // A rate: its spread and its change read from the typical ticks (see `rate`).
        return Ok(Band {
            percent: pair(eb, en, n0.value * tn / (b0.value * tb)).hypot(floor_percent),
            basis: "ticks",
            typical: Some((n0.value * tn / (b0.value * tb) - 1.0) * 100.0),
        });
    }
    let own = own.map(|w| w.max(apart(stat, direction, b0, n0).unwrap_or(0.0)));
    match own {
        Some(w) => Ok(Band {
            percent: w.hypot(floor_percent),
            basis: "ticks",
            typical: None,
        }),
        None => Err(why_none(stat)),
    }
}

/// For a percentile, the change (percent of BASE) beyond which the two runs' 99% intervals no
/// longer overlap, in the direction the figure moved: a tail's interval is far from symmetric
/// (99% of a throttled device's writes in 20 µs, 1% waiting up to a 100 ms slice), and a symmetric
/// band around a p99 that sits at the step calls a move across the step a change.
fn apart(stat: Stat, direction: Direction, b: &RunLine<'_>, n: &RunLine<'_>) -> Option<f64> {
    // Each interval scaled to the figure compared (the histogram's percentile is that figure but
    // for rounding).
    let iv = |l: &RunLine<'_>| {
        interval(l.class, l.dir, l.window_s, direction, stat)
            .map(|(lo, mid, hi)| (l.value * lo / mid, l.value * hi / mid))
    };
    let ((blo, bhi), (nlo, nhi)) = (iv(b)?, iv(n)?);
    let (bv, nv) = (b.value, n.value);
    let gap = if nv >= bv {
        (nv - nlo).max(0.0) + (bhi - bv).max(0.0)
    } else {
        (nhi - nv).max(0.0) + (bv - blo).max(0.0)
    };
    Some(100.0 * gap / bv)
}

/// Two runs' own standard errors as a 99% band in percent of BASE (`scale` = new / base).
fn pair(b: Estimate, n: Estimate, scale: f64) -> f64 {
    let (vb, vn) = (b.rel_se.powi(2), (n.rel_se * scale).powi(2));
    let df = if vb + vn > 0.0 {
        (vb + vn).powi(2) / (vb.powi(2) / b.df + vn.powi(2) / n.df)
    } else {
        b.df.min(n.df)
    };
    100.0 * t99(df) * (vb + vn).sqrt()
}

/// The pooled between-run band, percent of BASE's mean: both sides' runs' spread around their own
/// side's mean (a step between the sides does not widen it).
fn between(base: &[RunLine<'_>], new: &[RunLine<'_>]) -> f64 {
    let values = |s: &[RunLine<'_>]| s.iter().map(|l| l.value).collect::<Vec<f64>>();
    let (b, n) = (values(base), values(new));
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let ss = |v: &[f64]| {
        let m = mean(v);
        v.iter().map(|x| (x - m).powi(2)).sum::<f64>()
    };
    let df = (b.len() + n.len() - 2) as f64;
    let var = (ss(&b) + ss(&n)) / df;
    let se = (var * (1.0 / b.len() as f64 + 1.0 / n.len() as f64)).sqrt();
    100.0 * t99(df) * se / mean(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn between_runs_pool_both_sides_and_a_step_between_them_does_not_widen_the_band() {
        // Figures of hand-checkable runs, as if compared through `between` directly.
        let b = [1000.0, 1040.0, 960.0];
        let n = [800.0, 840.0, 760.0];
        let var: f64 = (2.0 * 1600.0 + 2.0 * 1600.0) / 4.0;
        let want = 100.0 * 4.604 * (var * (2.0 / 3.0)).sqrt() / 1000.0;
        let got = between_values(&b, &n);
        assert!((got - want).abs() < 1e-9, "{got} vs {want}");
        assert!(
            got < 20.0,
            "a 20% step between steady sides stays outside: ±{got:.1}%"
        );
    }

    fn between_values(b: &[f64], n: &[f64]) -> f64 {
        let mut c = rigel_results::ClassResult::new("c", 4096, 1, dir());
        c.total.ios = 1;
        let d = c.total.clone();
        let line = |v: f64| RunLine {
            class: &c,
            dir: &d,
            window_s: 1.0,
            value: v,
        };
        let (bl, nl): (Vec<_>, Vec<_>) = (
            b.iter().map(|&v| line(v)).collect(),
            n.iter().map(|&v| line(v)).collect(),
        );
        between(&bl, &nl)
    }

    fn dir() -> DirStats {
        DirStats {
            ios: 0,
            bytes: 0,
            iops: 0.0,
            mbps: 0.0,
            latency: Default::default(),
            histogram: String::new(),
            service: None,
        }
    }

    #[test]
    fn two_runs_own_errors_add_as_independent_ones_at_welch_degrees_of_freedom() {
        let e = Estimate {
            rel_se: 0.01,
            df: 4.0,
        };
        // Equal errors and df: df = 8, t = 3.355; √2 · 1% · t.
        let b = pair(e, e, 1.0);
        assert!((b - 100.0 * 3.355 * 0.01 * 2f64.sqrt()).abs() < 1e-9, "{b}");
    }
}
