//! A report of thousands of points stays the size of a report of a thousand (issue 33: 100,000
//! points in a minute within 2 GB): per-point tables and lists show at most `TABLE_ROWS` rows and
//! say so, charts thin their lines and say so, and `rows.csv` holds every row. A byte budget, not
//! a timing: `benches/many_points.py` measures time and memory.

use super::fixture::{Scenario, basic_points, build, large, small};
use super::render_to_strings;
use crate::{Format, ReportOptions};
use rigel_expr::Access;
use rigel_plan::{Layout, MatrixShape};
use std::collections::HashMap;

fn report(n: u32) -> HashMap<String, String> {
    let levels: Vec<u32> = (1..=n).collect();
    let doc = build(&Scenario {
        name: "many",
        description: "",
        command: &["rigel", "run", "many.toml"],
        targets: vec![("/dev/nvme1n1", 1 << 40)],
        layout: Layout::Concat,
        shape: MatrixShape::Basic,
        classes: vec![small(100), large(Access::Random)],
        points: basic_points(&levels, &[]),
        finished: n as usize,
        failed: vec![2],
        duration_s: 1,
        started: "2026-12-03T10:00:00+00:00",
        expect: vec![],
    });
    let opts = ReportOptions {
        formats: vec![Format::Markdown, Format::Html],
        ..ReportOptions::new("unused")
    };
    render_to_strings(&doc, &opts)
        .expect("renders")
        .into_iter()
        .map(|(p, text)| (p.to_string_lossy().into_owned(), text))
        .collect()
}

#[test]
fn thousands_of_points_report_in_the_size_of_a_thousand() {
    let (smaller, larger) = (report(1_100), report(2_200));
    for page in ["report.md", "report.html"] {
        let (a, b) = (smaller[page].len(), larger[page].len());
        // Twice the points, under 1.25 times the bytes: what still grows is the plan's list of load
        // levels (one per point here) in the classes table. Both above the 1,000 rows a table
        // shows, so both reports are summarized: each point costs the test its histograms, built and
        // summarized (3,300 points, not 4,200 at 1,200 and 3,000).
        assert!(
            b < a + a / 4,
            "{page}: {a} bytes at 1,100 points, {b} at 2,200: it grows with the points"
        );
        assert!(
            larger[page].contains("1,000 of 2,200 rows shown, evenly spaced"),
            "{page} says where it summarized"
        );
    }
    let md = &larger["report.md"];
    assert!(md.contains("every row is in [rows.csv](rows.csv)"));
    assert!(md.contains("1,000 of 2,200 planned points shown"));
    // Every class row, exactly: a header and one line per finished point.
    let csv = &larger["rows.csv"];
    assert_eq!(csv.lines().count(), 2_201);
    assert!(
        csv.lines()
            .nth(2_200)
            .is_some_and(|l| l.starts_with("2200,"))
    );
    // Charts against load: thinned, and the chart says so.
    let charts: Vec<(&String, &String)> = larger
        .iter()
        .filter(|(name, _)| name.starts_with("chart-"))
        .collect();
    assert!(!charts.is_empty());
    for (name, svg) in &charts {
        assert!(svg.len() < 400_000, "{name}: {} bytes", svg.len());
    }
    assert!(
        charts
            .iter()
            // 2,199: point 2 failed.
            .any(|(_, svg)| svg.contains("thinned to at most 500 of 2,199 points a line")),
        "a thinned chart says so"
    );
    // A report of fewer points than a table shows is whole, and writes no rows.csv.
    let few = report(50);
    assert!(!few.contains_key("rows.csv"));
    assert!(!few["report.md"].contains("evenly spaced"));
}
