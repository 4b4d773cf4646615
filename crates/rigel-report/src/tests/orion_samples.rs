//! ORION's published samples (orion-reference.md), rebuilt from their numbers and compared byte for byte.

use super::super::{Dialect, Format, ReportOptions};
use super::fixture::{self, Scenario};
use super::render_to_strings;
use rigel_expr::Access;
use rigel_plan::{Layout, MatrixShape};
use rigel_results::{DirStats, ResultsDoc};

/// Sets a class's figures at the point with these loads to exact values.
fn set(doc: &mut ResultsDoc, loads: (u32, u32), class: &str, f: impl Fn(&mut DirStats)) {
    let p = doc
        .points_mut()
        .iter_mut()
        .find(|p| (p.point.load_of("small"), p.point.load_of("large")) == loads)
        .unwrap();
    let c = p.classes.iter_mut().find(|c| c.class == class).unwrap();
    f(&mut c.total);
    if let Some(r) = c.read.as_mut() {
        f(r);
    }
}

/// ORION's `-run simple` on one LUN: small 1..5 alone, then large 1..2 alone, 60 s each.
fn simple_n1() -> ResultsDoc {
    simple_n1_as(&["rigel", "orion", "-run", "simple"])
}

/// [`simple_n1`] run by this command line.
fn simple_n1_as(command: &'static [&'static str]) -> ResultsDoc {
    let scenario = Scenario {
        name: "simple",
        description: "",
        command,
        targets: vec![("/dev/vdb", 21474836480)],
        layout: Layout::Concat,
        shape: MatrixShape::Basic,
        classes: vec![fixture::small(100), fixture::large(Access::Random)],
        points: fixture::basic_points(&[1, 2, 3, 4, 5], &[1, 2]),
        finished: 7,
        failed: vec![],
        duration_s: 60,
        started: "2016-10-11T21:22:00+02:00",
        expect: vec![],
    };
    fixture::build(&scenario)
}

fn orion_files(doc: &ResultsDoc, dialect: Dialect) -> Vec<(String, String)> {
    let opts = ReportOptions {
        formats: vec![Format::Orion],
        dialect,
        testname: Some("orion".into()),
        orion_version: Some(dialect.orion_release().into()),
        ..ReportOptions::new("unused")
    };
    render_to_strings(doc, &opts)
        .unwrap()
        .into_iter()
        .map(|(f, t)| (f.to_string_lossy().into_owned(), t))
        .collect()
}

fn file<'a>(files: &'a [(String, String)], name: &str) -> &'a str {
    &files
        .iter()
        .find(|(f, _)| f == name)
        .unwrap_or_else(|| panic!("{name} not rendered: {files:?}"))
        .1
}

const IOPS_SAMPLE: &str = "\
Large/Small,      1,      2,      3,      4,      5
          0,   2302,   4398,   5450,   6006,   6210
          1
          2
";

const MBPS_SAMPLE: &str = "\
Large/Small,      0,      1,      2,      3,      4,      5
          1, 271.58
          2, 374.26
";

#[test]
fn iops_and_mbps_csvs_match_the_published_sample() {
    let mut doc = simple_n1();
    for (s, iops) in [
        (1, 2302.0),
        (2, 4398.0),
        (3, 5450.0),
        (4, 6006.0),
        (5, 6210.0),
    ] {
        set(&mut doc, (s, 0), "small", |d| d.iops = iops);
    }
    for (l, mbps) in [(1, 271.58), (2, 374.26)] {
        set(&mut doc, (0, l), "large", |d| d.mbps = mbps);
    }
    for dialect in [Dialect::V11, Dialect::V12] {
        let files = orion_files(&doc, dialect);
        assert_eq!(file(&files, "orion_20161011_2122_iops.csv"), IOPS_SAMPLE);
        assert_eq!(file(&files, "orion_20161011_2122_mbps.csv"), MBPS_SAMPLE);
        let lat = file(&files, "orion_20161011_2122_lat.csv");
        assert!(
            lat.starts_with("Large/Small,      1,      2,      3,      4,      5\n          0, ")
        );
        assert!(lat.ends_with("\n          1\n          2\n"));
    }
}

const SUMMARY_SAMPLE: &str = "\
ORION VERSION 11.1.0.7.0

Commandline:
-run simple

This maps to this test:
Test: orion
Small IO size: 8 KB
Large IO size: 1024 KB
IO Types: Small Random IOs, Large Random IOs
Simulated Array Type: CONCAT
Write: 0%
Cache Size: Not Entered
Duration for each Data Point: 60 seconds
Small Columns:,      0
Large Columns:,      0,      1,      2
Total Data Points: 8

Name: /dev/vdb\tSize: 21474836480
1 FILEs found.

Maximum Large MBPS=1554.54 @ Small=0 and Large=2
Maximum Small IOPS=19019 @ Small=5 and Large=0
Minimum Small Latency=0.26 @ Small=5 and Large=0
";

/// The KVM virtio sample: 1554.54 MBPS @ Large=2, 19019 IOPS @ Small=5, 0.26 ms @ Small=5.
fn kvm_sample() -> ResultsDoc {
    let mut doc = simple_n1();
    for (s, iops, lat_ns) in [
        (1, 3205.0, 311_000.0),
        (2, 6800.0, 294_000.0),
        (3, 11020.0, 272_000.0),
        (4, 15100.0, 265_000.0),
        (5, 19019.0, 260_000.0),
    ] {
        set(&mut doc, (s, 0), "small", |d| {
            d.iops = iops;
            d.latency.mean_ns = lat_ns;
        });
    }
    for (l, mbps) in [(1, 1210.02), (2, 1554.54)] {
        set(&mut doc, (0, l), "large", |d| d.mbps = mbps);
    }
    doc
}

#[test]
fn summary_11_1_matches_the_published_sample() {
    let files = orion_files(&kvm_sample(), Dialect::V11);
    assert_eq!(
        file(&files, "orion_20161011_2122_summary.txt"),
        SUMMARY_SAMPLE
    );
    let names: Vec<&str> = files.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(
        names,
        [
            "orion_20161011_2122_summary.txt",
            "orion_20161011_2122_iops.csv",
            "orion_20161011_2122_mbps.csv",
            "orion_20161011_2122_lat.csv",
            "orion_20161011_2122_trace.txt"
        ]
    );
}

#[test]
fn summary_12c_prints_microseconds_and_the_read_latency_line() {
    let mut doc = kvm_sample();
    set(&mut doc, (2, 0), "small", |d| {
        d.latency.mean_ns = 97_677.0;
        d.latency.min_ns = 63_652;
        d.latency.max_ns = 2_133_198;
        d.latency.stdev_ns = 47_348.0;
    });
    let files = orion_files(&doc, Dialect::V12);
    let summary = file(&files, "orion_20161011_2122_summary.txt");
    assert!(summary.starts_with("ORION VERSION 19.3.0.0.0\n"));
    assert!(summary.ends_with(
        "Minimum Small Latency=97.677 usecs @ Small=2 and Large=0\n\
         Small Read Latency: avg=97.677 us, min=63.652 us, max=2133.198 us, std dev=47.348 us @ Small=2 and Large=0\n"
    ));
    assert!(
        !summary.contains("Small Write Latency"),
        "a read-only run has no write line"
    );
}

#[test]
fn hist_lines_have_orions_format() {
    use hdrhistogram::Histogram;
    let mut doc = simple_n1();
    let mut h = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).unwrap();
    h.record_n(40_000, 108_392).unwrap(); // 40 us: 32-64
    h.record_n(100_000, 1_112_243).unwrap(); // 100 us: 64-128
    let encoded = {
        use base64::Engine as _;
        use hdrhistogram::serialization::{Serializer as _, V2DeflateSerializer};
        let mut buf = Vec::new();
        V2DeflateSerializer::new().serialize(&h, &mut buf).unwrap();
        base64::engine::general_purpose::STANDARD.encode(buf)
    };
    set(&mut doc, (2, 0), "small", |d| d.histogram = encoded.clone());
    let files = orion_files(&doc, Dialect::V12);
    let hist = file(&files, "orion_20161011_2122_hist.txt");
    let block = hist
        .split("\n\n")
        .find(|b| b.starts_with("Small Read / Write Latency Histogram @ Small=2 and Large=0"))
        .unwrap();
    let lines: Vec<&str> = block.lines().collect();
    assert_eq!(
        lines[1],
        "        Latency:                         # of IOs (read)          # of IOs (write)"
    );
    assert_eq!(
        lines[2],
        "        0 - 32         us:               0 (  0.00%)              0 (  0.00%)"
    );
    assert_eq!(
        lines[3],
        "       32 - 64         us:          108392 (  8.88%)              0 (  0.00%)"
    );
    assert_eq!(
        lines[4],
        "       64 - 128        us:         1112243 (100.00%)              0 (  0.00%)"
    );
    assert_eq!(
        lines.last().copied(),
        Some(" 16777216 - inf        us:               0 (100.00%)              0 (  0.00%)")
    );
    assert!(hist.contains("Large Read / Write Latency Histogram @ Small=0 and Large=1\n"));
}

/// The summary as rendered with the default options (no test's version override).
fn default_summary(doc: &ResultsDoc) -> String {
    let opts = ReportOptions {
        formats: vec![Format::Orion],
        testname: Some("orion".into()),
        ..ReportOptions::new("unused")
    };
    let files: Vec<(String, String)> = render_to_strings(doc, &opts)
        .unwrap()
        .into_iter()
        .map(|(f, t)| (f.to_string_lossy().into_owned(), t))
        .collect();
    file(&files, "orion_20161011_2122_summary.txt").to_string()
}

#[test]
fn the_version_line_is_orions_own_and_rigels_version_is_in_the_trace() {
    let doc = kvm_sample();
    let summary = default_summary(&doc);
    assert!(
        summary.starts_with("ORION VERSION 19.3.0.0.0\n\n"),
        "scripts match ORION's line exactly: {summary}"
    );
    assert!(!summary.contains("rigel"), "{summary}");
    let opts = ReportOptions {
        formats: vec![Format::Orion],
        testname: Some("orion".into()),
        ..ReportOptions::new("unused")
    };
    let trace = render_to_strings(&doc, &opts)
        .unwrap()
        .into_iter()
        .find(|(f, _)| f.to_string_lossy().ends_with("_trace.txt"))
        .unwrap()
        .1;
    assert!(
        trace.contains(&format!("rigel {}", env!("CARGO_PKG_VERSION"))),
        "{trace}"
    );
}

#[test]
fn the_cache_size_given_is_the_one_the_summary_shows() {
    let zero = simple_n1_as(&["rigel", "orion", "-run", "simple", "-cache_size", "0"]);
    assert!(default_summary(&zero).contains("\nCache Size: 0 MB\n"));
    let given = simple_n1_as(&["rigel", "orion", "-cache_size", "512", "-run", "simple"]);
    assert!(default_summary(&given).contains("\nCache Size: 512 MB\n"));
    assert!(default_summary(&simple_n1()).contains("\nCache Size: Not Entered\n"));
}

#[test]
fn summary_iops_is_rounded_as_the_csv_rounds_it() {
    let mut doc = kvm_sample();
    set(&mut doc, (5, 0), "small", |d| d.iops = 66_700.6);
    let files = orion_files(&doc, Dialect::V12);
    let summary = file(&files, "orion_20161011_2122_summary.txt");
    assert!(
        summary.contains("\nMaximum Small IOPS=66701 @ Small=5 and Large=0\n"),
        "{summary}"
    );
    let iops = file(&files, "orion_20161011_2122_iops.csv");
    assert!(iops.contains(",  66701\n"), "{iops}");
}
