//! A rate line (IOPS, MiB/s) read from its run's typical 100 ms tick rather than from every tick
//! alike.
//!
//! A run on a loaded host can lose a few ticks to it (a tick with no I/O while the loop device's
//! kernel worker or rigel waited for a CPU), and a standard deviation over ten ticks is then wide
//! enough to swallow a real 20% drop (benches/noise.sh: a throttled run with two empty ticks gave
//! −35.8% with a band of ±50.5%). A real drop of the storage moves **every** tick; a few starved
//! ticks move only the mean. So a rate line's own spread is read from its ticks **winsorized**
//! (each clipped to the run's median tick ± [`CLIP`] robust spreads: the median absolute
//! deviation scaled to a normal's σ, at least the tick count's own Poisson spread √median, so
//! that a throttle's quantized ticks, most of them equal, are not all clipped to one value), and
//! the line is flagged only when the **typical** rate (the winsorized ticks' mean) moved beyond
//! the band as well as the figure itself.
//!
//! The ticks' variance is a long-run one (Bartlett weights over [`LAGS`] lags), which counts
//! negative autocorrelation too: a rate limit (a token bucket, a throttle) pays a slow tick back
//! with a fast one, and the window's total is then steadier than its ticks (a throttled run's
//! ticks 160, 94, 226, 97, 113, 270, 160… sum to exactly its limit). The factor is bounded both
//! ways ([`MAX_FACTOR`]): ten ticks estimate a correlation poorly.

use super::noise::{Estimate, MIN_SAMPLES, series};
use rigel_expr::Direction;
use rigel_results::ClassResult;

/// A tick further than this many robust spreads from the run's median tick is clipped to that
/// distance (a normal tick lies within 3σ 99.7% of the time).
pub const CLIP: f64 = 3.0;
/// The lags of the long-run variance: the throttle's payback of a slow tick comes within one or
/// two ticks; more lags over ten ticks add more estimation noise than they remove.
const LAGS: usize = 2;
/// The long-run variance is at most this many times the ticks' variance, and at least its
/// inverse (the positive bound matches the lag-1 clamp of `noise`: ρ = 0.5).
const MAX_FACTOR: f64 = 3.0;

/// `ticks` clipped to their median ± [`CLIP`] robust spreads.
pub fn winsorize(ticks: &[f64]) -> Vec<f64> {
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        (v[(n - 1) / 2] + v[n / 2]) / 2.0
    };
    if ticks.is_empty() {
        return Vec::new();
    }
    let m = median(&mut ticks.to_vec());
    let mad = median(&mut ticks.iter().map(|t| (t - m).abs()).collect());
    // 1.4826: a normal's σ over its median absolute deviation.
    let spread = (1.4826 * mad).max(m.max(1.0).sqrt());
    let (lo, hi) = (m - CLIP * spread, m + CLIP * spread);
    ticks.iter().map(|t| t.clamp(lo, hi)).collect()
}

/// The share of a run's figure its typical ticks give (the winsorized ticks' mean over all the
/// ticks' mean: 1 when no tick was clipped) of `dir`, and the typical mean's relative standard
/// error with its degrees of freedom. The figure times the share is the figure as the typical
/// ticks have it.
pub fn typical(c: &ClassResult, window_s: f64, dir: Direction) -> Option<(f64, Estimate)> {
    let (ios, _) = series(c, window_s, dir)?;
    let raw = ios.iter().sum::<f64>() / ios.len() as f64;
    let (mean, e) = typical_of(&ios)?;
    Some((mean / raw, e))
}

/// [`typical`] of a series of ticks.
fn typical_of(ticks: &[f64]) -> Option<(f64, Estimate)> {
    let y = winsorize(ticks);
    let n = y.len();
    if n < MIN_SAMPLES {
        return None;
    }
    let mean = y.iter().sum::<f64>() / n as f64;
    if mean <= 0.0 {
        return None;
    }
    let e: Vec<f64> = y.iter().map(|v| v - mean).collect();
    let ss: f64 = e.iter().map(|v| v * v).sum();
    let factor = if ss > 0.0 {
        let acf = |k: usize| e.iter().zip(&e[k..]).map(|(a, b)| a * b).sum::<f64>() / ss;
        let weighted: f64 = (1..=LAGS.min(n - 1))
            .map(|k| (1.0 - k as f64 / (LAGS as f64 + 1.0)) * acf(k))
            .sum();
        (1.0 + 2.0 * weighted).clamp(1.0 / MAX_FACTOR, MAX_FACTOR)
    } else {
        1.0
    };
    let var = ss / (n as f64 - 1.0);
    let se = (var * factor / n as f64).sqrt();
    Some((
        mean,
        Estimate {
            rel_se: se / mean,
            df: n as f64 - 1.0,
        },
    ))
}

/// A run's best whole second of `dir` over its mean (≥ 1): the highest rate any second of
/// consecutive ticks held, as a share of the run's; none for a run under two seconds of ticks
/// (its best second would be most of it).
pub fn best_second(c: &ClassResult, window_s: f64, dir: Direction) -> Option<f64> {
    let per_second = match &c.ticks {
        Some(t) if t.ms > 0 && 1000 % t.ms == 0 => (1000 / t.ms) as usize,
        Some(_) => return None,
        None => 1,
    };
    let (ios, _) = series(c, window_s, dir)?;
    if ios.len() < 2 * per_second {
        return None;
    }
    let mean = ios.iter().sum::<f64>() / ios.len() as f64;
    let best = ios
        .windows(per_second)
        .map(|w| w.iter().sum::<f64>() / per_second as f64)
        .fold(0.0, f64::max);
    (mean > 0.0).then(|| best / mean)
}

/// A run some of whose ticks of `dir` completed no I/O at all: the mean of the others over the
/// mean of all (> 1), with the empty ticks and all the ticks counted; none without an empty tick.
pub fn while_running(
    c: &ClassResult,
    window_s: f64,
    dir: Direction,
) -> Option<(f64, usize, usize)> {
    let (ios, _) = series(c, window_s, dir)?;
    let running: Vec<f64> = ios.iter().copied().filter(|&t| t > 0.0).collect();
    let (n, empty) = (ios.len(), ios.len() - running.len());
    if empty == 0 || running.is_empty() {
        return None;
    }
    Some((n as f64 / running.len() as f64, empty, n))
}

#[cfg(test)]
mod tests {
    use super::super::band::{RunLine, band};
    use super::super::point_lines::metric_change;
    use super::super::{Change, MetricChange};
    use super::*;
    use rigel_expr::Stat;

    /// A read class at QD 4 that completed `ticks[t]` I/Os in its 100 ms tick `t`.
    fn run(ticks: &[u64]) -> ClassResult {
        let mut r = rigel_results::ClassRecorder::new(1);
        for (t, &n) in ticks.iter().enumerate() {
            for _ in 0..n {
                r.record(false, 2_000_000, 4096, t);
            }
        }
        r.finish("c", 4096, 4, true, false, ticks.len() as f64 / 10.0)
    }

    /// BASE's IOPS line against NEW's, judged as compare does (the default 10% floor).
    fn judged(base: &ClassResult, new: &ClassResult) -> MetricChange {
        fn line(c: &ClassResult) -> RunLine<'_> {
            RunLine {
                class: c,
                dir: &c.total,
                window_s: c
                    .ticks
                    .as_ref()
                    .map_or(1.0, |t| t.read_ios.len() as f64 / 10.0),
                value: c.total.ios as f64,
            }
        }
        let (b, n) = ([line(base)], [line(new)]);
        let noise = band(Stat::Iops, Direction::Total, &b, &n, 10.0);
        let (bv, nv) = (b[0].value, n[0].value);
        metric_change(("c", Direction::Total, Stat::Iops), bv, nv, 5.0, noise)
    }

    #[test]
    fn a_drop_with_two_starved_ticks_is_flagged_and_two_starved_ticks_alone_are_not() {
        // benches/noise.sh's throttled pair: BASE held at 200 a tick, NEW at 160 but for two
        // ticks the host took: −35.8%, and a standard deviation over the ticks gave ±50.5%.
        let base = run(&[200; 10]);
        let drop = run(&[160, 160, 0, 0, 164, 160, 160, 160, 160, 160]);
        let m = judged(&base, &drop);
        assert_eq!(m.verdict, Change::Regressed, "{}", m.change_text);
        assert!(m.noise_percent.unwrap() < 20.0, "{}", m.change_text);
        // The same two ticks lost by an unchanged device: −20% of the figure, −4.2% of the
        // typical tick's (the empty ticks clipped to 200 − 3·√200), inside the threshold.
        let stall = run(&[200, 200, 0, 0, 200, 200, 200, 200, 200, 200]);
        let m = judged(&base, &stall);
        assert_eq!(m.verdict, Change::Inconclusive, "{}", m.change_text);
        let why = m.ticks.as_deref().expect("the ticks named");
        assert!(
            why.starts_with("the typical 100 ms tick moved -4.2%"),
            "{why}"
        );
        // A steady drop of every tick is flagged whatever its ticks' jitter.
        let jitter = run(&[160, 94, 226, 97, 113, 270, 160, 160, 160, 160]);
        let m = judged(&base, &jitter);
        assert_eq!(m.verdict, Change::Regressed, "{}", m.change_text);
    }

    #[test]
    fn a_few_empty_ticks_are_clipped_and_a_steady_shift_is_not() {
        // Two ticks lost to the host among a throttle's steady 160s: clipped to 160 − 3·√160.
        let starved = [
            160.0, 160.0, 0.0, 0.0, 164.0, 160.0, 160.0, 160.0, 160.0, 160.0,
        ];
        let w = winsorize(&starved);
        let floor = 160.0 - 3.0 * 160f64.sqrt();
        assert!((w[2] - floor).abs() < 1e-9, "{w:?}");
        assert_eq!(w[0], 160.0);
        // Every tick 20% lower: nothing clipped, the mean moves by the whole shift.
        let shifted: Vec<f64> = [200.0, 196.0, 204.0, 200.0, 198.0, 202.0]
            .iter()
            .map(|t| t * 0.8)
            .collect();
        assert_eq!(winsorize(&shifted), shifted);
    }

    #[test]
    fn a_throttle_s_payback_ticks_count_as_a_steadier_total() {
        // A slow tick paid back by the next (negative autocorrelation): the long-run error is
        // below the independent one, s/√n.
        let y = [
            160.0, 94.0, 226.0, 97.0, 113.0, 270.0, 160.0, 160.0, 160.0, 160.0,
        ];
        let w = winsorize(&y);
        let n = w.len() as f64;
        let mean = w.iter().sum::<f64>() / n;
        let s = (w.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        let iid = s / n.sqrt() / mean;
        let (_, e) = typical_of(&y).unwrap();
        assert!(e.rel_se < 0.8 * iid, "{} vs {iid}", e.rel_se);
        assert!(e.rel_se >= iid / MAX_FACTOR.sqrt() - 1e-12);
    }

    #[test]
    fn a_drop_that_a_stall_and_its_burst_hid_in_the_figure_is_flagged_by_its_typical_tick() {
        // benches/noise.sh at load 3.5: BASE held at 200 a tick, NEW throttled to 160, its
        // first tick stalled (8 I/Os) and the throttle's unused budget let 485 through in the
        // next: the figure −11.3%, inside its band (±12.2%); every other tick −20%.
        let mut b = [200; 10];
        b[..2].copy_from_slice(&[81, 319]);
        let mut n = [160; 10];
        n[..2].copy_from_slice(&[8, 485]);
        let m = judged(&run(&b), &run(&n));
        assert_eq!(m.verdict, Change::Regressed, "{}", m.change_text);
        let (c, band) = (m.change_percent.unwrap(), m.noise_percent.unwrap());
        assert!(
            c.abs() < band,
            "the figure inside its band: {}",
            m.change_text
        );
        let why = m.ticks.as_deref().expect("the ticks named");
        assert!(
            why.starts_with("the typical 100 ms tick moved -20.0%"),
            "{why}"
        );
        assert_eq!(m.typical_percent.map(f64::round), Some(-20.0));
        // The same stall and burst on an unchanged device: not flagged.
        let mut same = [200; 10];
        same[..2].copy_from_slice(&[8, 485]);
        let m = judged(&run(&b), &run(&same));
        assert!(
            !matches!(m.verdict, Change::Regressed | Change::Improved),
            "{}",
            m.change_text
        );
        // A 5 s run whose most ticks completed nothing (a throttle that let 208 I/Os through once
        // a second, noise2-6) has no typical tick to flag by: its figure is all in the few.
        let mut pulses = [0; 50];
        for t in [8, 18, 28, 38, 48] {
            pulses[t] = 208;
        }
        let m = judged(&run(&pulses), &run(&[200; 50]));
        assert!(m.ticks.is_none() && m.typical_percent.is_none(), "{m:?}");
        // A figure within the threshold is not flagged by its ticks either.
        let m = judged(&run(&[200; 10]), &run(&[196; 10]));
        assert_eq!(m.verdict, Change::Within, "{}", m.change_text);
    }
}
