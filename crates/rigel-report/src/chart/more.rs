//! The charts storage engineers look at first, built from the context's views: a latency-vs-IOPS
//! "hockey stick" per class, per-second time series for the headline points and for every point that
//! was not steady, and a latency percentile plot per headline point (one line per direction).

use super::hockey::{Group, LoadPoint, hockey_stick};
use super::percentiles::{Direction, percentile_plot};
use super::timeseries::{SecondSeries, time_series};
use super::{Chart, groups, slug};
use crate::rows::{ClassRow, ClassView, Headline, PointView};
use rigel_results::decode_histogram;
use rigel_results::stats::iops_spread;
use rigel_results::view::ResultsView;

/// Per-second IOPS max/min above which a point gets a time series of its own.
const UNSTEADY: f64 = 1.5;

fn load_point(r: &ClassRow) -> LoadPoint {
    LoadPoint {
        load: r.load,
        iops: r.iops,
        mbps: r.mbps,
        mean_ns: r.latency.mean_ns,
        p99_ns: r.latency.p99_ns as f64,
    }
}

fn hockey_charts(classes: &[ClassView]) -> Vec<Chart> {
    let mut out = Vec::new();
    for class in classes {
        let groups = groups(&class.rows);
        if groups.is_empty() {
            continue;
        }
        let pts: Vec<(String, Vec<LoadPoint>)> = groups
            .iter()
            .map(|(k, rows)| (k.clone(), rows.iter().map(|r| load_point(r)).collect()))
            .collect();
        let gs: Vec<Group<'_>> = pts
            .iter()
            .map(|(k, p)| Group { key: k, points: p })
            .collect();
        let by_mbps = class.orion_role.as_deref() == Some("large")
            || (class.orion_role.is_none() && class.access == "sequential");
        let fig = hockey_stick(&class.name, &gs, by_mbps);
        out.push(chart(
            format!("hockey-{}", slug(&class.name)),
            &fig.title,
            fig.to_svg(),
        ));
    }
    out
}

/// Why a point deserves its own time series, when it is not steady: `not steady, IOPS max/min 2.1×`.
fn unsteady(p: &PointView) -> Option<String> {
    let spread = p
        .classes
        .iter()
        .filter_map(|c| iops_spread(&c.intervals))
        .fold(0.0, f64::max);
    (spread > UNSTEADY).then(|| {
        let s = if spread.is_finite() {
            format!("{spread:.2}×")
        } else {
            "∞".into()
        };
        format!("not steady, IOPS max/min {s}")
    })
}

/// Headline points first, then every point with a class whose per-second IOPS spread is above 1.5×.
fn series_points<'p>(points: &'p [PointView], headline: &Headline) -> Vec<(&'p PointView, String)> {
    let heads = [&headline.max_iops, &headline.max_mbps];
    let mut out: Vec<(&PointView, String)> = Vec::new();
    for b in heads.into_iter().flatten() {
        if let Some(p) = points.iter().find(|p| p.id == b.point) {
            if !out.iter().any(|(q, _)| q.id == p.id) {
                let why = match unsteady(p) {
                    Some(u) => format!("headline; {u}"),
                    None => "headline".into(),
                };
                out.push((p, why));
            }
        }
    }
    for p in points.iter().filter(|p| p.ok) {
        if out.iter().any(|(q, _)| q.id == p.id) {
            continue;
        }
        if let Some(why) = unsteady(p) {
            out.push((p, why));
        }
    }
    out
}

fn series_charts(points: &[PointView], headline: &Headline) -> Vec<Chart> {
    series_points(points, headline)
        .into_iter()
        .map(|(p, why)| {
            let series: Vec<SecondSeries<'_>> = p
                .classes
                .iter()
                .map(|c| SecondSeries {
                    name: c.class.clone(),
                    intervals: &c.intervals,
                })
                .collect();
            let fig = time_series(
                &format!("Per second at point {} ({}): {why}", p.id, p.label),
                &series,
            );
            chart(format!("seconds-{}", p.id), &fig.title, fig.to_svg())
        })
        .collect()
}

fn percentile_charts(view: &ResultsView, headline: &Headline) -> Vec<Chart> {
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for b in [
        &headline.max_iops,
        &headline.max_mbps,
        &headline.min_latency,
    ]
    .into_iter()
    .flatten()
    {
        if seen.contains(&(b.point, b.class.clone())) {
            continue;
        }
        seen.push((b.point, b.class.clone()));
        let Some(c) = view
            .points
            .iter()
            .find(|p| p.id() == b.point)
            .and_then(|p| p.class(&b.class))
        else {
            continue;
        };
        // The directions the model shows for this class: its one, or total, read and write for a mix.
        let hists: Vec<_> = c
            .directions()
            .iter()
            .filter_map(|d| {
                let f = c.counted(*d)?;
                let h = decode_histogram(&c.stats(*d)?.histogram)?;
                Some((d.name(), h, f.latency.max_ns))
            })
            .filter(|(_, h, _)| !h.is_empty())
            .collect();
        if hists.is_empty() {
            continue;
        }
        let lines: Vec<Direction<'_>> = hists
            .iter()
            .map(|(n, h, max)| Direction {
                name: (*n).to_string(),
                histogram: h,
                max_ns: *max,
            })
            .collect();
        let fig = percentile_plot(
            &format!("{} latency percentiles at {}", b.class, b.label),
            &lines,
        );
        out.push(chart(
            format!("percentiles-{}-{}", slug(&b.class), b.point),
            &fig.title,
            fig.to_svg(),
        ));
    }
    out
}

fn chart(name: String, title: &str, svg: String) -> Chart {
    Chart {
        file: format!("chart-{name}.svg"),
        name,
        title: title.to_string(),
        svg,
    }
}

/// Every chart of this module, in reading order.
pub fn more_charts(
    view: &ResultsView,
    classes: &[ClassView],
    points: &[PointView],
    headline: &Headline,
) -> Vec<Chart> {
    let mut out = hockey_charts(classes);
    out.extend(series_charts(points, headline));
    out.extend(percentile_charts(view, headline));
    out
}
