//! The charts storage engineers look at first, built from the context's views: a latency-vs-IOPS
//! "hockey stick" per class, per-second time series for the headline points and for every point that
//! was not steady, and a latency percentile plot per headline point (one line per direction).

use super::hockey::{Group, Labels, LoadPoint, hockey_stick, latency_unit};
use super::percentiles::{Direction, percentile_plot};
use super::timeseries::{SecondSeries, slowest_p99, time_series};
use super::varied::{chunks, varied};
use super::{Chart, MOST_SERIES, latency_scale, slug};
use crate::rows::{ClassRow, ClassView, Headline, Point};
use hdrhistogram::Histogram;
use rigel_results::decode_histogram;
use rigel_results::stats::{MIN_SECONDS, full_seconds, iops_spread};
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

/// Series per hockey stick: each draws two lines (mean, p99), and the legend holds at most
/// [`MOST_SERIES`] entries.
const HOCKEY_SERIES: usize = MOST_SERIES / 2;

/// A hockey stick per class along what varied (its load, or the load beside it when it was held),
/// every one in the report's latency unit; a class with more series than a legend holds gets small
/// multiples. A series of one point draws no curve: it is in the tables.
fn hockey_charts(classes: &[ClassView]) -> Vec<Chart> {
    let mut out = Vec::new();
    let scale = latency_scale(classes);
    for class in classes {
        let Some(v) = varied(&class.name, &class.rows) else {
            continue;
        };
        let pts: Vec<(String, Vec<LoadPoint>)> = v
            .series
            .iter()
            .filter(|s| s.rows.len() > 1)
            .map(|s| {
                let points = s
                    .rows
                    .iter()
                    .map(|r| LoadPoint {
                        load: v.x(r),
                        ..load_point(r)
                    })
                    .collect();
                (s.key.clone(), points)
            })
            .collect();
        if pts.is_empty() {
            continue;
        }
        let by_mbps = class.orion_role.as_deref() == Some("large")
            || (class.orion_role.is_none() && class.access == "sequential");
        let what = if v.own {
            "the load".to_string()
        } else {
            format!("{}'s load", v.x_class)
        };
        let labels = Labels {
            what: &what,
            unit: (scale.unit, scale.div),
        };
        let parts = chunks(pts, HOCKEY_SERIES);
        let n = parts.len();
        for (i, part) in parts.iter().enumerate() {
            let gs: Vec<Group<'_>> = part
                .iter()
                .map(|(k, p)| Group { key: k, points: p })
                .collect();
            let name = format!("{}{}", class.name, v.held_text());
            let mut fig = hockey_stick(&name, &gs, by_mbps, &labels);
            let mut file = format!("hockey-{}", slug(&class.name));
            if n > 1 {
                fig.title = format!("{} ({} of {n})", fig.title, i + 1);
                if i > 0 {
                    file.push_str(&format!("-{}", i + 1));
                }
            }
            out.push(chart(file, &fig.title, fig.to_svg()));
        }
    }
    out
}

/// Why a point deserves its own time series, when it is not steady: `not steady, IOPS max/min 2.1×`.
fn unsteady(p: &Point) -> Option<String> {
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

/// A point's fewest full seconds over its classes: what a per-second chart of it would be drawn from.
fn seconds_of(p: &Point) -> usize {
    p.classes
        .iter()
        .map(|c| full_seconds(&c.intervals).count())
        .min()
        .unwrap_or(0)
}

/// Why some points have no per-second chart: each needs [`MIN_SECONDS`] full seconds, since a
/// line through two or three says more about chance than about the storage.
pub fn chart_notes(points: &[Point], headline: &Headline) -> Vec<String> {
    let short: Vec<&Point> = candidates(points, headline)
        .into_iter()
        .filter(|p| seconds_of(p) < MIN_SECONDS)
        .collect();
    if short.is_empty() {
        return Vec::new();
    }
    let most = short.iter().map(|p| seconds_of(p)).max().unwrap_or(0);
    let ids: Vec<String> = short.iter().map(|p| p.id.to_string()).collect();
    vec![format!(
        "No per-second chart of the headline point{} ({}): a per-second chart needs at least {MIN_SECONDS} full seconds of a point, and {} had {most} at most. Points of {MIN_SECONDS} s or longer (run.duration) get one.",
        if short.len() == 1 { "" } else { "s" },
        ids.join(", "),
        if short.len() == 1 { "it" } else { "they" },
    )]
}

/// The points a per-second chart is wanted for: the headline ones, then the unsteady ones.
fn candidates<'p>(points: &'p [Point], headline: &Headline) -> Vec<&'p Point> {
    let mut out: Vec<&Point> = Vec::new();
    for b in [&headline.max_iops, &headline.max_mbps]
        .into_iter()
        .flatten()
    {
        if let Some(p) = points.iter().find(|p| p.id == b.point && p.ok)
            && !out.iter().any(|q| q.id == p.id)
        {
            out.push(p);
        }
    }
    out
}

/// Headline points first, then every point with a class whose per-second IOPS spread is above 1.5×;
/// only points with at least [`MIN_SECONDS`] full seconds (see [`chart_notes`]).
fn series_points<'p>(points: &'p [Point], headline: &Headline) -> Vec<(&'p Point, String)> {
    let heads = [&headline.max_iops, &headline.max_mbps];
    let mut out: Vec<(&Point, String)> = Vec::new();
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

fn series_charts(points: &[Point], headline: &Headline) -> Vec<Chart> {
    let drawn: Vec<(&Point, String, Vec<SecondSeries<'_>>)> = series_points(points, headline)
        .into_iter()
        .filter(|(p, _)| seconds_of(p) >= MIN_SECONDS)
        .map(|(p, why)| {
            let series = p
                .classes
                .iter()
                .map(|c| SecondSeries {
                    name: c.class.clone(),
                    intervals: &c.intervals,
                })
                .collect();
            (p, why, series)
        })
        .collect();
    // One p99 unit for every per-second chart, from the slowest second any of them shows.
    let top = drawn
        .iter()
        .map(|(_, _, s)| slowest_p99(s))
        .fold(0.0, f64::max);
    let unit = latency_unit(top);
    drawn
        .iter()
        .map(|(p, why, series)| {
            let fig = time_series(
                &format!("Per second at point {} ({}): {why}", p.id, p.label),
                series,
                unit,
            );
            chart(format!("seconds-{}", p.id), &fig.title, fig.to_svg())
        })
        .collect()
}

/// A percentile plot to draw: its file name, its title, and its lines (name, histogram, exact
/// maximum).
type Plot = (String, String, Vec<(String, Histogram<u64>, u64)>);

fn percentile_charts(view: &ResultsView, headline: &Headline) -> Vec<Chart> {
    let mut plots: Vec<Plot> = Vec::new();
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
                Some((d.name().to_string(), h, f.latency.max_ns))
            })
            .filter(|(_, h, _)| !h.is_empty())
            .collect();
        if hists.is_empty() {
            continue;
        }
        plots.push((
            format!("percentiles-{}-{}", slug(&b.class), b.point),
            format!("{} latency percentiles at {}", b.class, b.label),
            hists,
        ));
        plots.extend(size_plot(c, &b.class, b.point, &b.label));
    }
    // One unit for every percentile plot, from the slowest I/O any of them shows.
    let top = plots
        .iter()
        .flat_map(|(_, _, h)| h.iter().map(|(_, _, max)| *max as f64))
        .fold(0.0, f64::max);
    let unit = latency_unit(top);
    plots
        .iter()
        .map(|(file, title, hists)| {
            let lines: Vec<Direction<'_>> = hists
                .iter()
                .map(|(n, h, max)| Direction {
                    name: n.clone(),
                    histogram: h,
                    max_ns: *max,
                })
                .collect();
            let fig = percentile_plot(title, &lines, unit);
            chart(file.clone(), &fig.title, fig.to_svg())
        })
        .collect()
}

/// A size mix's latency percentiles at a point: one line per size (all its I/Os, reads and writes),
/// from each size's own histogram; the [`MOST_SERIES`] sizes with most I/Os where the mix has more.
fn size_plot(
    c: &rigel_results::view::ClassRead<'_>,
    class: &str,
    point: u32,
    label: &str,
) -> Option<Plot> {
    let sizes = c.mix_sizes();
    // Drawn smallest first, as the tables list them.
    let mut drawn: Vec<u64> = sizes.iter().copied().take(MOST_SERIES).collect();
    drawn.sort_unstable();
    let hists: Vec<(String, Histogram<u64>, u64)> = drawn
        .iter()
        .filter_map(|&size| {
            let d = c.size_stats(size, rigel_expr::Direction::Total)?;
            let h = decode_histogram(&d.histogram).filter(|h| !h.is_empty())?;
            Some((rigel_expr::units::size(size as f64), h, d.latency.max_ns))
        })
        .collect();
    if hists.len() < 2 {
        return None;
    }
    let most = if sizes.len() > MOST_SERIES {
        format!(
            " (the {MOST_SERIES} sizes with most I/Os of {})",
            sizes.len()
        )
    } else {
        String::new()
    };
    Some((
        format!("percentiles-size-{}-{point}", slug(class)),
        format!("{class} latency percentiles per I/O size at {label}{most}"),
        hists,
    ))
}

fn chart(name: String, title: &str, svg: String) -> Chart {
    Chart {
        file: format!("chart-{name}.svg"),
        name,
        title: title.to_string(),
        svg,
        answer: false,
    }
}

/// Every chart of this module, in reading order.
pub fn more_charts(
    view: &ResultsView,
    classes: &[ClassView],
    points: &[Point],
    headline: &Headline,
) -> Vec<Chart> {
    // A class at one load over a `[sweep]`: its latency against the swept value.
    let mut out: Vec<Chart> = super::swept::swept_charts(classes, latency_scale(classes))
        .into_iter()
        .map(|(name, fig)| chart(name, &fig.title, fig.to_svg()))
        .collect();
    out.extend(hockey_charts(classes));
    out.extend(series_charts(points, headline));
    out.extend(percentile_charts(view, headline));
    out
}
