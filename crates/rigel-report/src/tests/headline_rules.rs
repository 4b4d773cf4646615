//! The summary's headline rules (issue 42): a search's headline is its answer and no figure
//! comes from a trial that failed its target; a log writer's latency is taken under the most load
//! the spec puts beside it, not at the quietest point. Over the fixture's queueing model, where
//! IOPS and latency grow with the load, so the best case and the rule's pick differ.

use super::super::{Format, ReportOptions};
use super::fixture::{self, ClassSpec, Scenario};
use super::render_to_strings;
use rigel_expr::Access;
use rigel_plan::{Layout, MatrixShape};
use rigel_results::{ResultsDoc, SearchRecord, SearchTrial};

fn scenario(classes: Vec<ClassSpec>, points: Vec<Vec<u32>>) -> Scenario {
    let n = points.len();
    Scenario {
        name: "rules",
        description: "",
        command: &["rigel", "run", "rules.toml"],
        targets: vec![("/dev/loop0", 536870912)],
        layout: Layout::Concat,
        shape: MatrixShape::Detailed,
        classes,
        points: points.into_iter().map(|l| (vec![], l)).collect(),
        finished: n,
        failed: vec![],
        duration_s: 3,
        started: "2026-12-03T06:47:00+00:00",
        expect: vec![],
    }
}

/// Page 1's verdict and answers: from `## Verdict` to the system under test.
fn summary(doc: &ResultsDoc) -> String {
    let opts = ReportOptions {
        formats: vec![Format::Markdown],
        ..ReportOptions::new("unused")
    };
    let md = render_to_strings(doc, &opts)
        .unwrap()
        .into_iter()
        .find(|(f, _)| f.to_string_lossy().ends_with(".md"))
        .expect("report.md")
        .1;
    let from = md.find("## Verdict").expect("a summary");
    let to = md[from..]
        .find("## System under test")
        .map_or(md.len(), |i| from + i);
    md[from..to].to_owned()
}

fn iops_of(doc: &ResultsDoc, id: u32) -> f64 {
    let p = doc.points().iter().find(|p| p.point.id == id).unwrap();
    p.classes[0].total.iops
}

#[test]
fn a_search_headlines_its_answer_and_never_a_failed_trial() {
    // Four trials of 8 KiB random reads, the two at the higher loads (and higher IOPS) failed.
    let mut doc = fixture::build(&scenario(
        vec![fixture::small(100)],
        vec![vec![1], vec![2], vec![16], vec![32]],
    ));
    let trial = |id: u32, value: f64, passed: bool| SearchTrial {
        point_id: id,
        value,
        passed,
        measured: "-".into(),
        spoiled: false,
    };
    doc.set_search(Some(SearchRecord {
        target: "small.read.latency.p99 <= 2ms".into(),
        class: "small".into(),
        knob: "rate".into(),
        trials: vec![
            trial(1, 1000.0, true),
            trial(4, 200000.0, false),
            trial(2, 2000.0, true),
            trial(3, 4000.0, false),
        ],
        answer: Some(2000.0),
        failed_at: Some(4000.0),
        finished: true,
        confirmed: false,
        contradiction: None,
        summary: "max 2,000 IOPS with small.read.latency.p99 <= 2ms".into(),
    }));
    let s = summary(&doc);
    assert!(
        s.contains("2,000 IOPS (not confirmed)") && s.contains("small.read.latency.p99 <= 2ms"),
        "the search's answer is the headline:\n{s}"
    );
    // The answer's trial (point 2) gives CALIBRATE_IO's max_iops, not the failed point 4.
    let answer_iops = iops_of(&doc, 2).floor() as u64;
    let failed_iops = iops_of(&doc, 4).floor() as u64;
    assert_ne!(answer_iops, failed_iops);
    assert!(
        s.contains(&format!("max_iops {answer_iops},")),
        "max_iops from the answer's trial ({answer_iops}), not a failed one ({failed_iops}):\n{s}"
    );
    let failed = rigel_expr::units::thousands(iops_of(&doc, 4));
    assert!(
        !s.contains(&failed),
        "a failed trial's {failed} IOPS in:\n{s}"
    );
    assert!(!s.contains("Max IOPS"), "{s}");
}

#[test]
fn redo_latency_is_taken_under_the_most_data_load() {
    // A redo writer at 1 beside an OLTP class at 0, 4 and 32: the worst (highest) data load is
    // the point its latency is taken at, not the quiet point at 0.
    let redo = ClassSpec {
        name: "redo",
        size: 16384,
        access: Access::Sequential,
        read_percent: 0,
        per_stream: 1,
        base_us: 60.0,
    };
    let doc = fixture::build(&scenario(
        vec![fixture::small(70), redo],
        vec![vec![0, 1], vec![4, 1], vec![32, 1]],
    ));
    let s = summary(&doc);
    let line = s
        .lines()
        // The headline's answer for the class (page 1 has one line per class, not a second).
        .find(|l| l.contains("Write p99 of redo") || l.contains("Redo write p99"))
        .unwrap_or_else(|| panic!("no redo line in:\n{s}"));
    assert!(
        line.contains("small=32"),
        "redo p99 not at the highest data load: {line}"
    );
}

#[test]
fn a_held_class_is_answered_under_the_others_highest_load_and_never_beside_its_best_case() {
    // oracle/oltp's shape without `[answers]`: 1 MiB scans held at 1 beside data at 0, 4 and 32.
    // The scans' MB/s is best at data=0; the answer (and every line of page 1 about the scans)
    // is the one under data=32, with no "1 MiB" best case beside it.
    let data = ClassSpec {
        name: "data",
        size: 8192,
        access: Access::Random,
        read_percent: 70,
        per_stream: 1,
        base_us: 85.0,
    };
    let scan = ClassSpec {
        name: "scan",
        size: 1 << 20,
        access: Access::Random,
        read_percent: 100,
        per_stream: 1,
        base_us: 900.0,
    };
    let doc = fixture::build(&scenario(
        vec![data, scan],
        vec![vec![0, 1], vec![4, 1], vec![32, 1]],
    ));
    let s = summary(&doc);
    let scan_lines: Vec<&str> = s.lines().filter(|l| l.contains("(class scan)")).collect();
    assert!(!scan_lines.is_empty(), "no answer for the scans in:\n{s}");
    for line in scan_lines {
        assert!(
            line.contains("data=32"),
            "a scan figure not under data=32: {line}\n{s}"
        );
    }
}
