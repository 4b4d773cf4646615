//! Snapshots of the hockey stick, time series and percentile charts over the real-run fixture, plus
//! a throttled series; each SVG must parse as XML.

use super::{assert_well_formed, fixtures_dir, load_fixture};
use crate::chart::hockey::{Group, Labels, LoadPoint, hockey_stick};
use crate::chart::percentiles::{Direction, percentile_plot};
use crate::chart::timeseries::{SecondSeries, slowest_p99, time_series};
use rigel_expr::Direction as Dir;
use rigel_results::stats::warnings;
use rigel_results::view::ResultsView;
use rigel_results::{Interval, ResultsDoc, decode_histogram};

fn real_run() -> ResultsDoc {
    load_fixture(&fixtures_dir().join("results-quick-real-run.json"))
}

fn check(name: &str, svg: &str) {
    assert_well_formed(name, svg);
    insta::assert_snapshot!(name, svg);
}

fn load_points(doc: &ResultsDoc, class: &str) -> Vec<LoadPoint> {
    ResultsView::new(doc)
        .points
        .iter()
        .filter_map(|p| {
            let c = p.class(class)?;
            let f = c.counted(Dir::Total)?;
            Some(LoadPoint {
                load: c.params.load,
                iops: f.iops,
                mbps: f.mbps,
                mean_ns: f.latency.mean_ns,
                p99_ns: f.latency.p99_ns as f64,
            })
        })
        .collect()
}

#[test]
fn hockey_sticks_of_a_real_run() {
    let doc = real_run();
    let small = load_points(&doc, "small");
    let svg = hockey_stick(
        "small",
        &[Group {
            key: "",
            points: &small,
        }],
        false,
        &Labels {
            what: "the load",
            unit: ("µs", 1e3),
        },
    )
    .to_svg();
    assert_eq!(svg.matches("<circle").count(), 2 * small.len());
    check("hockey-small", &svg);
    let large = load_points(&doc, "large");
    let svg = hockey_stick(
        "large",
        &[Group {
            key: "",
            points: &large,
        }],
        true,
        &Labels {
            what: "the load",
            unit: ("µs", 1e3),
        },
    )
    .to_svg();
    check("hockey-large", &svg);
}

#[test]
fn time_series_of_a_real_point() {
    let doc = real_run();
    let p = &doc.points()[1];
    let c = p.class("small").unwrap();
    let series = [SecondSeries {
        name: "small".into(),
        intervals: &c.intervals,
    }];
    let unit = crate::chart::hockey::latency_unit(slowest_p99(&series));
    let svg = time_series(
        &format!("point {} per second", p.point.label()),
        &series,
        unit,
    )
    .to_svg();
    check("timeseries-real", &svg);
}

#[test]
fn a_throttled_series_shows_its_step() {
    let ivs: Vec<Interval> = (1..=8)
        .map(|t| {
            let iops = if t <= 4 { 4000.0 } else { 500.0 };
            Interval {
                t_s: f64::from(t),
                ios: iops as u64,
                iops,
                mbps: iops * 4096.0 / 1048576.0,
                mean_ns: 1e9 / iops,
                p99_ns: (2e9 / iops) as u64,
                read_histogram: None,
                write_histogram: None,
            }
        })
        .collect();
    let series = [SecondSeries {
        name: "small".into(),
        intervals: &ivs,
    }];
    let unit = crate::chart::hockey::latency_unit(slowest_p99(&series));
    let svg = time_series("throttled per second", &series, unit).to_svg();
    check("timeseries-step", &svg);
}

#[test]
fn percentile_plot_of_a_real_point() {
    let doc = real_run();
    let c = doc.points()[2].class("small").unwrap();
    let h = decode_histogram(&c.total.histogram).unwrap();
    let svg = percentile_plot(
        "small latency percentiles",
        &[Direction {
            name: "read".into(),
            histogram: &h,
            max_ns: c.total.latency.max_ns,
        }],
        crate::chart::hockey::latency_unit(c.total.latency.max_ns as f64),
    )
    .to_svg();
    assert!(svg.contains(">p99.9<"), "{svg}");
    check("percentiles-real", &svg);
}

#[test]
fn warnings_of_a_real_run() {
    let doc = real_run();
    let w = warnings(&ResultsView::new(&doc), &[], &Default::default());
    insta::assert_json_snapshot!("warnings-real", w);
}

#[test]
fn compare_overlay_of_a_real_run_and_a_lowered_copy() {
    let base = real_run();
    let mut new = base.clone();
    for p in new.points_mut() {
        for c in &mut p.classes {
            c.total.iops *= 0.8;
        }
    }
    let svg = super::super::compare_overlay(&base, &new);
    assert!(
        svg.contains("small BASE") && svg.contains("small NEW"),
        "{svg}"
    );
    check("compare-overlay", &svg);
}

#[test]
fn the_default_seed_on_a_target_that_ran_it_before_is_warned_about() {
    let doc = real_run();
    let past = |seed: u64, started: &str| rigel_results::stats::PastRun {
        folder: "runs/earlier".into(),
        started: started.into(),
        seed,
        targets: vec![doc.targets()[0].path.clone()],
    };
    let seed_warnings = |p: &[rigel_results::stats::PastRun]| {
        warnings(&ResultsView::new(&doc), p, &Default::default())
            .into_iter()
            .filter(|w| w.kind == "seed")
            .count()
    };
    assert_eq!(seed_warnings(&[past(1, "2000-01-01T00:00:00Z")]), 1);
    // Another seed, or a run that came later, says nothing.
    assert_eq!(seed_warnings(&[past(7, "2000-01-01T00:00:00Z")]), 0);
    assert_eq!(seed_warnings(&[past(1, "2999-01-01T00:00:00Z")]), 0);
}
