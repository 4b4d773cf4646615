//! Tests of the distribution grammar: its forms parse and print back, bad values point at their
//! part, theory matches known values.

use super::*;

#[test]
fn forms_parse_and_print_back() {
    for text in [
        "uniform",
        "zipf:1.2",
        "pareto:0.2",
        "normal:10%",
        "hot:90%/10%, 8%/20%",
    ] {
        let d = parse_distribution(text).expect(text);
        assert_eq!(d.to_string(), text);
        assert_eq!(Distribution::try_from(String::from(d.clone())), Ok(d));
    }
    assert_eq!(
        parse_distribution(" zipf: 0.8 ").expect("spaces"),
        Distribution::Zipf(0.8)
    );
    assert_eq!(
        parse_distribution("normal:5").expect("bare"),
        Distribution::Normal(0.05)
    );
}

#[test]
fn bad_values_point_at_their_part() {
    let e = parse_distribution("zipf:0").expect_err("θ = 0");
    assert_eq!(e.span, 5..6);
    assert!(parse_distribution("pareto:1").is_err());
    assert!(parse_distribution("normal:0%").is_err());
    let e = parse_distribution("zipff:1.2").expect_err("typo");
    assert_eq!(e.hint.as_deref(), Some("did you mean `zipf`?"));
    let e = parse_distribution("hot:90%/10%, 20%/20%").expect_err("over 100%");
    assert_eq!(e.span, 12..20);
    assert!(
        parse_distribution("hot:50%/100%").is_err(),
        "half the I/Os with nowhere to go"
    );
    assert!(parse_distribution("hot:90%").is_err());
    assert!(parse_distribution("gauss").is_err());
}

#[test]
fn theory_matches_known_values() {
    // Uniform: the share of blocks.
    assert!((Distribution::Uniform.hottest_share(0.1, 1000) - 0.1).abs() < 1e-12);
    // Pareto 0.2: 80% of the I/Os on 20% of the blocks.
    let p = Distribution::Pareto(0.2).hottest_share(0.2, 1_000_001);
    assert!((p - 0.8).abs() < 1e-6, "{p}");
    // Zipf: against a direct sum (Euler–Maclaurin past 10⁴ terms).
    let n = 1_000_000u64;
    let direct = |m: u64| (1..=m).map(|i| (i as f64).powf(-1.2)).sum::<f64>();
    assert!((harmonic(n, 1.2) - direct(n)).abs() < 1e-9);
    assert!((harmonic(n, 1.0) - direct_s1(n)).abs() < 1e-9);
    let z = Distribution::Zipf(1.2).hottest_share(0.01, n);
    assert!((z - direct(10_000) / direct(n)).abs() < 1e-9);
    // Normal: the central ±1σ holds 68.27% of an untruncated Gaussian.
    let g = Distribution::Normal(0.01).hottest_share(0.02, 10_000_000);
    assert!((g - 0.682_689).abs() < 1e-5, "{g}");
    // Hot bands: 90% on the first 10%; the hottest 20% adds half the second band's 8%.
    let h = parse_distribution("hot:90%/10%, 8%/20%").expect("bands");
    assert!((h.hottest_share(0.1, 1000) - 0.90).abs() < 1e-9);
    assert!((h.hottest_share(0.2, 1000) - 0.94).abs() < 1e-9);
    assert_eq!(h.bands().len(), 3);
}

fn direct_s1(m: u64) -> f64 {
    (1..=m).map(|i| 1.0 / i as f64).sum()
}
