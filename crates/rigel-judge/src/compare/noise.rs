//! How far one run's figure could have landed by chance, from what the run itself recorded: a
//! relative standard error with its degrees of freedom, per class, direction and statistic.
//!
//! - IOPS, MiB/s and mean latency: the run's 100 ms ticks (per direction) as a ratio estimator
//!   (I/Os per tick; latency sum over I/Os), its variance corrected for the ticks' lag-1
//!   autocorrelation (`n_eff = n·(1−ρ)/(1+ρ)`): a loaded host or a device's background work moves
//!   neighbouring ticks together, and treating them as independent draws makes the error far too
//!   small. Results without ticks fall back on their per-second intervals (total only).
//! - Percentiles (p50 … p99.99, of response or service latency): the distribution-free interval of
//!   an order statistic (the rank `q·N ± z·√(q(1−q)·N_eff)` read back from the direction's
//!   histogram), `N_eff` shrunk by the same autocorrelation the ticks show and by the design
//!   effect of slow I/Os that come in bursts (the per-tick mean latency's spread against what
//!   independent I/Os would give). Two runs' percentiles are compared by their intervals (see
//!   `band`): a tail that is bimodal (a throttle's slice, a stall) has an interval far from
//!   symmetric.
//! - Service mean: the histogram's standard deviation over `√N_eff`.
//! - min, max, stdev: one I/O (or a figure of them all) with no sample spread to speak of: no
//!   estimate. Only repeated runs give those a band.
//!
//! A run needs at least [`MIN_SAMPLES`] full ticks (or seconds) for any of these.

use rigel_expr::{Direction, LatencyStat, Stat};
use rigel_results::stats::full_seconds;
use rigel_results::{ClassResult, DirStats, decode_histogram};

/// The fewest ticks (or seconds) a run's spread is read from: below it, a sample variance and an
/// autocorrelation say too little.
pub const MIN_SAMPLES: usize = 5;
/// The two-sided 99% normal quantile.
pub const Z99: f64 = 2.576;
/// The largest lag-1 autocorrelation believed (the effective sample count is then a third of the
/// ticks): ten ticks of a 1 s point estimate ρ too poorly to let it collapse the count further,
/// and the drift floor covers what persists longer than a run.
const MAX_RHO: f64 = 0.5;

/// One run's figure's standard error, relative to the figure, and its degrees of freedom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub rel_se: f64,
    pub df: f64,
}

/// Why a run gives no estimate for a figure.
pub fn why_none(stat: Stat) -> &'static str {
    match stat {
        Stat::Latency(LatencyStat::Min | LatencyStat::Max | LatencyStat::Stdev)
        | Stat::Service(LatencyStat::Min | LatencyStat::Max | LatencyStat::Stdev) => {
            "one run has no spread for this figure (repeat the runs)"
        }
        _ => "too few sub-second samples (results without ticks, or a point under 0.5 s)",
    }
}

/// The per-tick series (I/Os, latency sum ns) of a direction over the window's full ticks; the
/// per-second intervals when the results have no ticks (total only).
pub(super) fn series(
    c: &ClassResult,
    window_s: f64,
    dir: Direction,
) -> Option<(Vec<f64>, Vec<f64>)> {
    let Some(t) = &c.ticks else {
        if dir != Direction::Total {
            return None;
        }
        let (ios, ns): (Vec<f64>, Vec<f64>) = full_seconds(&c.intervals)
            .map(|i| (i.ios as f64, i.mean_ns * i.ios as f64))
            .unzip();
        return (ios.len() >= MIN_SAMPLES).then_some((ios, ns));
    };
    if t.ms == 0 {
        return None;
    }
    let full = ((window_s * 1000.0 + 1e-6) / f64::from(t.ms)).floor() as usize;
    let pick = |v: &[u64]| -> Vec<f64> { v.iter().take(full).map(|&x| x as f64).collect() };
    let (r, rn, w, wn) = (
        pick(&t.read_ios),
        pick(&t.read_latency_ns),
        pick(&t.write_ios),
        pick(&t.write_latency_ns),
    );
    let add = |a: &[f64], b: &[f64]| -> Vec<f64> {
        (0..a.len().max(b.len()))
            .map(|i| a.get(i).unwrap_or(&0.0) + b.get(i).unwrap_or(&0.0))
            .collect()
    };
    let (ios, ns) = match dir {
        Direction::Total => (add(&r, &w), add(&rn, &wn)),
        // A class that only reads has its total as its reads, and the other way round.
        Direction::Read if r.is_empty() => (w, wn),
        Direction::Read => (r, rn),
        Direction::Write if w.is_empty() => (r, rn),
        Direction::Write => (w, wn),
        // Commits have no per-tick series.
        Direction::Commit => return None,
    };
    (ios.len() >= MIN_SAMPLES).then_some((ios, ns))
}

/// The ratio `Σy/Σx`'s relative standard error, with the residuals' autocorrelation, and the
/// share of the samples that count as independent.
fn ratio(y: &[f64], x: &[f64]) -> Option<(Estimate, f64)> {
    let n = y.len();
    if n < MIN_SAMPLES || x.len() != n {
        return None;
    }
    let (sy, sx) = (y.iter().sum::<f64>(), x.iter().sum::<f64>());
    if sy <= 0.0 || sx <= 0.0 {
        return None;
    }
    let r = sy / sx;
    let e: Vec<f64> = y.iter().zip(x).map(|(y, x)| y - r * x).collect();
    let ss: f64 = e.iter().map(|v| v * v).sum();
    let rho = if ss > 0.0 {
        (e.windows(2).map(|w| w[0] * w[1]).sum::<f64>() / ss).clamp(0.0, MAX_RHO)
    } else {
        0.0
    };
    let independent = (1.0 - rho) / (1.0 + rho);
    let n_eff = (n as f64 * independent).max(1.0);
    let var = ss / (n as f64 - 1.0);
    let x_mean = sx / n as f64;
    let se = (var / n_eff).sqrt() / x_mean;
    // The variance is still estimated from n samples: n − 1 degrees of freedom for its t.
    Some((
        Estimate {
            rel_se: se / r,
            df: n as f64 - 1.0,
        },
        independent,
    ))
}

/// The quantile a percentile statistic reads.
pub(super) fn quantile(s: LatencyStat) -> Option<f64> {
    match s {
        LatencyStat::P50 => Some(0.5),
        LatencyStat::P90 => Some(0.9),
        LatencyStat::P99 => Some(0.99),
        LatencyStat::P99_9 => Some(0.999),
        LatencyStat::P99_99 => Some(0.9999),
        _ => None,
    }
}

/// The order statistic's 99% interval for quantile `q` in `histogram` over `n_eff` independent
/// I/Os: (low, the percentile, high), in ns.
fn order_interval(histogram: &str, q: f64, n_eff: f64) -> Option<(f64, f64, f64)> {
    let h = decode_histogram(histogram)?;
    if h.is_empty() || n_eff < 1.0 {
        return None;
    }
    let half = Z99 * (q * (1.0 - q) / n_eff).sqrt();
    let at = |p: f64| h.value_at_quantile(p.clamp(0.0, 1.0)) as f64;
    let (lo, mid, hi) = (at(q - half), at(q), at(q + half));
    (mid > 0.0).then_some((lo, mid, hi))
}

/// A percentile's relative standard error from the order statistic's interval in `histogram`,
/// over `n_eff` independent I/Os.
fn percentile(histogram: &str, q: f64, n_eff: f64, df: f64) -> Option<Estimate> {
    let (lo, mid, hi) = order_interval(histogram, q, n_eff)?;
    Some(Estimate {
        rel_se: (hi - lo) / 2.0 / Z99 / mid,
        df,
    })
}

/// How many of a direction's I/Os count as independent for a percentile, and the ticks' degrees
/// of freedom: the count shrunk by the ticks' autocorrelation, and by the design effect of slow
/// I/Os that come in bursts (a stall, a throttle's slice, the host's other load hold many
/// consecutive I/Os at once): the per-tick mean latency then varies more than independent I/Os
/// would make it, by the factor the count is divided by.
fn tail_n_eff(c: &ClassResult, d: &DirStats, window_s: f64, dir: Direction) -> Option<(f64, f64)> {
    let (ios, ns) = series(c, window_s, dir)?;
    let ones = vec![1.0; ios.len()];
    let (rate, independent) = ratio(&ios, &ones)?;
    let n = d.ios as f64;
    let mut n_eff = n * independent;
    let l = &d.latency;
    // From ticks only: a handful of whole seconds (results written before ticks) estimate a
    // variance too poorly to divide the count by it.
    if c.ticks.is_some()
        && let Some((mean, _)) = ratio(&ns, &ios)
        && l.mean_ns > 0.0
        && l.stdev_ns > 0.0
        && n > 0.0
    {
        let iid = l.stdev_ns / l.mean_ns / n.sqrt();
        let deff = (mean.rel_se / iid).powi(2);
        if deff > 1.0 {
            n_eff = n_eff.min(n / deff);
        }
    }
    Some((n_eff, rate.df))
}

/// A percentile's 99% interval (low, percentile, high; ns) from one run's records, for the
/// percentile statistics (none for the others).
pub fn interval(
    c: &ClassResult,
    d: &DirStats,
    window_s: f64,
    dir: Direction,
    stat: Stat,
) -> Option<(f64, f64, f64)> {
    let (q, histogram) = match stat {
        Stat::Latency(s) => (quantile(s)?, &d.histogram),
        Stat::Service(s) => (quantile(s)?, &d.service.as_ref()?.histogram),
        _ => return None,
    };
    let (n_eff, _) = tail_n_eff(c, d, window_s, dir)?;
    order_interval(histogram, q, n_eff)
}

/// What one run's records say about its figure `stat` of `dir` (`d` that direction's figures,
/// over a window of `window_s`); none where they cannot (see the module's note).
pub fn within(
    c: &ClassResult,
    d: &DirStats,
    window_s: f64,
    dir: Direction,
    stat: Stat,
) -> Option<Estimate> {
    let (ios, ns) = series(c, window_s, dir)?;
    let ones = vec![1.0; ios.len()];
    let (rate, independent) = ratio(&ios, &ones)?;
    let n_eff = d.ios as f64 * independent;
    let tail = || tail_n_eff(c, d, window_s, dir).map_or(n_eff, |(n, _)| n);
    match stat {
        Stat::Iops | Stat::Mbps => Some(rate),
        Stat::Latency(LatencyStat::Mean) => ratio(&ns, &ios).map(|(e, _)| e),
        Stat::Latency(s) => percentile(&d.histogram, quantile(s)?, tail(), rate.df),
        Stat::Service(LatencyStat::Mean) => {
            let l = &d.service.as_ref()?.latency;
            (l.mean_ns > 0.0 && n_eff >= 1.0).then(|| Estimate {
                rel_se: l.stdev_ns / l.mean_ns / n_eff.sqrt(),
                df: rate.df,
            })
        }
        Stat::Service(s) => percentile(
            &d.service.as_ref()?.histogram,
            quantile(s)?,
            tail(),
            rate.df,
        ),
    }
}

/// Student's t two-sided 99% quantile for `df` degrees of freedom (interpolated in 1/df between
/// tabled values; the normal's beyond 120).
pub fn t99(df: f64) -> f64 {
    const TABLE: [(f64, f64); 17] = [
        (1.0, 63.657),
        (2.0, 9.925),
        (3.0, 5.841),
        (4.0, 4.604),
        (5.0, 4.032),
        (6.0, 3.707),
        (7.0, 3.499),
        (8.0, 3.355),
        (9.0, 3.250),
        (10.0, 3.169),
        (12.0, 3.055),
        (15.0, 2.947),
        (20.0, 2.845),
        (30.0, 2.750),
        (60.0, 2.660),
        (120.0, 2.617),
        (f64::INFINITY, Z99),
    ];
    let df = df.max(1.0);
    for w in TABLE.windows(2) {
        let ((d0, t0), (d1, t1)) = (w[0], w[1]);
        if df <= d1 {
            let (a, b, x) = (1.0 / d0, 1.0 / d1, 1.0 / df);
            return t0 + (t1 - t0) * (a - x) / (a - b);
        }
    }
    Z99
}

#[cfg(test)]
#[path = "noise_tests.rs"]
mod tests;
