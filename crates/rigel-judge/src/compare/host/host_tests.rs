//! Each of the host rules on its own: the line it makes inconclusive, the change beyond it that
//! keeps its verdict, and the side it does not excuse.

use super::*;
use crate::compare::band::Band;
use crate::compare::point_lines::metric_change;
use rigel_expr::{Direction, LatencyStat};

/// A quiet host: rigel busy on one core at 10 µs per I/O, other work 5% of the CPU, load 0.4.
fn quiet() -> Side {
    Side {
        cpu_us: 10.0,
        cores: 1.0,
        load: Some(0.4),
        per_cpu_load: Some(0.2),
        contention: Some(0.05),
        steal: Some(0.0),
        mhz: Some(2600.0),
    }
}

/// A host with other work on `contention` of its CPU at `load` on 2 CPUs.
fn loaded(contention: f64, load: f64) -> Side {
    Side {
        contention: Some(contention),
        load: Some(load),
        per_cpu_load: Some(load / 2.0),
        ..quiet()
    }
}

/// BASE's figure against NEW's for `stat`, judged with a ±10% band, then by the host.
fn judged(base: Side, new: Side, stat: Stat, (b, n): (f64, f64)) -> MetricChange {
    let band = Ok(Band {
        percent: 10.0,
        basis: "ticks",
        typical: None,
    });
    let mut m = metric_change(("c", Direction::Total, stat), b, n, 5.0, band);
    HostChange {
        base,
        new,
        runs: None,
    }
    .attribute(&mut m, stat);
    m
}

const P99: Stat = Stat::Latency(LatencyStat::P99);

#[test]
fn dearer_io_on_a_busy_rigel_is_the_hosts_in_the_issues_words() {
    let new = Side {
        cpu_us: 16.0,
        load: Some(3.1),
        ..quiet()
    };
    // 1.6× explains 37.5% fewer IOPS (plus the band): 30% fewer is the host's.
    let m = judged(quiet(), new, Stat::Iops, (1000.0, 700.0));
    assert_eq!(m.verdict, Change::Inconclusive, "{m:?}");
    assert_eq!(
        m.host.as_deref(),
        Some(
            "NEW used 1.6× rigel's CPU per I/O (16 µs against 10 µs) on a host at load 3.1 \
             (BASE 0.4): the host, not the storage, may have changed"
        )
    );
    // 60% fewer is beyond it.
    let m = judged(quiet(), new, Stat::Iops, (1000.0, 400.0));
    assert_eq!((m.verdict, m.host), (Change::Regressed, None));
    // NEW better while its I/Os were dearer: the host does not explain an improvement there.
    let m = judged(quiet(), new, Stat::Iops, (1000.0, 1300.0));
    assert_eq!(m.verdict, Change::Improved);
}

#[test]
fn other_work_taking_the_cpu_on_the_worse_side_is_the_hosts() {
    // Other work took 60% of NEW's host's CPU (5% on BASE's): rigel had 40% where it had 95%,
    // r = 2.4, explaining 58% fewer IOPS or 137% more latency.
    let busy = loaded(0.6, 3.1);
    let m = judged(quiet(), busy, Stat::Iops, (1000.0, 600.0));
    assert_eq!(m.verdict, Change::Inconclusive, "{m:?}");
    let why = m.host.unwrap();
    assert!(
        why.starts_with("NEW had 60% of the host's CPU taken by other work (BASE 5%) on a host at load 3.1 (BASE 0.4)"),
        "{why}"
    );
    // 80% fewer is beyond what the host explains.
    let m = judged(quiet(), busy, Stat::Iops, (1000.0, 200.0));
    assert_eq!(m.verdict, Change::Regressed);
    // A p99 from 1 ms to 3 ms: ×2.4 would give 2.4 ms, one slice per waiting task more covers it.
    let m = judged(quiet(), busy, P99, (1e6, 3e6));
    assert_eq!(m.verdict, Change::Inconclusive, "{m:?}");
    // The busier host was BASE's and NEW got worse: not the host's doing.
    let m = judged(busy, quiet(), Stat::Iops, (1000.0, 600.0));
    assert_eq!((m.verdict, m.host), (Change::Regressed, None));
    // A difference of a fifth of the CPU is not named.
    let a_little = Side {
        contention: Some(0.2),
        ..quiet()
    };
    let m = judged(quiet(), a_little, Stat::Iops, (1000.0, 850.0));
    assert_eq!(m.verdict, Change::Regressed);
}

#[test]
fn other_work_excuses_no_rate_that_rigel_kept_on_a_few_percent_of_a_core() {
    // benches/noise.sh's throttled 20% drop: BASE did 2,000 IOPS on 0.6% of a core, NEW's host
    // had 99% of its CPU taken (BASE's 36%): a fair share of a CPU is far more than the rate
    // needed, so the drop is the storage's; a latency may still have waited for a slice.
    let idle = Side {
        cores: 0.006,
        contention: Some(0.36),
        ..quiet()
    };
    let busy = Side {
        contention: Some(0.99),
        load: Some(3.7),
        per_cpu_load: Some(1.85),
        ..idle
    };
    let m = judged(idle, busy, Stat::Iops, (2000.0, 1537.0));
    assert_eq!((m.verdict, m.host), (Change::Regressed, None));
    let m = judged(idle, busy, P99, (2e6, 3e6));
    assert_eq!(m.verdict, Change::Inconclusive, "{m:?}");
}

#[test]
fn a_saturated_host_excuses_a_tail_not_a_rate() {
    // Both hosts saturated (load 13 on 2 CPUs, 99% of the CPU to other work): NEW's p99 at
    // QD 1 caught scheduling waits (30 µs to 2 ms), within 6.5 slices of 3 ms.
    let saturated = loaded(0.99, 13.0);
    let m = judged(saturated, saturated, P99, (30e3, 2e6));
    assert_eq!(m.verdict, Change::Inconclusive, "{m:?}");
    assert!(
        m.host
            .as_deref()
            .unwrap()
            .starts_with("NEW ran while other work took 99% of the host's CPU (BASE 99%)"),
        "{:?}",
        m.host
    );
    // A 20% drop in IOPS on the same host is the storage's.
    let m = judged(saturated, saturated, Stat::Iops, (2000.0, 1600.0));
    assert_eq!(m.verdict, Change::Regressed);
    // 50 ms more is beyond 6.5 slices.
    let m = judged(saturated, saturated, P99, (30e3, 50e6));
    assert_eq!(m.verdict, Change::Regressed);
    // Busy but not queued (load 1.5 on 2 CPUs): no slices.
    let busy = Side {
        per_cpu_load: Some(0.75),
        ..saturated
    };
    let m = judged(busy, busy, P99, (30e3, 2e6));
    assert_eq!(m.verdict, Change::Regressed);
}

#[test]
fn a_lower_clock_explains_as_much_as_it_is_lower() {
    let slow = Side {
        mhz: Some(1300.0),
        ..quiet()
    };
    // Half the clock: up to 50% fewer IOPS (plus the band).
    let m = judged(quiet(), slow, Stat::Iops, (1000.0, 600.0));
    assert_eq!(m.verdict, Change::Inconclusive, "{m:?}");
    assert!(
        m.host
            .as_deref()
            .unwrap()
            .starts_with("NEW ran its CPUs at 1,300 MHz (BASE 2,600)"),
        "{:?}",
        m.host
    );
    let m = judged(quiet(), slow, Stat::Iops, (1000.0, 300.0));
    assert_eq!(m.verdict, Change::Regressed);
    // 5% lower is a governor's jitter, not named; an absent frequency names nothing.
    for mhz in [Some(2470.0), None] {
        let m = judged(
            quiet(),
            Side { mhz, ..quiet() },
            Stat::Iops,
            (1000.0, 800.0),
        );
        assert_eq!((m.verdict, m.host), (Change::Regressed, None));
    }
}

/// The basic fixture's point 3 (one class, five seconds of ~31,500 IOPS) on a host at load 7.6 of
/// 2 CPUs whose other work took `others` of it, NEW's seconds scaled by `scale`.
fn starved(others: f64, scale: [f64; 5]) -> MetricChange {
    let mut base: rigel_results::ResultsDoc =
        serde_json::from_str(rigel_testkit::fixtures::BASIC).expect("fixture parses");
    let host = rigel_results::HostLoad {
        load_1m: Some(7.6),
        cpus: Some(2),
        others: Some(others),
        ..Default::default()
    };
    for p in base.points_mut() {
        p.host = Some(host);
    }
    let mut new = base.clone();
    let p = &mut new.points_mut()[2];
    let c = &mut p.classes[0];
    let before = c.total.ios as f64;
    for (i, s) in c.intervals.iter_mut().zip(scale) {
        i.ios = (i.ios as f64 * s) as u64;
        i.iops = i.ios as f64;
    }
    c.total.ios = c.intervals.iter().map(|i| i.ios).sum();
    c.total.iops = c.total.ios as f64 / 5.0;
    // rigel's CPU per I/O unchanged: only the host's other work names it.
    let fewer = c.total.ios as f64 / before;
    p.cpu.user_s *= fewer;
    p.cpu.system_s *= fewer;
    let c = crate::compare::compare(&base, &new, &crate::compare::CompareOptions::default());
    c.points[2].metrics[0].clone()
}

#[test]
fn a_rate_whose_run_held_the_other_side_s_figure_for_a_second_on_a_saturated_host_is_the_host_s() {
    // NEW ran its first second as BASE did, then the host took two thirds of each second.
    let m = starved(0.99, [1.0, 0.33, 0.33, 0.33, 0.33]);
    assert_eq!(m.verdict, Change::Inconclusive, "{m:?}");
    let why = m.host.as_deref().expect("the host named");
    assert!(
        why.starts_with("NEW ran at 31,851 IOPS in its best second (BASE 31,534 IOPS"),
        "{why}"
    );
    // A real drop moves every second: no second of NEW's reaches BASE's figure.
    let m = starved(0.99, [0.8; 5]);
    assert_eq!(m.verdict, Change::Regressed, "{m:?}");
    // The same seconds on a host with CPU to spare: the storage's.
    let m = starved(0.3, [1.0, 0.33, 0.33, 0.33, 0.33]);
    assert_eq!(m.verdict, Change::Regressed, "{m:?}");
    assert!(m.host.is_none());
}

/// The basic fixture's point 3 as 1 s runs of 100 ms ticks, BASE 3,150 I/Os a tick and NEW
/// `ticks`, on a host at load 4.1 of 2 CPUs whose other work took `others` of it.
fn stalled(others: f64, ticks: [u64; 10]) -> MetricChange {
    let mut base: rigel_results::ResultsDoc =
        serde_json::from_str(rigel_testkit::fixtures::BASIC).expect("fixture parses");
    let set = |p: &mut rigel_results::PointResult, ticks: &[u64]| {
        p.host = Some(rigel_results::HostLoad {
            load_1m: Some(4.1),
            cpus: Some(2),
            others: Some(others),
            ..Default::default()
        });
        p.elapsed_s = 1.0;
        let c = &mut p.classes[0];
        c.ticks = Some(rigel_results::Ticks {
            ms: 100,
            read_ios: ticks.to_vec(),
            read_latency_ns: ticks.iter().map(|t| t * 100_000).collect(),
            ..Default::default()
        });
        c.total.ios = ticks.iter().sum();
        c.total.iops = c.total.ios as f64;
    };
    set(&mut base.points_mut()[2], &[3150; 10]);
    let mut new = base.clone();
    set(&mut new.points_mut()[2], &ticks);
    let p = &mut new.points_mut()[2];
    // rigel's CPU per I/O unchanged: only the host's other work names it.
    p.cpu.user_s *= ticks.iter().sum::<u64>() as f64 / 31_500.0;
    p.cpu.system_s = 0.0;
    base.points_mut()[2].cpu.system_s = 0.0;
    let c = crate::compare::compare(&base, &new, &crate::compare::CompareOptions::default());
    c.points[2].metrics[0].clone()
}

#[test]
fn a_one_second_rate_that_stalled_on_a_saturated_host_and_ran_at_the_other_side_s_rate_between() {
    // 0.8 s without a completion, then two ticks at BASE's rate (benches/noise.sh at load 4.1).
    let stall = [0, 0, 0, 0, 0, 0, 0, 0, 3150, 3100];
    let m = stalled(1.0, stall);
    assert_eq!(m.verdict, Change::Inconclusive, "{m:?}");
    let why = m.host.as_deref().expect("the host named");
    assert!(
        why.starts_with("NEW completed no I/O in 8 of its 10 ticks and ran at 31,250 IOPS"),
        "{why}"
    );
    // A throttle's 80% with one stalled tick: the ticks that ran ran slower.
    let m = stalled(
        1.0,
        [2520, 2520, 2520, 0, 2520, 2520, 2520, 2520, 2520, 2520],
    );
    assert_eq!(m.verdict, Change::Regressed, "{m:?}");
    // The same stall on a host with CPU to spare: the storage's.
    let m = stalled(0.3, stall);
    assert!(m.host.is_none(), "{m:?}");
}

#[test]
fn queued_tasks_and_other_work_excuse_a_tail_that_many_wakeups_reach() {
    // benches/noise.sh at load 2–4: BASE at 2.1 tasks per CPU with other work on 36% of it,
    // NEW at 14%: a QD 1 p99 from 305 to 115 µs and a write mean from 119 to 57 µs, improved.
    let calm = Side {
        contention: Some(0.14),
        ..quiet()
    };
    let queued = Side {
        contention: Some(0.36),
        load: Some(4.3),
        per_cpu_load: Some(2.1),
        ..quiet()
    };
    let m = judged(queued, calm, P99, (305e3, 115e3));
    assert_eq!(m.verdict, Change::Inconclusive, "{m:?}");
    let why = m.host.unwrap();
    assert!(
        why.starts_with(
            "BASE ran with 2.1 tasks per CPU and other work on 36% of the CPU (NEW 14%)"
        ),
        "{why}"
    );
    let mean = Stat::Latency(LatencyStat::Mean);
    assert_eq!(
        judged(queued, calm, mean, (119e3, 57e3)).verdict,
        Change::Inconclusive
    );
    // A median: fewer than half the wakeups found the CPU taken.
    let p50 = Stat::Latency(LatencyStat::P50);
    assert_eq!(
        judged(queued, calm, p50, (305e3, 115e3)).verdict,
        Change::Improved
    );
    // No task queued: no wait.
    let spare = Side {
        per_cpu_load: Some(0.6),
        ..queued
    };
    assert_eq!(
        judged(spare, calm, P99, (305e3, 115e3)).verdict,
        Change::Improved
    );
}

#[test]
fn a_latency_worse_by_wake_ups_on_a_nearly_idle_host_than_on_a_busy_one_is_the_hosts() {
    // benches/noise.sh, unchanged 5 s pairs: BASE's host with other work on 11% of its CPU, NEW's
    // on 94%: a QD 1 p99 of 273 µs against 105 µs, and a write mean of 29.5 against 14.3 µs.
    let idle = Side {
        contention: Some(0.11),
        ..quiet()
    };
    let busy = Side {
        contention: Some(0.94),
        ..quiet()
    };
    let m = judged(idle, busy, P99, (273e3, 105e3));
    assert_eq!(m.verdict, Change::Inconclusive, "{m:?}");
    let why = m.host.unwrap();
    assert!(
        why.starts_with("BASE ran on a nearly idle host (other work on 11% of the CPU, NEW 94%)"),
        "{why}"
    );
    let mean = Stat::Latency(LatencyStat::Mean);
    assert_eq!(
        judged(idle, busy, mean, (29.5e3, 14.3e3)).verdict,
        Change::Inconclusive
    );
    // NEW idle and worse: a regression the same way.
    assert_eq!(
        judged(busy, idle, P99, (105e3, 273e3)).verdict,
        Change::Inconclusive
    );
    // Both hosts idle, beyond a few wake-ups, or a rate: kept (worse on the busy side is the
    // contention rule's).
    assert_eq!(
        judged(idle, quiet(), P99, (273e3, 105e3)).verdict,
        Change::Improved
    );
    assert_eq!(
        judged(idle, busy, P99, (2.73e6, 1.05e6)).verdict,
        Change::Improved
    );
    let iops = Stat::Iops;
    assert_eq!(
        judged(busy, idle, iops, (1000.0, 700.0)).verdict,
        Change::Regressed
    );
}
