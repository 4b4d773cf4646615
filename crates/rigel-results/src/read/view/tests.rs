//! The reading rules on small hand-made points: effective parameters, the counted-point rule, ties,
//! directions of a mix.

use super::*;
use crate::{ClassRecorder, CpuTime, IoFailure};
use rigel_expr::{Mix, Stat};
use rigel_plan::DataPoint;

fn load(class: &str, size: u64, read_percent: u8, load: u32) -> ClassLoad {
    ClassLoad {
        class: class.into(),
        size,
        access: Access::Random,
        mix: Mix::reads_of(read_percent),
        load,
        per_stream: 1,
        outstanding: load,
        rate: None,
        arrival: Default::default(),
        pattern: Default::default(),
        engine: Default::default(),
    }
}

/// A point where `class` ran with `ios` I/Os of `lat_ns` each, split by its mix.
fn point(id: u32, params: ClassLoad, ios: u64, lat_ns: u64, ok: bool) -> PointResult {
    let mut r = ClassRecorder::new(1);
    for i in 0..ios {
        let write = (i % 100) as u8 >= params.mix.read_percent;
        r.record(write, lat_ns, params.size, 0);
    }
    let pct = params.mix.read_percent;
    let result = r.finish(
        &params.class,
        params.size,
        params.outstanding,
        pct > 0,
        pct < 100,
        1.0,
    );
    PointResult {
        point: DataPoint {
            id,
            sweep: vec![SweepBinding {
                key: "small.size".into(),
                value: format!("{}KiB", params.size / 1024),
            }],
            classes: vec![params],
        },
        status: if ok {
            PointStatus::Ok
        } else {
            PointStatus::Failed {
                error: IoFailure {
                    target: "/dev/x".into(),
                    offset: 0,
                    errno: 5,
                    message: "I/O error".into(),
                },
            }
        },
        started: String::new(),
        elapsed_s: 1.0,
        window: None,
        partial: None,
        paused: None,
        fleet: None,
        steady: None,
        drain: None,
        devices: Vec::new(),
        integrity: None,
        engines: Vec::new(),
        placement: None,
        host: None,
        classes: vec![result],
        cpu: CpuTime::default(),
    }
}

#[test]
fn a_failed_point_or_one_without_io_never_counts() {
    let pts = [
        point(1, load("small", 4096, 100, 1), 100, 50_000, true),
        point(2, load("small", 4096, 100, 4), 900, 40_000, false),
        point(3, load("small", 4096, 100, 8), 0, 0, true),
        point(4, load("small", 4096, 100, 2), 200, 60_000, true),
    ];
    let reads: Vec<PointRead> = pts.iter().map(PointRead::new).collect();
    let b = best(&reads, "small", Direction::Total, Stat::Iops).expect("a best point");
    assert_eq!((b.point.id(), b.value), (4, 200.0));
    let lat = Stat::Latency(LatencyStat::Mean);
    let b = best(&reads, "small", Direction::Total, lat).expect("a best point");
    assert_eq!(
        b.point.id(),
        1,
        "the failed point's lower latency does not count"
    );
    assert!(
        reads[2]
            .class("small")
            .unwrap()
            .counted(Direction::Total)
            .is_none()
    );
}

#[test]
fn the_first_point_wins_a_tie() {
    let pts = [
        point(1, load("small", 4096, 100, 1), 100, 50_000, true),
        point(2, load("small", 4096, 100, 2), 100, 50_000, true),
    ];
    let reads: Vec<PointRead> = pts.iter().map(PointRead::new).collect();
    let b = best(&reads, "small", Direction::Total, Stat::Iops).unwrap();
    assert_eq!(b.point.id(), 1);
}

#[test]
fn a_class_is_read_with_its_effective_parameters_and_every_direction() {
    let p = point(1, load("small", 65536, 70, 4), 1000, 80_000, true);
    let r = PointRead::new(&p);
    let c = r.class("small").unwrap();
    assert_eq!(c.params.size, 65536, "the swept size, not the declared one");
    assert!(c.mixed());
    assert_eq!(
        c.directions(),
        [Direction::Total, Direction::Read, Direction::Write]
    );
    let (read, write) = (
        c.counted(Direction::Read).unwrap(),
        c.counted(Direction::Write).unwrap(),
    );
    assert_eq!((read.ios, write.ios), (700, 300));
    // A read-only class reads its total as its reads, and has no writes.
    let p = point(2, load("small", 4096, 100, 1), 10, 1000, true);
    let r = PointRead::new(&p);
    let c = r.class("small").unwrap();
    assert_eq!(c.counted(Direction::Read).unwrap().ios, 10);
    assert!(c.counted(Direction::Write).is_none());
}

#[test]
fn percentiles_read_from_an_older_document_stay_within_max() {
    let mut p = point(1, load("small", 4096, 100, 1), 10, 67_706, true);
    p.classes[0].total.latency.p99_99_ns = 67_711;
    let r = PointRead::new(&p);
    let f = r.class("small").unwrap().counted(Direction::Total).unwrap();
    assert_eq!(f.latency.p99_99_ns, 67_706);
}

#[test]
fn a_rate_not_achieved_or_a_failed_search_trial_is_never_the_best() {
    // Point 2 went faster than asked while it fell behind (a backlog), point 3 failed its search
    // target: neither is the maximum, although each has more IOPS than point 1.
    let mut pts = [
        point(1, load("small", 4096, 100, 1), 100, 50_000, true),
        point(2, load("small", 4096, 100, 4), 900, 40_000, true),
        point(3, load("small", 4096, 100, 8), 500, 45_000, true),
    ];
    let mut r = ClassRecorder::paced(1);
    r.add_schedule(800, 50, 0);
    pts[1].classes[0].pace = r.pace(800.0, Default::default(), 1.0);
    assert!(!pts[1].classes[0].pace.as_ref().expect("paced").achieved);
    let reads: Vec<PointRead> = pts.iter().map(PointRead::new).collect();
    let b = best(&reads, "small", Direction::Total, Stat::Iops).expect("a best point");
    assert_eq!(
        b.point.id(),
        3,
        "the rate that was not achieved is left out"
    );
    let mut reads = reads;
    reads[2].failed_target = true;
    let b = best(&reads, "small", Direction::Total, Stat::Iops).expect("a best point");
    assert_eq!(b.point.id(), 1, "the failed trial is left out");
}
