//! The block-hit curve of a class's requests and the zipf θ that fits it: blocks sorted by hits,
//! the cumulative share of the I/Os on the hottest k of them, against the theory's
//! `H(k, θ) / H(n, θ)` over the `n` blocks of the region (`rigel_expr::harmonic`, the same rule
//! the executor's results compare with).

use rigel_expr::{Distribution, harmonic};

/// Ranks compared with the theory: those whose block was hit at least this often (below it,
/// sampling noise decides a block's rank more than its heat does).
const MIN_HITS: u64 = 10;
/// At most this many ranks enter the fit (the hottest).
const MAX_RANKS: usize = 10_000;

/// What the fit found.
#[derive(Clone, Debug, PartialEq)]
pub struct SkewFit {
    /// The distribution chosen: `zipf:θ`, or uniform when it fits at least as well (or when too
    /// few blocks were hit often enough to fit anything).
    pub distribution: Distribution,
    /// The fitted θ (even when uniform was chosen), None when nothing could be fitted.
    pub theta: Option<f64>,
    /// Root-mean-square distance, in points of share, between the observed and the fitted curve
    /// over the ranks compared.
    pub rms_points: f64,
    /// The same for the uniform curve, and for the zipf curve at θ.
    pub uniform_rms_points: f64,
    pub zipf_rms_points: Option<f64>,
    /// The hits' index of dispersion over the region's blocks (variance / mean): 1 for uniform
    /// random hits (Poisson counts), far above for a skew.
    pub dispersion: f64,
    /// Ranks compared (blocks hit at least 10 times, at most 10,000).
    pub ranks: usize,
    /// Blocks hit at all, and blocks in the region.
    pub blocks_hit: u64,
    pub blocks: u64,
    /// Observed share of the I/Os on the hottest 1%, 10% and 20% of the region's blocks.
    pub hottest: [f64; 3],
}

/// The hottest shares reported, as in the executor's skew results.
pub const HOTTEST: [f64; 3] = [0.01, 0.10, 0.20];

/// Fits `hits` (the hit count of each block hit at least once) over `blocks` blocks.
pub fn fit(mut hits: Vec<u64>, blocks: u64) -> SkewFit {
    hits.sort_unstable_by(|a, b| b.cmp(a));
    let total: u64 = hits.iter().sum();
    let blocks = blocks.max(hits.len() as u64).max(1);
    let mut cum = Vec::with_capacity(hits.len());
    let mut acc = 0u64;
    for h in &hits {
        acc += h;
        cum.push(acc as f64 / total.max(1) as f64);
    }
    let observed = |k: u64| -> f64 {
        if k == 0 {
            0.0
        } else {
            cum.get(k as usize - 1).copied().unwrap_or(1.0)
        }
    };
    let hottest = HOTTEST.map(|s| observed((s * blocks as f64).floor() as u64));
    let ranks = hits
        .iter()
        .take_while(|&&h| h >= MIN_HITS)
        .count()
        .min(MAX_RANKS);
    let uniform_rms = rms(&cum[..ranks], |k| k as f64 / blocks as f64);
    let dispersion = dispersion(&hits, blocks);
    let mut out = SkewFit {
        distribution: Distribution::Uniform,
        theta: None,
        rms_points: uniform_rms,
        uniform_rms_points: uniform_rms,
        zipf_rms_points: None,
        dispersion,
        ranks,
        blocks_hit: hits.len() as u64,
        blocks,
        hottest,
    };
    // Uniform hits still sort into a falling curve (noise ranks the luckiest blocks first), which
    // a small θ fits better than the uniform line: a dispersion consistent with Poisson counts
    // (within 4 standard deviations, √(2/(n−1)) each) is uniform.
    if ranks < 3 || dispersion <= 1.0 + 4.0 * (2.0 / (blocks.max(2) - 1) as f64).sqrt() {
        return out;
    }
    let error = |theta: f64| {
        let hn = harmonic(blocks, theta);
        let mut partial = 0.0;
        let theory: Vec<f64> = (1..=ranks)
            .map(|k| {
                partial += (k as f64).powf(-theta);
                partial / hn
            })
            .collect();
        rms(&cum[..ranks], |k| theory[k - 1])
    };
    // Golden-section search: the error is unimodal in θ over a curve this smooth.
    let (mut lo, mut hi) = (0.01_f64, 5.0_f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (hi - g * (hi - lo), lo + g * (hi - lo));
    let (mut fa, mut fb) = (error(a), error(b));
    while hi - lo > 1e-4 {
        if fa <= fb {
            hi = b;
            (b, fb) = (a, fa);
            a = hi - g * (hi - lo);
            fa = error(a);
        } else {
            lo = a;
            (a, fa) = (b, fb);
            b = lo + g * (hi - lo);
            fb = error(b);
        }
    }
    let theta = (lo + hi) / 2.0;
    let zipf_rms = error(theta);
    out.theta = Some(theta);
    out.zipf_rms_points = Some(zipf_rms);
    if zipf_rms < uniform_rms {
        // Two decimals, as a person would write it in a spec.
        let rounded = ((theta * 100.0).round() / 100.0).max(0.01);
        out.distribution = Distribution::Zipf(rounded);
        out.rms_points = zipf_rms;
    }
    out
}

/// Variance over mean of the hits of all `blocks` blocks (those not in `hits` were hit 0 times).
fn dispersion(hits: &[u64], blocks: u64) -> f64 {
    let n = blocks.max(2) as f64;
    let total: f64 = hits.iter().map(|&h| h as f64).sum();
    let squares: f64 = hits.iter().map(|&h| (h as f64).powi(2)).sum();
    let mean = total / n;
    if mean <= 0.0 {
        return 1.0;
    }
    ((squares - n * mean * mean) / (n - 1.0)) / mean
}

/// RMS distance in points (×100) between `cum[k-1]` and `theory(k)` for k = 1..=len.
fn rms(cum: &[f64], theory: impl Fn(usize) -> f64) -> f64 {
    if cum.is_empty() {
        return 0.0;
    }
    let sum: f64 = cum
        .iter()
        .enumerate()
        .map(|(i, c)| (c - theory(i + 1)).powi(2))
        .sum();
    (sum / cum.len() as f64).sqrt() * 100.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_distr::Distribution as _;
    use rigel_plan::fast_rng::Fast;

    fn sample(theta: f64, blocks: u64, n: usize, seed: u64) -> Vec<u64> {
        let z = rand_distr::Zipf::new(blocks as f64, theta).expect("zipf");
        let mut seeded = fastrand::Rng::with_seed(seed);
        let mut rng = Fast(&mut seeded);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..n {
            let k: f64 = z.sample(&mut rng);
            *counts.entry(k as u64).or_insert(0u64) += 1;
        }
        counts.into_values().collect()
    }

    #[test]
    fn zipf_samples_fit_their_theta() {
        for (theta, seed) in [(1.1, 1), (0.8, 2), (1.5, 3)] {
            let f = fit(sample(theta, 16_384, 50_000, seed), 16_384);
            let got = f.theta.expect("fitted");
            assert!(
                (got - theta).abs() < 0.05,
                "θ {theta}: fitted {got} ({f:?})"
            );
            assert_eq!(
                f.distribution,
                Distribution::Zipf((got * 100.0).round() / 100.0)
            );
            assert!(f.rms_points < 1.0, "{f:?}");
        }
    }

    #[test]
    fn uniform_hits_fit_uniform() {
        let mut rng = fastrand::Rng::with_seed(9);
        let mut counts = vec![0u64; 1000];
        for _ in 0..100_000 {
            counts[rng.usize(..1000)] += 1;
        }
        let f = fit(counts, 1000);
        assert_eq!(f.distribution, Distribution::Uniform, "{f:?}");
        let sparse = fit(vec![1; 500], 1_000_000);
        assert_eq!(
            (sparse.distribution, sparse.theta),
            (Distribution::Uniform, None)
        );
    }
}
