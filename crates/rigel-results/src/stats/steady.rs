//! Steady state as SNIA's Solid State Storage Performance Test Specification defines it: over a
//! measurement window of the last N rounds, the data excursion (max − min) is within a share of
//! the window's mean, and so is the excursion of the least-squares line across the window.

use super::seconds::MIN_SECONDS;
pub use crate::SteadyRecord;

/// `steady after 7 rounds` / `not steady in 30m (12 rounds)`; `not judged in 1m (2 rounds, fewer
/// than the window's 5)` when no window filled; a window smaller than [`MIN_SECONDS`] rounds is
/// named as the weak verdict it is (per-second statistics are never judged from fewer).
pub fn summary(reached: bool, n: usize, window: usize, max: &str) -> String {
    let rounds = if n == 1 { "round" } else { "rounds" };
    let verdict = if reached {
        format!("steady after {n} {rounds}")
    } else if n < window {
        return format!("not judged in {max} ({n} {rounds}, fewer than the window's {window})");
    } else {
        format!("not steady in {max} ({n} {rounds})")
    };
    if window < MIN_SECONDS {
        format!(
            "{verdict}; judged from a window of {window} rounds, fewer than {MIN_SECONDS}: weak"
        )
    } else {
        verdict
    }
}

/// A window judged: its excursions in % of its mean, and whether both are within their bands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Judged {
    pub excursion: f64,
    pub slope: f64,
    pub steady: bool,
}

/// Judges one measurement window against the bands (`excursion`, `slope`, in % of the mean).
/// None when the window cannot be judged: fewer than 2 values, or a mean that is not positive.
pub fn judge(window: &[f64], excursion: f64, slope: f64) -> Option<Judged> {
    let n = window.len();
    if n < 2 || window.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mean = window.iter().sum::<f64>() / n as f64;
    if mean <= 0.0 {
        return None;
    }
    let max = window.iter().copied().fold(f64::MIN, f64::max);
    let min = window.iter().copied().fold(f64::MAX, f64::min);
    // Least squares over x = 0..n-1: slope = Σ(x − x̄)(y − ȳ) / Σ(x − x̄)²; the line's excursion
    // across the window is |slope| × (n − 1).
    let xm = (n - 1) as f64 / 2.0;
    let (sxy, sxx) = window
        .iter()
        .enumerate()
        .fold((0.0, 0.0), |(sxy, sxx), (i, y)| {
            let dx = i as f64 - xm;
            (sxy + dx * (y - mean), sxx + dx * dx)
        });
    let line = (sxy / sxx).abs() * (n - 1) as f64;
    let (e, s) = (100.0 * (max - min) / mean, 100.0 * line / mean);
    Some(Judged {
        excursion: e,
        slope: s,
        steady: e <= excursion && s <= slope,
    })
}

/// The last `rounds` values of `series` judged as a window (None: too few values yet, or a
/// round without a value among them).
pub fn judge_last(
    series: &[Option<f64>],
    rounds: usize,
    excursion: f64,
    slope: f64,
) -> Option<Judged> {
    let tail = series.get(series.len().checked_sub(rounds)?..)?;
    let values: Option<Vec<f64>> = tail.iter().copied().collect();
    judge(&values?, excursion, slope)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_below_the_minimum_is_named_and_an_unfilled_one_not_judged() {
        assert_eq!(summary(true, 7, 5, "30m"), "steady after 7 rounds");
        assert_eq!(
            summary(false, 12, 5, "30m"),
            "not steady in 30m (12 rounds)"
        );
        assert_eq!(
            summary(false, 2, 5, "1m"),
            "not judged in 1m (2 rounds, fewer than the window's 5)"
        );
        assert!(summary(false, 3, 2, "1s").ends_with("window of 2 rounds, fewer than 5: weak"));
    }

    /// (series, window, steady after how many rounds: None = never).
    #[test]
    fn steady_state_follows_snia_bands() {
        let table: &[(&[f64], usize, Option<usize>)] = &[
            // Flat: steady as soon as the window is full.
            (&[100.0; 5], 5, Some(5)),
            (&[100.0, 100.0], 2, Some(2)),
            // A fresh drive's decay, then a plateau: steady once the window left the decay
            // (rounds 4–8 still span 120 → 98, 21% of their mean).
            (
                &[300.0, 250.0, 180.0, 120.0, 102.0, 100.0, 98.0, 101.0, 99.0],
                5,
                Some(9),
            ),
            // Noise of ±8% around 100 without a trend: range 16% ≤ 20%, line flat.
            (&[92.0, 108.0, 92.0, 108.0, 100.0], 5, Some(5)),
            // Range 22% > 20%: never.
            (&[89.0, 111.0, 89.0, 111.0, 100.0, 89.0, 111.0], 5, None),
            // A steady climb of 3% a round: range 12% ≤ 20%, but the line rises 12% > 10%.
            (&[100.0, 103.0, 106.0, 109.0, 112.0, 115.0], 5, None),
            // A climb of 2% a round: line 8% ≤ 10%, range 8%: steady.
            (&[100.0, 102.0, 104.0, 106.0, 108.0], 5, Some(5)),
            // Zero throughput cannot be judged steady.
            (&[0.0; 6], 5, None),
            // Too few rounds.
            (&[100.0; 4], 5, None),
        ];
        for (series, window, expected) in table {
            let series: Vec<Option<f64>> = series.iter().map(|v| Some(*v)).collect();
            let after = (1..=series.len())
                .find(|&k| judge_last(&series[..k], *window, 20.0, 10.0).is_some_and(|j| j.steady));
            assert_eq!(after, *expected, "{series:?} window {window}");
        }
    }

    #[test]
    fn the_line_excursion_is_the_fit_across_the_window() {
        let j = judge(&[100.0, 102.0, 104.0, 106.0, 108.0], 20.0, 10.0).expect("judged");
        // Mean 104, slope 2 per round, across 4 steps: 8 → 7.69%.
        assert!((j.slope - 800.0 / 104.0).abs() < 1e-9, "{j:?}");
        assert!((j.excursion - 800.0 / 104.0).abs() < 1e-9, "{j:?}");
        // A round without a value (a failed round) breaks the window.
        assert_eq!(
            judge_last(&[Some(1.0), None, Some(1.0)], 2, 20.0, 10.0),
            None
        );
        assert!(judge_last(&[None, Some(1.0), Some(1.0)], 2, 20.0, 10.0).is_some());
    }
}
