//! Tests of the recorder: figures, merges and intervals as if every I/O were recorded in full.

use super::*;
use crate::codec::decode_histogram;
use crate::ticks::TICKS_PER_SECOND;

#[test]
fn figures_follow_the_recorded_latencies() {
    let mut a = ClassRecorder::new(2);
    let mut b = ClassRecorder::new(2);
    for i in 1..=1000u64 {
        a.record(false, i * 1000, 8192, 0);
    }
    b.record(true, 5_000_000_123, 8192, TICKS_PER_SECOND);
    a.merge(&b);
    let r = a.finish("small", 8192, 4, true, true, 2.0);
    let read = r.read.as_ref().expect("reads");
    assert_eq!(read.ios, 1000);
    assert_eq!(read.bytes, 1000 * 8192);
    assert_eq!(read.iops, 500.0);
    assert!((read.mbps - 1000.0 * 8192.0 / 2.0 / MIB).abs() < 1e-9);
    assert_eq!(read.latency.min_ns, 1000);
    assert_eq!(read.latency.mean_ns, 500_500.0);
    // 3 significant digits.
    assert!(read.latency.p50_ns.abs_diff(500_000) <= 500);
    assert!(read.latency.p99_ns.abs_diff(990_000) <= 990);
    assert_eq!(read.latency.max_ns, 1_000_000);
    let write = r.write.as_ref().expect("writes");
    assert_eq!(write.latency.max_ns, 5_000_000_123, "the exact max is kept");
    assert_eq!(r.total.ios, 1001);
    assert_eq!(r.total.latency.max_ns, 5_000_000_123);
    assert_eq!(r.intervals.len(), 2);
    assert_eq!(r.intervals[0].ios, 1000);
    assert_eq!(r.intervals[1].ios, 1);
    assert_eq!(r.intervals[1].t_s, 2.0);
}

#[test]
fn histogram_round_trips_through_base64() {
    let mut a = ClassRecorder::new(1);
    for i in 0..10_000u64 {
        a.record(false, 20_000 + i * 7, 4096, 0);
    }
    let r = a.finish("small", 4096, 1, true, false, 1.0);
    assert!(r.write.is_none());
    let h = decode_histogram(&r.total.histogram).expect("decodes");
    assert_eq!(h.len(), 10_000);
    assert_eq!(h.value_at_quantile(0.99), r.total.latency.p99_ns);
}

#[test]
fn partial_last_interval_is_rated_over_its_own_length() {
    let mut a = ClassRecorder::new(3);
    for _ in 0..100 {
        a.record(false, 1000, 4096, 2 * TICKS_PER_SECOND);
    }
    let r = a.finish("small", 4096, 1, true, false, 2.5);
    assert_eq!(r.intervals.len(), 3);
    assert_eq!(r.intervals[2].t_s, 2.5);
    assert_eq!(r.intervals[2].iops, 200.0);
}

proptest::proptest! {
    /// Whatever the latencies, every percentile lies within the exact [min, max], in order.
    #[test]
    fn percentiles_stay_within_min_and_max(
        lat in proptest::collection::vec(1u64..5_000_000_000, 1..400),
        split in 0usize..400,
    ) {
        let mut r = ClassRecorder::new(2);
        for (i, &ns) in lat.iter().enumerate() {
            r.record(i % 3 == 0, ns, 4096, usize::from(i >= split));
        }
        let c = r.finish("c", 4096, 1, true, true, 2.0);
        for d in [Some(&c.total), c.read.as_ref(), c.write.as_ref()].into_iter().flatten() {
            if d.ios == 0 {
                continue;
            }
            let l = &d.latency;
            let ps = [l.p50_ns, l.p90_ns, l.p99_ns, l.p99_9_ns, l.p99_99_ns];
            for p in ps {
                proptest::prop_assert!(l.min_ns <= p && p <= l.max_ns, "{l:?}");
            }
            proptest::prop_assert!(ps.windows(2).all(|w| w[0] <= w[1]), "{l:?}");
        }
        let max = *lat.iter().max().unwrap_or(&0);
        for iv in &c.intervals {
            proptest::prop_assert!(iv.p99_ns <= max);
        }
    }
}

proptest::proptest! {
    /// One record per I/O (the open second's, folded when the second changes) gives exactly
    /// the histograms of recording every I/O at both precisions.
    #[test]
    fn derived_histograms_equal_recording_everything(
        lat in proptest::collection::vec((1u64..50_000_000_000, 0usize..4, proptest::bool::ANY), 1..300),
    ) {
        let mut r = ClassRecorder::new(3);
        let mut point: [Histogram<u64>; 2] = [histogram(SIGFIG), histogram(SIGFIG)];
        let mut seconds: Vec<[Histogram<u32>; 2]> =
            (0..3).map(|_| [histogram(INTERVAL_SIGFIG), histogram(INTERVAL_SIGFIG)]).collect();
        let mut sorted = lat.clone();
        sorted.sort_by_key(|&(_, s, _)| s);
        for &(ns, s, w) in &sorted {
            r.record(w, ns, 4096, s * TICKS_PER_SECOND);
            point[usize::from(w)].record(ns).expect("in range");
            seconds[s.min(2)][usize::from(w)].record(ns).expect("in range");
        }
        let c = r.finish("c", 4096, 1, true, true, 3.0);
        let (read, write) = (c.read.as_ref().expect("reads"), c.write.as_ref().expect("writes"));
        proptest::prop_assert_eq!(&read.histogram, &encode(&point[0]));
        proptest::prop_assert_eq!(&write.histogram, &encode(&point[1]));
        for (iv, want) in c.intervals.iter().zip(&seconds) {
            proptest::prop_assert_eq!(iv.read_histogram.as_ref(), Some(&encode(&want[0])));
            proptest::prop_assert_eq!(iv.write_histogram.as_ref(), Some(&encode(&want[1])));
            proptest::prop_assert_eq!(iv.ios, want[0].len() + want[1].len());
        }
        proptest::prop_assert_eq!(r.ios(), lat.len() as u64);
    }
}

#[test]
fn the_top_percentile_never_passes_the_exact_max() {
    // 67,706 ns sits in a bucket whose upper bound is 67,711: unclamped, p99.99 > max.
    let mut r = ClassRecorder::new(1);
    for _ in 0..10 {
        r.record(false, 67_706, 4096, 0);
    }
    let c = r.finish("c", 4096, 1, true, false, 1.0);
    assert_eq!(c.total.latency.p99_99_ns, 67_706);
    assert_eq!(c.total.latency.max_ns, 67_706);
    assert_eq!(c.intervals[0].p99_ns, 67_706);
}

#[test]
fn an_open_loop_class_keeps_response_and_service_apart() {
    let mut a = ClassRecorder::paced(1);
    let mut b = ClassRecorder::paced(1);
    // 99 I/Os served in 100 µs; one waited 1 s behind a stall before its 100 µs service.
    for _ in 0..99 {
        a.record_paced(false, 100_000, 100_000, 4096, 0);
    }
    b.record_paced(false, 1_000_100_000, 100_000, 4096, 0);
    a.add_schedule(60, 0, 0);
    b.add_schedule(60, 10, 0);
    a.merge(&b);
    let r = a.finish("small", 4096, 8, true, false, 1.0);
    let read = r.read.as_ref().expect("reads");
    assert_eq!(read.latency.max_ns, 1_000_100_000);
    let service = read.service.as_ref().expect("service kept");
    assert_eq!(service.latency.max_ns, 100_000);
    assert!(r.total.service.is_some());
    let pace = a
        .pace(120.0, rigel_expr::Arrival::Uniform, 1.0)
        .expect("paced");
    assert_eq!((pace.scheduled, pace.backlog), (120, 10));
    assert_eq!(pace.achieved_iops, 100.0);
    assert!(!pace.achieved);
    assert!(
        ClassRecorder::new(1)
            .pace(1.0, rigel_expr::Arrival::Uniform, 1.0)
            .is_none()
    );
    assert!(
        ClassRecorder::new(1)
            .finish("c", 4096, 1, true, false, 1.0)
            .total
            .service
            .is_none()
    );
}

#[test]
fn an_idle_class_reports_zeros() {
    let r = ClassRecorder::new(1).finish("large", 1 << 20, 0, true, false, 1.0);
    assert_eq!(r.total.ios, 0);
    assert_eq!(r.total.latency, LatencyStats::default());
}

#[test]
fn ticks_count_each_direction_per_100_ms_and_add_up_to_the_point() {
    let (mut a, mut b) = (ClassRecorder::new(2), ClassRecorder::new(2));
    // Ticks 0..20 of a 1.5 s window, in order as the executor's clock runs; reads in even ticks,
    // writes in every third, on two workers.
    for tick in 0..20usize {
        for k in 0..(tick as u64 + 1) {
            let r = if tick % 2 == 0 { &mut a } else { &mut b };
            r.record(false, 1000 + k, 4096, tick);
            if tick % 3 == 0 {
                r.record(true, 500, 4096, tick);
            }
        }
    }
    a.merge(&b);
    let c = a.finish("c", 4096, 1, true, true, 1.5);
    let t = c.ticks.expect("ticks");
    assert_eq!(t.ms, 100);
    // 15 ticks in the window; what came later (none here past tick 19) would count in the last.
    assert_eq!(t.read_ios.len(), 15);
    let want: Vec<u64> = (0..15u64).map(|t| t + 1).collect();
    assert_eq!(t.read_ios, want);
    assert_eq!(t.read_latency_ns[3], 1000 + 1001 + 1002 + 1003);
    assert_eq!(t.write_ios[3], 4);
    assert_eq!(t.write_ios[4], 0);
    // Everything recorded in the window's ticks: the ticks hold the intervals' counts.
    let ticked: u64 = t.read_ios.iter().chain(&t.write_ios).sum();
    let late: u64 = (15..20u64)
        .map(|t| t + 1 + if t % 3 == 0 { t + 1 } else { 0 })
        .sum();
    assert_eq!(ticked + late, c.total.ios);
    let seconds: u64 = c.intervals.iter().map(|i| i.ios).sum();
    assert_eq!(seconds, c.total.ios);
}

#[test]
fn long_windows_keep_at_most_600_coarser_ticks() {
    let mut r = ClassRecorder::new(120);
    for tick in 0..1200usize {
        r.record(false, 1000, 4096, tick);
    }
    let c = r.finish("c", 4096, 1, true, false, 120.0);
    let t = c.ticks.expect("ticks");
    assert_eq!((t.ms, t.read_ios.len()), (200, 600));
    assert!(t.read_ios.iter().all(|&n| n == 2));
    assert!(
        t.write_ios.is_empty(),
        "a class that never writes has no write ticks"
    );
}

/// The plan's limits table sizes a point's histograms from these figures: they must be what the
/// recorder allocates.
#[test]
fn the_limits_table_knows_the_histograms_sizes() {
    use rigel_plan::limits;
    let bytes = |sigfig: u8| (histogram::<u64>(sigfig).distinct_values() * 8) as u64;
    assert_eq!(limits::HISTOGRAM_CLASS_BYTES, 4 * bytes(SIGFIG));
    assert_eq!(limits::HISTOGRAM_PACED_BYTES, 4 * bytes(SIGFIG));
    let tick = std::mem::size_of::<crate::ticks::Count>() as u64;
    assert_eq!(
        limits::HISTOGRAM_SECOND_BYTES,
        2 * bytes(INTERVAL_SIGFIG) + 2 * TICKS_PER_SECOND as u64 * tick
    );
}

#[test]
fn a_backlog_carried_into_the_window_is_not_an_achieved_rate() {
    // 100 send times in the window, all completed, plus 20 due before the window (a warmup the
    // device fell behind in) completed in it as fast as the device went: the window saw 120
    // completions, the schedule asked 100 a second. The achieved rate is the schedule's.
    let mut a = ClassRecorder::paced(1);
    for _ in 0..120 {
        a.record_paced(false, 100_000, 100_000, 4096, 0);
    }
    (0..20).for_each(|_| a.record_carried());
    a.add_schedule(100, 0, 0);
    let pace = a
        .pace(100.0, rigel_expr::Arrival::Uniform, 1.0)
        .expect("paced");
    assert_eq!(pace.achieved_iops, 100.0);
    assert_eq!(pace.carried, 20);
    assert!(pace.achieved);
    assert_eq!(a.ios(), 120, "the class's own count keeps every completion");
}

#[test]
fn a_rate_is_achieved_with_io_in_flight_at_the_end_and_missed_with_late_sends_or_a_backlog() {
    let pace = |backlog: u64, late: u64| {
        let mut r = ClassRecorder::paced(1);
        // 180 of the window's 200 send times completed: 20 in flight at its end.
        for _ in 0..180 {
            r.record_paced(false, 100_000_000, 100_000_000, 4096, 0);
        }
        r.add_schedule(200, backlog, late);
        r.pace(200.0, rigel_expr::Arrival::Uniform, 1.0)
            .expect("paced")
    };
    let kept = pace(0, 2);
    assert!(
        kept.achieved,
        "in flight at the end, 1% sent late: {kept:?}"
    );
    assert_eq!(kept.achieved_iops, 180.0);
    assert!(!pace(0, 3).achieved, "more than 1% sent late");
    assert!(!pace(1, 0).achieved, "a send time never issued");
}
