//! The merge over rank folders written through the record layer: sums, a rank missing a point, and
//! windows that overlap too little.

use super::{merge, rank_dir, write_ranks};
use rigel_plan::RunPlan;
use rigel_record::{RunFolder, RunHeader};
use rigel_results::{ClassRecorder, CpuTime, PointResult, PointStatus, WallWindow};
use std::path::Path;

fn plan() -> RunPlan {
    let text = "[spec]\nname = \"t\"\n\n[[target]]\npath = \"/data/f-${rank}\"\nsize = \"1GiB\"\n\n\
                [class.small]\nsize = \"4KiB\"\nmix = \"read\"\n\n[matrix]\nshape = \"row\"\nsmall = \"1, 2\"\n";
    let loaded = rigel_spec::load(rigel_spec::SpecInput::Text { name: "t", text }, &[], 2)
        .expect("spec loads");
    rigel_plan::compile(&loaded.spec, 2).expect("plan compiles")
}

/// Rank `rank`'s folder with the points of `plan` whose ids are in `ids`, each window starting
/// `lag_ms` after the common start, latencies scaled by `slow`.
fn rank(fleet: &Path, rank: u32, plan: &RunPlan, ids: &[u32], lag_ms: u64, slow: u64) {
    let header = RunHeader {
        schema_version: rigel_plan::SCHEMA_VERSION,
        rigel_version: "test".into(),
        command: vec![],
        started: String::new(),
        host: rigel_results::HostInfo {
            hostname: format!("node{rank}"),
            ..Default::default()
        },
        targets: vec![],
        provenance: None,
        write_data: Vec::new(),
    };
    let mut folder =
        RunFolder::create(&rank_dir(fleet, rank), "", plan, &header).expect("rank folder");
    for p in plan.points.iter().filter(|p| ids.contains(&p.id)) {
        let c = &p.classes[0];
        let mut rec = ClassRecorder::new(1);
        for i in 0..1000 {
            rec.record(false, (10_000 + i * 10) * slow, c.size, 0);
        }
        let start_ns = 1_000_000_000_000 + u64::from(p.id) * 10_000_000_000 + lag_ms * 1_000_000;
        folder
            .append(&PointResult {
                point: p.clone(),
                status: PointStatus::Ok,
                started: String::new(),
                elapsed_s: 1.0,
                classes: vec![rec.finish(&c.class, c.size, c.outstanding, true, false, 1.0)],
                cpu: CpuTime::default(),
                window: Some(WallWindow {
                    start_ns,
                    end_ns: start_ns + 1_000_000_000,
                }),
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
            })
            .expect("point appended");
    }
}

#[test]
fn merge_sums_and_marks_partial_points() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let plan = plan();
    write_ranks(tmp.path(), 3).expect("ranks");
    rank(tmp.path(), 0, &plan, &[1, 2], 0, 1);
    rank(tmp.path(), 1, &plan, &[1, 2], 0, 3);
    // Rank 2 lacks point 2 and starts point 1 190 ms late: overlap 810/1190 = 68%.
    rank(tmp.path(), 2, &plan, &[1], 190, 1);
    let doc = merge(tmp.path()).expect("merges");
    assert_eq!(doc.points().len(), 2);
    let p1 = &doc.points()[0];
    assert_eq!(p1.classes[0].total.ios, 3000);
    assert_eq!(p1.classes[0].total.iops, 3000.0);
    let hist = rigel_results::decode_histogram(&p1.classes[0].total.histogram).expect("hist");
    assert_eq!(hist.len(), 3000);
    // Two thirds of the I/Os at 10-20 µs, one third at 30-60 µs: the p50 is a fast one.
    assert!(p1.classes[0].total.latency.p50_ns < 20_100);
    assert_eq!(p1.partial.as_deref(), Some("windows overlap 68%"));
    assert_eq!(doc.points()[1].partial.as_deref(), Some("2 of 3 hosts"));
    assert!(!p1.counts() && !doc.points()[1].counts());
    let fleet = doc.fleet().expect("fleet");
    assert_eq!(fleet.hosts[2].points, 1);
    assert_eq!(
        doc.points()[1]
            .fleet
            .as_ref()
            .map(|f| f.per_rank.load().expect("rows")[2].ok),
        Some(false)
    );
    assert!(tmp.path().join("results.json").is_file());
}

#[test]
fn a_rank_with_another_plan_is_left_out() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let plan = plan();
    let mut other = plan.clone();
    other.run.duration_ms += 1;
    rank(tmp.path(), 0, &plan, &[1, 2], 0, 1);
    rank(tmp.path(), 1, &other, &[1, 2], 0, 1);
    let doc = merge(tmp.path()).expect("merges");
    let left_out = doc.fleet().and_then(|f| f.hosts[1].excluded.clone());
    assert!(
        left_out.is_some_and(|why| why.contains("run.duration_ms")),
        "{:?}",
        doc.fleet()
    );
    assert_eq!(doc.points()[0].partial.as_deref(), Some("1 of 2 hosts"));
}

#[test]
fn a_resume_redoes_the_points_whose_windows_came_apart() {
    let tmp = tempfile::tempdir().expect("a temp dir");
    let plan = plan();
    rank(tmp.path(), 0, &plan, &[1, 2], 0, 1);
    rank(tmp.path(), 1, &plan, &[1, 2], 0, 1);
    // Rank 2 ran point 1 late and lacks point 2: the ready files name the lacking point, this the
    // late one.
    rank(tmp.path(), 2, &plan, &[1], 190, 1);
    assert_eq!(
        super::overlap::apart(tmp.path(), 3, &plan).expect("rank folders read"),
        vec![1]
    );
}

#[test]
fn a_rank_folder_reads_as_the_run_folder_reader_reads_it() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let plan = plan();
    write_ranks(tmp.path(), 2).expect("ranks");
    rank(tmp.path(), 0, &plan, &[1, 2], 0, 1);
    rank(tmp.path(), 1, &plan, &[1, 2], 0, 1);
    let points = rank_dir(tmp.path(), 1).join(rigel_record::POINTS_FILE);
    let whole = std::fs::read_to_string(&points).expect("results.jsonl");
    let (first, second) = whole.split_at(whole.find('\n').expect("two lines") + 1);
    // A torn tail (a crash mid-append): skipped by both, point 2 then lacks rank 1.
    std::fs::write(&points, format!("{first}{}", &second[..40])).expect("write");
    assert_eq!(
        rigel_record::load(&rank_dir(tmp.path(), 1))
            .expect("loads")
            .doc
            .points()
            .len(),
        1
    );
    let doc = merge(tmp.path()).expect("merges");
    assert_eq!(doc.points()[1].partial.as_deref(), Some("1 of 2 hosts"));
    // A whole line that is not a point, before the last: damage, refused by both, naming line 1.
    std::fs::write(&points, format!("not a point\n{second}")).expect("write");
    let loaded = rigel_record::load(&rank_dir(tmp.path(), 1)).expect_err("refused");
    assert!(loaded.to_string().contains("line 1: "), "{loaded}");
    let merged = merge(tmp.path()).expect_err("refused");
    assert!(merged.is_bad_input(), "{merged}");
    assert!(merged.to_string().contains("line 1: "), "{merged}");
}
