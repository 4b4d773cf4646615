//! How much a figure moves by itself between two runs of the same spec, from the per-second
//! intervals of both, as a ± band in percent of BASE. A change inside the band is noise, whatever the
//! threshold.
//!
//! Why not the standard error of the mean alone: seconds of one run are not independent draws. A
//! loaded host, a device's background work or a cache warming up move many consecutive seconds
//! together, so two unchanged back-to-back runs differ by far more than `2·σ/√n` (measured on a
//! loop device: the same spec twice, p99 4.02 ms then 3.38 ms (-16%), while `2·SE` gave ±14.5%).
//! What a run's seconds do show is how far the figure wanders over the run: each run's mean could
//! have landed anywhere its own seconds went. So each run contributes half its per-second min–max
//! range, the two combined as independent errors (`√(h_b² + h_n²)`), and the band is never narrower
//! than twice the standard error of the difference of the means (which matters with two or three
//! seconds, where a range says little). Each run's range is taken on its own: a step between the
//! runs (the change being judged) does not widen the band.

use rigel_expr::{LatencyStat, Stat};
use rigel_results::stats::full_seconds;
use rigel_results::{ClassResult, Interval};

/// The per-second series that stands for `stat` (p99 for every tail statistic).
fn per_second(stat: Stat) -> fn(&Interval) -> f64 {
    match stat {
        Stat::Iops => |i| i.iops,
        Stat::Mbps => |i| i.mbps,
        Stat::Latency(LatencyStat::Mean) => |i| i.mean_ns,
        _ => |i| i.p99_ns as f64,
    }
}

/// What one run's seconds say about its mean.
struct Spread {
    mean: f64,
    /// Sample variance.
    var: f64,
    n: f64,
    /// Half the min–max range.
    half_range: f64,
}

fn spread(xs: &[f64]) -> Option<Spread> {
    if xs.len() < 2 {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    Some(Spread {
        mean,
        var,
        n,
        half_range: (max - min) / 2.0,
    })
}

/// ± percent of BASE's per-second mean (see the module's note). None when either run has fewer
/// than two full seconds (no spread to speak of).
pub fn noise_percent(base: &ClassResult, new: &ClassResult, stat: Stat) -> Option<f64> {
    let f = per_second(stat);
    let series = |c: &ClassResult| full_seconds(&c.intervals).map(f).collect::<Vec<f64>>();
    let (b, n) = (spread(&series(base))?, spread(&series(new))?);
    noise_of(&b, &n)
}

fn noise_of(b: &Spread, n: &Spread) -> Option<f64> {
    if b.mean <= 0.0 {
        return None;
    }
    let standard_error = 2.0 * (b.var / b.n + n.var / n.n).sqrt();
    let wander = b.half_range.hypot(n.half_range);
    Some(100.0 * standard_error.max(wander) / b.mean)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn band(base: &[f64], new: &[f64]) -> f64 {
        noise_of(&spread(base).unwrap(), &spread(new).unwrap()).unwrap()
    }

    #[test]
    fn steady_runs_have_a_narrow_band_and_a_step_between_runs_does_not_widen_it() {
        let steady: Vec<f64> = (0..10)
            .map(|t| if t % 2 == 0 { 1020.0 } else { 980.0 })
            .collect();
        // Half-ranges of 20 each: √(20² + 20²) ≈ 28.3, 2.83% of 1000.
        let b = band(&steady, &steady);
        assert!((b - 2.83).abs() < 0.01, "{b}");
        let lowered: Vec<f64> = steady.iter().map(|x| x * 0.8).collect();
        let b = band(&steady, &lowered);
        assert!(b < 3.0, "a 20% step stays far outside the band: ±{b:.1}%");
    }

    #[test]
    fn runs_that_wander_have_a_band_as_wide_as_their_seconds() {
        // Two unchanged back-to-back runs of one spec on a loop device of a loaded host: the
        // per-second p99 (ns) of `rd=1`; the whole runs' p99 went from 4,018,175 to 3,377,151 ns.
        let a = [4014079.0, 4030463.0, 4030463.0, 4014079.0, 4014079.0];
        let b = [4014079.0, 3997695.0, 3276799.0, 2801663.0, 2555903.0];
        let change: f64 = 100.0 * (3377151.0 - 4018175.0) / 4018175.0;
        let noise = band(&a, &b);
        assert!(change.abs() < noise, "{change:.1}% inside ±{noise:.1}%");
        // Twice the standard error alone would have flagged it (-16.0% beyond ±14.5%).
        let (sa, sb) = (spread(&a).unwrap(), spread(&b).unwrap());
        let se = 200.0 * (sa.var / sa.n + sb.var / sb.n).sqrt() / sa.mean;
        assert!(change.abs() > se, "{change:.1}% vs 2·SE ±{se:.1}%");
    }

    #[test]
    fn two_seconds_fall_back_on_the_standard_error() {
        let b = band(&[1000.0, 1100.0], &[1000.0, 1100.0]);
        // 2·√(5000/2 + 5000/2) = 141.4 beats √(50² + 50²) = 70.7; of the mean 1050.
        assert!((b - 13.47).abs() < 0.01, "{b}");
    }
}
