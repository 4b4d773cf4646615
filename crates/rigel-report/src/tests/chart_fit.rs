//! Charts fit what varied: a class held at one load beside a swept one (a `row` matrix) is drawn
//! against the swept load, never as dots at one x; more series than a legend holds become small
//! multiples on one scale; per-second charts need 5 full seconds. Checked on every chart's SVG.

use super::super::{Format, ReportOptions};
use super::fixture::{self, PlannedLoads, Scenario};
use super::render_to_strings;
use rigel_expr::Access;
use rigel_plan::{Layout, MatrixShape};

/// The issue's case: small swept over 0 and 1..32 beside a sequential large stream held at 1.
fn row_held(duration_s: u64) -> Scenario {
    Scenario {
        name: "row-held",
        description: "",
        command: &["rigel", "run", "row.toml"],
        targets: vec![("/dev/loop0", 536870912)],
        layout: Layout::Concat,
        shape: MatrixShape::Row,
        classes: vec![fixture::small(70), fixture::large(Access::Sequential)],
        points: [0, 1, 2, 4, 8, 16, 32]
            .iter()
            .map(|&s| (vec![], vec![s, 1]))
            .collect(),
        finished: 7,
        failed: vec![],
        duration_s,
        started: "2026-12-03T06:47:00+00:00",
        expect: vec![],
    }
}

/// `name → svg` of every chart of a Markdown render (the charts are written beside it).
fn charts(s: &Scenario) -> Vec<(String, String)> {
    let opts = ReportOptions {
        formats: vec![Format::Markdown],
        ..ReportOptions::new("unused")
    };
    render_to_strings(&fixture::build(s), &opts)
        .unwrap()
        .into_iter()
        .map(|(f, t)| (f.to_string_lossy().into_owned(), t))
        .filter(|(f, _)| f.ends_with(".svg"))
        .collect()
}

/// The distinct x of each polyline in an SVG.
fn series_xs(svg: &str) -> Vec<usize> {
    svg.split("<polyline points=\"")
        .skip(1)
        .map(|rest| {
            let points = &rest[..rest.find('"').unwrap()];
            let mut xs: Vec<&str> = points
                .split_whitespace()
                .map(|p| p.split(',').next().unwrap())
                .collect();
            xs.sort_unstable();
            xs.dedup();
            xs.len()
        })
        .collect()
}

fn legend_entries(svg: &str) -> usize {
    svg.matches(r#"stroke-width="3""#).count()
}

#[test]
fn a_class_held_at_one_load_is_drawn_against_the_load_that_varied() {
    let charts = charts(&row_held(1));
    let names: Vec<&str> = charts.iter().map(|(n, _)| n.as_str()).collect();
    for (name, svg) in &charts {
        for xs in series_xs(svg) {
            assert!(xs >= 2, "{name}: a series with every point at one x\n{svg}");
        }
        assert!(legend_entries(svg) <= 8, "{name}: legend too long");
    }
    // The stream's MB/s against the small class's load, with the load it was held at.
    let held = &charts
        .iter()
        .find(|(n, _)| n == "chart-held-large.svg")
        .unwrap_or_else(|| panic!("no held chart in {names:?}"))
        .1;
    assert!(
        held.contains("large (held at 1) MiB/s vs small load"),
        "{held}"
    );
    assert!(held.contains("small load (outstanding I/Os)"), "{held}");
    // Loads 0..32: the point where the small class was idle (the stream alone) is drawn, in the
    // log₂ axis' slot for 0, not dropped off it.
    assert_eq!(series_xs(held), [7], "loads 0..32, the idle 0 drawn");
    assert!(held.contains(">0</text>"), "no 0 on the load axis\n{held}");
    // No MB/s-vs-load chart: the only large-I/O class did not vary its own load.
    assert!(!names.contains(&"chart-mbps.svg"), "{names:?}");
    assert!(names.contains(&"chart-iops.svg"), "{names:?}");
    // Its latency and hockey stick go along the small class's load too.
    for name in ["chart-latency-large.svg", "chart-hockey-large.svg"] {
        let svg = &charts.iter().find(|(n, _)| n == name).unwrap().1;
        assert!(svg.contains("(held at 1)"), "{name}: {svg}");
    }
}

#[test]
fn per_second_charts_need_five_full_seconds() {
    let short = charts(&row_held(3));
    assert!(
        !short.iter().any(|(n, _)| n.starts_with("chart-seconds-")),
        "3 s points have no per-second chart"
    );
    let opts = ReportOptions {
        formats: vec![Format::Markdown],
        ..ReportOptions::new("unused")
    };
    let md = &render_to_strings(&fixture::build(&row_held(3)), &opts).unwrap()[0].1;
    assert!(
        md.contains("a per-second chart needs at least 5 full seconds"),
        "the report says why: {md}"
    );
    // The page's wording: one volume `holds` (a block device here, smaller than the host's RAM).
    assert!(
        md.contains("the volume holds 512 MiB, less than 2 ×"),
        "{md}"
    );
    let long = charts(&row_held(5));
    assert!(long.iter().any(|(n, _)| n.starts_with("chart-seconds-")));
}

#[test]
fn more_series_than_a_legend_holds_become_small_multiples_on_one_scale() {
    // 10 sizes swept, each at loads 1, 2 and 4: 10 IOPS-vs-load series.
    const SIZES: [&str; 10] = [
        "4KiB", "8KiB", "16KiB", "32KiB", "64KiB", "128KiB", "256KiB", "512KiB", "1024KiB",
        "2048KiB",
    ];
    let points: Vec<PlannedLoads> = SIZES
        .iter()
        .flat_map(|&z| [1, 2, 4].map(|l| (vec![("small.size", z)], vec![l])))
        .collect();
    let s = Scenario {
        name: "sizes",
        description: "",
        command: &["rigel", "run", "sizes.toml"],
        targets: vec![("/dev/loop0", 1 << 34)],
        layout: Layout::Concat,
        shape: MatrixShape::Basic,
        classes: vec![fixture::small(100)],
        finished: points.len(),
        points,
        failed: vec![],
        duration_s: 1,
        started: "2026-12-03T06:47:00+00:00",
        expect: vec![],
    };
    let charts = charts(&s);
    let iops: Vec<&(String, String)> = charts
        .iter()
        .filter(|(n, _)| n.starts_with("chart-iops"))
        .collect();
    assert_eq!(iops.len(), 2, "10 series: two charts of 5");
    let ticks = |svg: &str| -> Vec<String> {
        svg.split(r##"text-anchor="end" fill="#52606d">"##)
            .skip(1)
            .map(|t| t[..t.find('<').unwrap()].to_string())
            .collect()
    };
    assert_eq!(ticks(&iops[0].1), ticks(&iops[1].1), "one y scale");
    assert!(iops[0].1.contains("IOPS vs load (1 of 2)"));
    for (name, svg) in &charts {
        assert!(
            legend_entries(svg) <= 8,
            "{name}: {} entries",
            legend_entries(svg)
        );
    }
}

#[test]
fn a_class_at_one_load_over_a_swept_size_is_drawn_against_the_size() {
    // log-writer's shape: one class at load 1, its size swept.
    let s = Scenario {
        name: "log-writer",
        points: ["4KiB", "16KiB", "64KiB", "256KiB"]
            .iter()
            .map(|&v| (vec![("small.size", v)], vec![1]))
            .collect(),
        finished: 4,
        classes: vec![fixture::small(0)],
        ..row_held(1)
    };
    let charts = charts(&s);
    let (_, svg) = charts
        .iter()
        .find(|(n, _)| n == "chart-latency-small-by-small.size.svg")
        .unwrap_or_else(|| {
            panic!(
                "no chart over the swept size: {:?}",
                charts.iter().map(|c| &c.0).collect::<Vec<_>>()
            )
        });
    assert!(svg.contains("small latency vs small.size"), "{svg}");
    assert!(svg.contains("small.size (KiB, log₂ scale)"), "{svg}");
    assert_eq!(
        series_xs(svg),
        [4, 4, 4, 4],
        "mean, p50, p99, p99.9 at each size"
    );
    // It is the answers' chart: the latency beside the answer is read off it (page 2).
    let md = render_to_strings(
        &fixture::build(&s),
        &ReportOptions {
            formats: vec![Format::Markdown],
            ..ReportOptions::new("unused")
        },
    )
    .unwrap()
    .into_iter()
    .find(|(f, _)| f.to_string_lossy() == "report.md")
    .unwrap()
    .1;
    let page2 = md.split("## Charts of the answers").nth(1).unwrap();
    let page2 = page2.split("<!-- page -->").next().unwrap();
    assert!(
        page2.contains("chart-latency-small-by-small.size.svg"),
        "{page2}"
    );
}
