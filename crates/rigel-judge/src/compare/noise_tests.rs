//! One run's own standard errors: ratio estimators with autocorrelation, percentiles from the
//! histogram's order statistics, and the t table.

use super::*;

#[test]
fn independent_ticks_give_the_textbook_standard_error() {
    // Alternating ticks: negative lag-1 correlation is clamped to 0 (independent at worst).
    let y: Vec<f64> = (0..10)
        .map(|t| if t % 2 == 0 { 1100.0 } else { 900.0 })
        .collect();
    let (e, independent) = ratio(&y, &[1.0; 10]).unwrap();
    assert_eq!(independent, 1.0);
    // s = √(10·100²/9) = 105.4; SE = s/√10 = 33.3; of the mean 1000.
    assert!((e.rel_se - 0.03333).abs() < 1e-4, "{}", e.rel_se);
    assert_eq!(e.df, 9.0);
}

#[test]
fn ticks_that_move_together_count_as_fewer_samples() {
    // A slow wander: neighbouring ticks alike, so the error is wider than the textbook one.
    let y: Vec<f64> = (0..20)
        .map(|t| 1000.0 + 100.0 * (t as f64 / 4.0).sin())
        .collect();
    let (e, independent) = ratio(&y, &[1.0; 20]).unwrap();
    let n = 20.0;
    let mean = y.iter().sum::<f64>() / n;
    let var = y.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let textbook = (var / n).sqrt() / mean;
    assert!(independent < 0.5, "{independent}");
    assert_eq!(e.df, 19.0);
    assert!(e.rel_se > 1.4 * textbook, "{} vs {textbook}", e.rel_se);
}

#[test]
fn slow_ios_in_a_burst_widen_a_percentile_s_interval() {
    // The same 10,000 latencies, but the slowest tenth all in one tick (a stall): the per-tick
    // mean varies far more than independent I/Os would make it, and the interval widens.
    let run = |burst: bool| {
        let mut r = rigel_results::ClassRecorder::new(1);
        for i in 0..10_000u64 {
            let v = if burst { i } else { i * 7919 % 10_000 };
            r.record(false, 100_000 + v * 10, 4096, (i / 1000) as usize);
        }
        let c = r.finish("c", 4096, 1, true, false, 1.0);
        let stat = Stat::Latency(LatencyStat::P90);
        let (lo, _, hi) = interval(&c, &c.total, 1.0, Direction::Total, stat).unwrap();
        hi - lo
    };
    let (spread, burst) = (run(false), run(true));
    assert!(burst > 3.0 * spread, "{burst} vs {spread}");
}

#[test]
fn too_few_ticks_give_no_estimate() {
    assert!(ratio(&[1.0, 2.0, 3.0, 4.0], &[1.0; 4]).is_none());
}

#[test]
fn a_percentile_s_interval_is_read_from_the_histogram() {
    let mut r = rigel_results::ClassRecorder::new(1);
    // 10,000 latencies spread evenly over 100..=200 µs, each tick holding the whole spread (a
    // stride through them): p99 ≈ 199 µs, and ranks 9,900 ± 2.576 · √(99) ≈ ± 25.6 span about
    // ± 0.26 µs.
    for i in 0..10_000u64 {
        r.record(
            false,
            100_000 + (i * 7919 % 10_000) * 10,
            4096,
            (i / 1000) as usize,
        );
    }
    let c = r.finish("c", 4096, 1, true, false, 1.0);
    let e = within(
        &c,
        &c.total,
        1.0,
        Direction::Total,
        Stat::Latency(LatencyStat::P99),
    )
    .unwrap();
    let hw = e.rel_se * Z99 * 199_000.0;
    assert!((100.0..600.0).contains(&hw), "half-width {hw} ns");
    // A maximum is one I/O: no estimate.
    assert!(
        within(
            &c,
            &c.total,
            1.0,
            Direction::Total,
            Stat::Latency(LatencyStat::Max)
        )
        .is_none()
    );
}

#[test]
fn t_quantiles_match_the_table_and_meet_the_normal() {
    assert_eq!(t99(1.0), 63.657);
    assert_eq!(t99(10.0), 3.169);
    assert!((t99(11.0) - 3.11).abs() < 0.01);
    assert!((t99(1e9) - Z99).abs() < 1e-3);
    assert!(t99(0.2) == 63.657, "fewer than 1 df reads as 1");
}
