//! Skew on a real device: zipf:1.2 over a million 4 KiB blocks of a loop device, checked at the
//! device (the kernel's trace of issued requests) against the distribution's theory: the share of
//! I/Os on the hottest 1% and 10% of blocks, and the distinct blocks touched (the bijection).

use super::scenario::traced_run;
use rigel_testkit::LoopDevice;

const BLOCKS: u64 = 1 << 20;
const BLOCK: u64 = 4096;

#[test]
#[serial_test::parallel]
fn zipf_at_the_device_matches_theory_and_touches_distinct_blocks() {
    let dev = LoopDevice::new(BLOCKS * BLOCK);
    let spec = format!(
        "[[target]]\npath = \"{}\"\n\n[run]\nduration = \"2s\"\nseed = 7\n\n\
         [class.hot]\nsize = \"4KiB\"\ndistribution = \"zipf:1.2\"\n\n\
         [matrix]\nshape = \"point\"\nhot = \"8\"\n",
        dev.dev()
    );
    let (requests, doc) = traced_run(&dev, &spec);
    // rigel's O_DIRECT reads; the probes' buffered readahead (`RA`) is not the class's.
    let blocks: Vec<u64> = requests
        .iter()
        .filter(|r| r.rwbs.starts_with('R') && !r.rwbs.contains('A'))
        .map(|r| {
            assert_eq!(r.sectors, 8, "a 4 KiB read: {r:?}");
            r.sector * 512 / BLOCK
        })
        .collect();
    let n = blocks.len() as u64;
    assert!(n > 20_000, "only {n} reads traced");
    // The device's blocks back to ranks through the class's permutation (rigel's key for the
    // class: the run's seed and its name).
    let map = rigel_exec::BlockMap::new(BLOCKS, rigel_exec::class_key(7, "hot"));
    let ranks: Vec<u64> = blocks.iter().map(|&b| map.inverse(b)).collect();
    let d = rigel_expr::Distribution::Zipf(1.2);
    let skew = &doc["points"][0]["classes"][0]["skew"];
    assert_eq!(skew["blocks"], BLOCKS, "{skew}");
    for (i, share) in [0.01, 0.10].into_iter().enumerate() {
        let k = (share * BLOCKS as f64) as u64;
        let at_device = ranks.iter().filter(|&&r| r < k).count() as f64 / n as f64;
        let theory = d.hottest_share(share, BLOCKS);
        assert!(
            (at_device - theory).abs() < 0.02,
            "hottest {share}: {at_device:.4} at the device, theory {theory:.4}"
        );
        // What rigel recorded (the window's completions) agrees with the device.
        let recorded = skew["hottest"][i]["achieved"].as_f64().expect("achieved");
        assert!(
            (recorded - at_device).abs() < 0.01,
            "{recorded} vs {at_device}"
        );
        let stated = skew["hottest"][i]["theory"].as_f64().expect("theory");
        assert!((stated - theory).abs() < 1e-9);
    }
    // Distinct blocks against theory: Σ 1 − (1 − p_k)^n (fio's non-bijective hash fell far short).
    let h = rigel_expr::harmonic(BLOCKS, 1.2);
    let expected: f64 = (1..=BLOCKS)
        .map(|k| 1.0 - (-(n as f64) * (k as f64).powf(-1.2) / h).exp())
        .sum();
    let mut distinct = blocks.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let ratio = distinct.len() as f64 / expected;
    assert!(
        (ratio - 1.0).abs() < 0.05,
        "{} distinct blocks, theory {expected:.0}",
        distinct.len()
    );
}
