//! The sampler against theory: the hottest shares, distinct blocks, and the permutation.

use super::*;
use rigel_expr::{harmonic, parse_distribution};

/// Draws `draws` slots; returns per-slot counts and the bucket counts.
fn sample(d: &str, n: u64, draws: u64, contiguous: bool) -> (Vec<u32>, [u64; 4]) {
    let d = parse_distribution(d).expect("a distribution");
    let s = Skew::new(&d, n, contiguous, 42).expect("skewed");
    let mut rng = fastrand::Rng::with_seed(7);
    let mut counts = vec![0u32; n as usize];
    let mut buckets = [0u64; 4];
    for _ in 0..draws {
        let (slot, b) = s.next(&mut rng);
        counts[slot as usize] += 1;
        buckets[b as usize] += 1;
    }
    (counts, buckets)
}

/// Expected distinct blocks after `draws` draws: Σ 1 − (1 − p_k)^draws.
fn distinct_theory(p: impl Iterator<Item = f64>, draws: u64) -> f64 {
    p.map(|p| 1.0 - (-(draws as f64) * p).exp()).sum()
}

#[test]
#[serial_test::parallel]
fn zipf_over_a_million_blocks_matches_theory() {
    let (n, draws) = (1_000_000u64, 2_000_000u64);
    let (counts, buckets) = sample("zipf:1.2", n, draws, false);
    let d = Distribution::Zipf(1.2);
    for (i, share) in HOTTEST.iter().enumerate() {
        let achieved = buckets[..=i].iter().sum::<u64>() as f64 / draws as f64;
        let theory = d.hottest_share(*share, n);
        assert!(
            (achieved - theory).abs() < 0.005,
            "hottest {share}: {achieved} vs {theory}"
        );
    }
    // Distinct blocks: the bijection loses none (fio's hash touched 3% of what theory says).
    let h = harmonic(n, 1.2);
    let p = (1..=n).map(|k| (k as f64).powf(-1.2) / h);
    let theory = distinct_theory(p, draws);
    let distinct = counts.iter().filter(|&&c| c > 0).count() as f64;
    assert!(
        (distinct / theory - 1.0).abs() < 0.02,
        "{distinct} distinct vs {theory}"
    );
    // Scattered: the hottest 1% of ranks are spread over the region, not at its start.
    let first_tenth: u64 = counts[..n as usize / 10]
        .iter()
        .map(|&c| u64::from(c))
        .sum();
    assert!((first_tenth as f64 / draws as f64) < 0.3, "{first_tenth}");
}

#[test]
#[serial_test::parallel]
fn contiguous_puts_the_hot_set_at_the_start() {
    let (n, draws) = (100_000u64, 500_000u64);
    let (counts, _) = sample("zipf:1.2", n, draws, true);
    let first: u64 = counts[..1000].iter().map(|&c| u64::from(c)).sum();
    let theory = Distribution::Zipf(1.2).hottest_share(0.01, n);
    assert!((first as f64 / draws as f64 - theory).abs() < 0.01);
    assert!(counts[0] > counts[1] && counts[1] > counts[10]);
}

#[test]
#[serial_test::parallel]
fn pareto_normal_and_hot_bands_match_theory() {
    let (n, draws) = (200_000u64, 1_000_000u64);
    for text in [
        "pareto:0.2",
        "pareto:0.4",
        "normal:5%",
        "hot:90%/10%, 8%/20%",
        "hot:30%/50%, 70%/10%",
    ] {
        let (counts, buckets) = sample(text, n, draws, false);
        let d = parse_distribution(text).expect("parses");
        for (i, share) in HOTTEST.iter().enumerate() {
            let achieved = buckets[..=i].iter().sum::<u64>() as f64 / draws as f64;
            let theory = d.hottest_share(*share, n);
            assert!(
                (achieved - theory).abs() < 0.005,
                "{text} hottest {share}: {achieved} vs {theory}"
            );
            // And the blocks themselves: the hottest by count hold at least that share.
            let mut sorted = counts.clone();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            let k = (share * n as f64) as usize;
            let top: u64 = sorted[..k].iter().map(|&c| u64::from(c)).sum();
            assert!(top as f64 / draws as f64 >= theory - 0.01, "{text} {share}");
        }
    }
    // Normal, contiguous: a bell around the middle.
    let (counts, _) = sample("normal:5%", n, draws, true);
    let middle: u64 = counts[90_000..110_000].iter().map(|&c| u64::from(c)).sum();
    let theory = Distribution::Normal(0.05).hottest_share(0.1, n);
    assert!(
        (middle as f64 / draws as f64 - theory).abs() < 0.01,
        "{middle}"
    );
}

#[test]
#[serial_test::parallel]
fn the_block_map_is_a_bijection_with_an_inverse() {
    for n in [1u64, 2, 3, 1000, 4096, 65_537] {
        let m = BlockMap::new(n, 99);
        let mut seen = vec![false; n as usize];
        for x in 0..n {
            let y = m.forward(x);
            assert!(y < n);
            assert!(!seen[y as usize], "n = {n}: {y} twice");
            seen[y as usize] = true;
            assert_eq!(m.inverse(y), x);
        }
    }
    // Another key, another permutation.
    let (a, b) = (BlockMap::new(1000, 1), BlockMap::new(1000, 2));
    assert!((0..1000).filter(|&x| a.forward(x) != b.forward(x)).count() > 900);
}
