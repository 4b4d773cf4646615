//! Summing hosts gives the figures of one recorder that saw every host's I/Os.

use super::*;
use crate::{ClassRecorder, decode_histogram};
use rigel_expr::Arrival;

/// The class's result as the merge reads it from a line.
fn sum_of(results: &[&ClassResult]) -> ClassResult {
    let mut hdr = HdrAdder::default();
    let texts: Vec<String> = results
        .iter()
        .map(|r| serde_json::to_string(r).expect("json"))
        .collect();
    let lights: Vec<LightClass> = texts
        .iter()
        .map(|t| serde_json::from_str(t).expect("reads back"))
        .collect();
    let mut sum = ClassSum::new(&lights[0], &mut hdr);
    for l in &lights[1..] {
        sum.add(l, &mut hdr);
    }
    sum.finish()
}

#[test]
fn hosts_add_exactly() {
    let mut a = ClassRecorder::new(1);
    let mut b = ClassRecorder::new(1);
    let mut both = ClassRecorder::new(1);
    for i in 1..=2000u64 {
        a.record(false, 10_000 + i, 4096, 0);
        both.record(false, 10_000 + i, 4096, 0);
    }
    for i in 1..=500u64 {
        b.record(i % 5 == 0, 900_000 + i * 100, 4096, 0);
        both.record(i % 5 == 0, 900_000 + i * 100, 4096, 0);
    }
    let (ra, rb) = (
        a.finish("small", 4096, 4, true, true, 1.0),
        b.finish("small", 4096, 4, true, true, 1.0),
    );
    let merged = sum_of(&[&ra, &rb]);
    let truth = both.finish("small", 4096, 4, true, true, 1.0);
    assert_eq!(merged.total.ios, 2500);
    assert_eq!(merged.total.iops, ra.total.iops + rb.total.iops);
    assert_eq!(merged.total.latency.p99_ns, truth.total.latency.p99_ns);
    assert_eq!(merged.total.latency.p50_ns, truth.total.latency.p50_ns);
    assert_eq!(merged.total.latency.max_ns, truth.total.latency.max_ns);
    assert!((merged.total.latency.mean_ns - truth.total.latency.mean_ns).abs() < 1e-6);
    let h = decode_histogram(&merged.total.histogram).expect("decodes");
    assert_eq!(h.len(), 2500);
    let w = merged.write.clone().expect("writes");
    assert_eq!(w.ios, 100);
    assert_eq!(w.latency.p99_ns, truth.write.expect("w").latency.p99_ns);
    assert_eq!(merged.intervals[0].ios, 2500);
    assert!(merged.pace.is_none() && merged.total.service.is_none());

    // Summed in two groups (as the merge's threads do) and joined: the same figures.
    let mut hdr = HdrAdder::default();
    let (ta, tb) = (
        serde_json::to_string(&ra).expect("json"),
        serde_json::to_string(&rb).expect("json"),
    );
    let (la, lb): (LightClass, LightClass) = (
        serde_json::from_str(&ta).expect("a"),
        serde_json::from_str(&tb).expect("b"),
    );
    let mut left = ClassSum::new(&la, &mut hdr);
    left.join(ClassSum::new(&lb, &mut hdr));
    let joined = left.finish();
    assert_eq!(joined.total, merged.total);
    assert_eq!(joined.write, merged.write);
    assert_eq!(joined.intervals, merged.intervals);
}

/// One open-loop host: `ios` reads (response = service + `queued` ns), of `scheduled` send times,
/// `backlog` of them unissued.
fn paced(
    ios: u64,
    queued: u64,
    scheduled: u64,
    backlog: u64,
    both: &mut ClassRecorder,
) -> ClassResult {
    let mut r = ClassRecorder::paced(1);
    for i in 0..ios {
        let service = 100_000 + i * 37;
        r.record_paced(i % 4 == 0, service + queued, service, 8192, 0);
        both.record_paced(i % 4 == 0, service + queued, service, 8192, 0);
    }
    r.add_schedule(scheduled, backlog, 0);
    both.add_schedule(scheduled, backlog, 0);
    let mut c = r.finish("rate", 8192, 8, true, true, 1.0);
    c.pace = r.pace(scheduled as f64, Arrival::Poisson, 1.0);
    c
}

#[test]
fn open_loop_service_latencies_and_schedules_add_exactly() {
    let mut both = ClassRecorder::paced(1);
    let a = paced(1000, 0, 1000, 0, &mut both);
    let b = paced(600, 2_000_000, 800, 150, &mut both);
    let merged = sum_of(&[&a, &b]);
    let mut truth = both.finish("rate", 8192, 8, true, true, 1.0);
    truth.pace = both.pace(1800.0, Arrival::Poisson, 1.0);
    let (m, t) = (merged.total.service.clone(), truth.total.service.clone());
    let (m, t) = (m.expect("merged service"), t.expect("service"));
    assert_eq!(
        decode_histogram(&m.histogram).map(|h| h.len()),
        Some(1600),
        "the service histograms add"
    );
    assert_eq!(m.latency.p99_ns, t.latency.p99_ns);
    assert_eq!(m.latency.max_ns, t.latency.max_ns);
    assert!((m.latency.mean_ns - t.latency.mean_ns).abs() < 1e-6);
    for (m, t) in [(&merged.read, &truth.read), (&merged.write, &truth.write)] {
        let (m, t) = (m.as_ref().expect("m"), t.as_ref().expect("t"));
        let (ms, ts) = (
            m.service.as_ref().expect("m"),
            t.service.as_ref().expect("t"),
        );
        assert_eq!(ms.latency.p50_ns, ts.latency.p50_ns);
        assert_eq!(m.latency.p99_ns, t.latency.p99_ns, "response latencies too");
    }
    let pace = merged.pace.expect("merged pace");
    assert_eq!(pace.requested_iops, 1800.0);
    assert_eq!(pace.scheduled, 1800);
    assert_eq!(pace.achieved_iops, 1600.0);
    assert_eq!(pace.backlog, 150);
    assert_eq!(pace.arrival, Arrival::Poisson);
    assert!(
        !pace.achieved,
        "a backlog on one host: the fleet did not achieve its rate"
    );
    assert_eq!(Some(pace), truth.pace);
    // Both hosts keeping up: achieved.
    let mut again = ClassRecorder::paced(1);
    let kept = sum_of(&[
        &paced(500, 0, 500, 0, &mut again),
        &paced(700, 0, 700, 0, &mut again),
    ]);
    assert!(kept.pace.expect("pace").achieved);
}

#[test]
fn hosts_trims_add_in_their_own_figures_and_the_total() {
    let (mut a, mut b, mut both) = (
        ClassRecorder::new(1),
        ClassRecorder::new(1),
        ClassRecorder::new(1),
    );
    for (rec, n) in [(&mut a, 300u64), (&mut b, 100)] {
        for i in 1..=n {
            rec.record(false, 20_000 + i, 4096, 0);
            rec.record_trim(500_000 + i * 10, 4096);
        }
    }
    for i in 1..=300u64 {
        both.record(false, 20_000 + i, 4096, 0);
        both.record_trim(500_000 + i * 10, 4096);
    }
    for i in 1..=100u64 {
        both.record(false, 20_000 + i, 4096, 0);
        both.record_trim(500_000 + i * 10, 4096);
    }
    let (ra, rb) = (
        a.finish("t", 4096, 2, true, false, 1.0),
        b.finish("t", 4096, 2, true, false, 1.0),
    );
    assert_eq!(ra.trim.as_ref().map(|t| t.ios), Some(300));
    assert_eq!(ra.total.ios, 600);
    let merged = sum_of(&[&ra, &rb]);
    let truth = both.finish("t", 4096, 2, true, false, 1.0);
    let t = merged.trim.clone().expect("the trims summed");
    assert_eq!(t.ios, 400);
    assert_eq!(t.latency.p99_ns, truth.trim.expect("t").latency.p99_ns);
    assert_eq!(merged.total.ios, 800);
    // The total's histogram holds the trims as well as the reads.
    let h = decode_histogram(&merged.total.histogram).expect("decodes");
    assert_eq!(h.len(), 800);
    assert_eq!(merged.total.latency.max_ns, truth.total.latency.max_ns);
}

#[test]
fn first_touch_reads_add_across_hosts_exactly() {
    let mut a = ClassRecorder::new(1);
    let mut b = ClassRecorder::new(1);
    let mut both = ClassRecorder::new(1);
    for i in 1..=300u64 {
        let (first, ns) = (i % 3 == 0, 100_000 + i * 1_000);
        a.record_touch(first, ns);
        both.record_touch(first, ns);
    }
    for i in 1..=100u64 {
        b.record_touch(true, 5_000_000 + i * 10_000);
        both.record_touch(true, 5_000_000 + i * 10_000);
    }
    // b has no re-touch: its empty half adds nothing.
    let fin = |r: &ClassRecorder| r.finish("small", 4096, 4, true, false, 1.0);
    let merged = sum_of(&[&fin(&a), &fin(&b)]).touch.expect("touch summed");
    let truth = fin(&both).touch.expect("touch");
    for (m, t) in [
        (&merged.first, &truth.first),
        (&merged.retouch, &truth.retouch),
    ] {
        assert_eq!((m.reads, m.p50_ns, m.p99_ns), (t.reads, t.p50_ns, t.p99_ns));
        assert!((m.mean_ns - t.mean_ns).abs() < 1e-6);
    }
    assert_eq!((merged.first.reads, merged.retouch.reads), (200, 200));
}
