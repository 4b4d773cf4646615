//! One pair of runs judged whole: rate.rs's typical-tick rule and the host rules act on the
//! lines of the same comparison, each on its own line, and a line no rule explains keeps its
//! verdict. Each point of the basic fixture becomes a 1 s run of ten 100 ms ticks with its own
//! host record, as `rigel run` writes them (benches/noise.sh's points).

use super::*;
use rigel_results::{HostLoad, PointResult, Ticks};

/// BASE's I/Os a tick (the fixture's 31,500 IOPS) and its mean latency, ns.
const TICK: u64 = 3150;
const MEAN_NS: f64 = 95_000.0;

/// A host at `load` on 2 CPUs whose other work took `others` of it.
fn host(others: f64, load: f64) -> HostLoad {
    HostLoad {
        load_1m: Some(load),
        cpus: Some(2),
        others: Some(others),
        steal: Some(0.0),
        ..Default::default()
    }
}

/// Point `p` as a 1 s run: its first class's `ticks`, its mean and p99 latency, its host; rigel's
/// CPU per I/O the same on every run (only the host's records name the host).
fn set(p: &mut PointResult, ticks: [u64; 10], (mean_ns, p99_ns): (f64, u64), h: HostLoad) {
    p.host = Some(h);
    p.elapsed_s = 1.0;
    let c = &mut p.classes[0];
    let ios: u64 = ticks.iter().sum();
    c.ticks = Some(Ticks {
        ms: 100,
        read_ios: ticks.to_vec(),
        read_latency_ns: ticks.iter().map(|&t| (t as f64 * mean_ns) as u64).collect(),
        ..Default::default()
    });
    c.total.ios = ios;
    c.total.iops = ios as f64;
    c.total.mbps = ios as f64 * c.size as f64 / (1 << 20) as f64;
    c.total.latency.mean_ns = mean_ns;
    c.total.latency.p99_ns = p99_ns;
    c.total.latency.p99_9_ns = c.total.latency.p99_9_ns.max(p99_ns);
    c.total.latency.p99_99_ns = c.total.latency.p99_99_ns.max(p99_ns);
    c.total.latency.max_ns = c.total.latency.max_ns.max(p99_ns);
    p.cpu.user_s = ios as f64 * 10e-6;
    p.cpu.system_s = 0.0;
}

/// Every line of the comparison: "point stat verdict" and the rule that spoke, if one did.
fn verdicts(c: &RunComparison) -> Vec<String> {
    c.points
        .iter()
        .flat_map(|p| {
            p.metrics.iter().map(move |m| {
                let rule = match (&m.ticks, &m.host) {
                    (Some(_), _) => " (typical tick)",
                    (_, Some(h)) if h.contains("best second") => " (host: held a second)",
                    (_, Some(h)) if h.contains("nearly idle") => " (host: idle)",
                    (_, Some(h)) if h.contains("ran while other work") => " (host: saturated)",
                    (_, Some(h)) if h.contains("taken by other work") => " (host: contention)",
                    (_, Some(_)) => " (host: other)",
                    _ => "",
                };
                format!("{} {} {:?}{rule}", p.base_id, m.stat, m.verdict)
            })
        })
        .collect()
}

/// The basic fixture (7 points, one class each).
fn basic() -> ResultsDoc {
    serde_json::from_str(rigel_testkit::fixtures::BASIC).expect("fixture parses")
}

#[test]
fn one_pair_s_lines_each_get_the_verdict_of_the_rule_that_explains_them() {
    let (mut base, mut new) = (basic(), basic());
    let quiet = host(0.05, 0.4);
    let saturated = host(0.97, 4.1);
    let steady = [TICK; 10];
    let lat = (MEAN_NS, 200_000);
    // BASE: every point steady on its host.
    let base_hosts = [
        quiet,
        quiet,
        quiet,
        quiet,
        saturated,
        host(0.9, 1.8),
        saturated,
    ];
    for (p, h) in base.points_mut().iter_mut().zip(base_hosts) {
        set(p, steady, lat, h);
    }
    let ps = new.points_mut();
    // 1, 2: unchanged.
    set(&mut ps[0], steady, lat, quiet);
    set(&mut ps[1], steady, lat, quiet);
    // 3: two ticks lost to a stall, the others at BASE's rate: the figure −20%, the typical
    // tick unchanged (rate.rs).
    let mut stall = steady;
    stall[3] = 0;
    stall[4] = 0;
    set(&mut ps[2], stall, lat, quiet);
    // 4: a real 20% drop, every tick, on a quiet host: regressed.
    set(&mut ps[3], [TICK * 8 / 10; 10], lat, quiet);
    // 5: a p99 2 ms worse where both hosts were saturated: the waits for a CPU (saturation).
    set(&mut ps[4], steady, (MEAN_NS, 2_200_000), saturated);
    // 6: a mean 60 µs worse on a nearly idle host against a busy one: deep idle states (idle).
    set(
        &mut ps[5],
        steady,
        (MEAN_NS + 60_000.0, 200_000),
        host(0.1, 1.8),
    );
    // 7: a real 20% drop on a saturated host keeps its verdict (no tick of NEW's ran at BASE's
    // rate), and so does a p99 worse by 20 ms, beyond any slice.
    set(
        &mut ps[6],
        [TICK * 8 / 10; 10],
        (MEAN_NS, 20_200_000),
        saturated,
    );
    let c = compare(&base, &new, &CompareOptions::default());
    assert_eq!(
        verdicts(&c),
        [
            "1 iops Within",
            "1 mbps Within",
            "1 latency.mean Within",
            "1 latency.p99 Within",
            "2 iops Within",
            "2 mbps Within",
            "2 latency.mean Within",
            "2 latency.p99 Within",
            "3 iops Inconclusive (typical tick)",
            "3 mbps Inconclusive (typical tick)",
            "3 latency.mean Within",
            "3 latency.p99 Within",
            "4 iops Regressed",
            "4 mbps Regressed",
            "4 latency.mean Within",
            "4 latency.p99 Within",
            "5 iops Within",
            "5 mbps Within",
            "5 latency.mean Within",
            "5 latency.p99 Inconclusive (host: saturated)",
            "6 iops Within",
            "6 mbps Within",
            "6 latency.mean Inconclusive (host: idle)",
            "6 latency.p99 Within",
            "7 iops Regressed",
            "7 mbps Regressed",
            "7 latency.mean Within",
            "7 latency.p99 Regressed",
        ]
    );
    assert_eq!((c.regressions, c.improvements), (5, 0));
}

#[test]
fn a_drop_its_typical_tick_flagged_on_a_saturated_host_stays_flagged() {
    // benches/noise.sh at load 3.5, other work on 99% of the CPU both sides: a device held at
    // 2,000 IOPS (200 a tick), NEW throttled to 80%, its first tick stalled and the next a
    // burst; the figure inside its band, its typical tick −20%. The saturated host excuses no
    // rate: the line is weighed by its ticks' −20%, not by its figure's −11%, which the band
    // would cover.
    let (mut base, mut new) = (basic(), basic());
    let saturated = host(0.99, 3.5);
    let mut b = [200; 10];
    b[..2].copy_from_slice(&[81, 319]);
    let mut n = [160; 10];
    n[..2].copy_from_slice(&[8, 485]);
    set(&mut base.points_mut()[2], b, (MEAN_NS, 200_000), saturated);
    set(&mut new.points_mut()[2], n, (MEAN_NS, 200_000), saturated);
    let c = compare(&base, &new, &CompareOptions::default());
    let m = &c.points[2].metrics[0];
    assert_eq!(
        (m.stat.as_str(), m.verdict),
        ("iops", Change::Regressed),
        "{m:?}"
    );
    assert!(m.host.is_none() && m.ticks.is_some(), "{m:?}");
}
