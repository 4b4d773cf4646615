//! Rate caps: a class whose throughput stays flat while its load grows, latency growing with the
//! load as Little's law says it must when the throughput is held constant. On cloud and array
//! storage that is a provisioned figure or a throttle (a token bucket), not what the device could
//! do; a reader who takes the flat figure for the device's capacity sizes wrongly.
//!
//! Judged per line of the matrix (one class's load growing, the other classes' loads fixed) in
//! each `[sweep]` combination, for IOPS (small, random classes) or MiB/s (large or sequential
//! ones). Where the volume has several devices, their own counters give each device's share: a
//! sum of per-device caps (four volumes at 250 IOPS each) reads as four flat shares.

use super::seconds::full_seconds;
use crate::view::{ClassRead, PointRead, ResultsView};
use rigel_expr::{Direction, units};
use serde::Serialize;
use std::collections::BTreeMap;

/// The throughputs of a capped stretch lie within this share of each other at least (a token
/// bucket holds its rate to a percent or two; the points' own per-second noise may widen it)...
const FLAT_FLOOR: f64 = 0.03;
/// ...and never wider: a noisy host's scatter is not a flat line.
const FLAT_CEILING: f64 = 0.10;
/// The load must at least double over the stretch: flat over a small step says nothing.
const MIN_LOAD_GROWTH: f64 = 2.0;
/// Latency growth over load growth, within this factor either way: Little's law at a constant rate.
const PROPORTION: f64 = 1.25;
/// Points shorter than this are not judged: a token bucket's burst allowance fills a
/// fraction of a second, and a rate is told in per-second terms.
const MIN_WINDOW_S: f64 = 1.0;
/// The block devices held at least this share of the I/Os outstanding: the queue was at the
/// device, so the flat line is what the device serves (its capacity), not a limit above it.
const HELD_AT_DEVICE: f64 = 0.5;
/// Volumes whose provisioned rate is held inside the device the host sees (an EBS or Persistent
/// Disk queue is the device's): for them a queue at the device does not mean capacity.
const PROVISIONED_MODELS: [&str; 3] = ["Elastic Block Store", "PersistentDisk", "Virtual Disk"];

/// What was held flat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CapMetric {
    Iops,
    Mbps,
}

/// One device's share of a capped stretch (from its own counters).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeviceCap {
    pub device: String,
    /// Requests per second (IOPS) or MiB/s, the mean over the stretch's points.
    pub mean: f64,
    /// The largest distance of a point's figure from the mean.
    pub within: f64,
}

/// A class's throughput held flat over a stretch of rising load: the evidence of a rate limit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RateCap {
    pub class: String,
    pub metric: CapMetric,
    /// The stretch's points, by rising load.
    pub points: Vec<u32>,
    pub from_load: u32,
    pub to_load: u32,
    /// IOPS or MiB/s: the mean over the stretch's points.
    pub mean: f64,
    /// The largest distance of a point's figure from the mean.
    pub within: f64,
    /// Mean latency at the stretch's last point over its first.
    pub latency_growth: f64,
    /// Outstanding I/Os at the last point over the first.
    pub load_growth: f64,
    /// Each device's share, where the volume has several.
    pub devices: Vec<DeviceCap>,
    /// The `[sweep]` values of the points (empty without a sweep).
    pub sweep: String,
    /// The sentence, as the warning carrying this evidence says it.
    #[serde(skip)]
    pub message: String,
}

/// The rate caps of a run: at most one per class and `[sweep]` combination (its longest stretch).
/// Points where rigel itself used `cpu_fraction` of its workers' cores are left out (a tool at its
/// limit is flat too), and points shorter than a second.
pub fn rate_caps(view: &ResultsView, cpu_fraction: f64) -> Vec<RateCap> {
    let workers = f64::from(view.doc.plan.run.workers.max(1));
    let usable = |p: &PointRead| {
        let r = p.result;
        p.ok && r.elapsed_s >= MIN_WINDOW_S
            && (r.cpu.user_s + r.cpu.system_s) / r.elapsed_s / workers < cpu_fraction
    };
    let mut out = Vec::new();
    for group in view.groups() {
        let points: Vec<&PointRead> = group.points.iter().copied().filter(|p| usable(p)).collect();
        let mut classes: Vec<&str> = Vec::new();
        for p in &points {
            for c in p.running() {
                if !classes.contains(&c.name()) {
                    classes.push(c.name());
                }
            }
        }
        for class in classes {
            let metric = metric_of(view, &points, class);
            let best = lines(&points, class)
                .into_values()
                .filter_map(|line| longest_flat(&line, class, metric))
                .max_by_key(|s| (s.len(), s.last().map_or(0, |p| p.load_of(class))));
            if let Some(stretch) = best
                && (provisioned(view) || !held_at_device(&stretch))
            {
                out.push(cap(&stretch, class, metric));
            }
        }
    }
    out
}

/// Whether the block devices under the stretch's last point held the I/Os outstanding there (their
/// mean depth, iostat's `aqu-sz`, at least [`HELD_AT_DEVICE`] of them): a device at its capacity
/// holds the queue; a throttle above it (a cgroup, device-mapper) keeps the I/Os from reaching it.
/// Without device counters (files on tmpfs, a fleet's merged point) nothing is held.
fn held_at_device(stretch: &[&PointRead]) -> bool {
    let Some(last) = stretch.last() else {
        return false;
    };
    let devices = &last.result.devices;
    let outstanding: u32 = last.running().map(|c| c.params.outstanding).sum();
    !devices.is_empty()
        && devices.iter().map(|d| d.mean_depth()).sum::<f64>()
            >= HELD_AT_DEVICE * f64::from(outstanding)
}

/// Whether a target is a cloud volume whose provisioned rate is held at the device.
fn provisioned(view: &ResultsView) -> bool {
    view.doc
        .targets
        .iter()
        .any(|t| PROVISIONED_MODELS.iter().any(|m| t.model.contains(m)))
}

/// IOPS for ORION's small class and small random I/O; MiB/s for its large class and for
/// sequential or large I/O (a bandwidth cap shows there).
fn metric_of(view: &ResultsView, points: &[&PointRead], class: &str) -> CapMetric {
    match view.roles.get(class).map(String::as_str) {
        Some("large") => return CapMetric::Mbps,
        Some("small") => return CapMetric::Iops,
        _ => {}
    }
    let large = points
        .iter()
        .filter_map(|p| p.class(class))
        .any(|c| c.sequential() || c.params.size >= 256 << 10);
    if large {
        CapMetric::Mbps
    } else {
        CapMetric::Iops
    }
}

/// The points where `class` runs closed-loop, keyed by the other classes' loads, each line sorted
/// by `class`'s outstanding I/Os (one point per level: the first).
fn lines<'v, 'a>(
    points: &[&'v PointRead<'a>],
    class: &str,
) -> BTreeMap<Vec<(String, u32)>, Vec<&'v PointRead<'a>>> {
    let mut out: BTreeMap<Vec<(String, u32)>, Vec<&PointRead>> = BTreeMap::new();
    for p in points {
        let Some(c) = p
            .class(class)
            .filter(|c| c.runs() && c.params.rate.is_none())
        else {
            continue;
        };
        if !p.eligible_for_best(class) || c.counted(Direction::Total).is_none() {
            continue;
        }
        let key = p
            .classes
            .iter()
            .filter(|o| o.name() != class)
            .map(|o| (o.name().to_owned(), o.params.load))
            .collect();
        out.entry(key).or_default().push(p);
    }
    for line in out.values_mut() {
        line.sort_by_key(|p| outstanding(p, class));
        line.dedup_by_key(|p| outstanding(p, class));
    }
    out
}

fn outstanding(p: &PointRead, class: &str) -> u32 {
    p.class(class).map_or(0, |c| c.params.outstanding)
}

fn figure(c: &ClassRead, metric: CapMetric) -> f64 {
    c.counted(Direction::Total).map_or(0.0, |f| match metric {
        CapMetric::Iops => f.iops,
        CapMetric::Mbps => f.mbps,
    })
}

fn mean_latency(c: &ClassRead) -> f64 {
    c.counted(Direction::Total)
        .map_or(0.0, |f| f.latency.mean_ns)
}

/// The point's own per-second scatter: the coefficient of variation of its full seconds.
fn second_cv(c: &ClassRead, metric: CapMetric) -> f64 {
    let Some(r) = c.result else { return 0.0 };
    let v: Vec<f64> = full_seconds(&r.intervals)
        .map(|i| match metric {
            CapMetric::Iops => i.iops,
            CapMetric::Mbps => i.mbps,
        })
        .collect();
    if v.len() < 2 {
        return 0.0;
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    if mean <= 0.0 {
        return 0.0;
    }
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
    var.sqrt() / mean
}

/// The longest stretch of a line that is flat with latency in proportion to the load. A stretch
/// grows from each start while it stays flat with latency rising (a longer one is flat only if its
/// start is), so a line of n levels costs O(n²) at worst, each step O(1).
fn longest_flat<'v, 'a>(
    line: &[&'v PointRead<'a>],
    class: &str,
    metric: CapMetric,
) -> Option<Vec<&'v PointRead<'a>>> {
    let reads: Vec<&ClassRead> = line.iter().filter_map(|p| p.class(class)).collect();
    if reads.len() != line.len() {
        return None;
    }
    let x: Vec<f64> = reads.iter().map(|c| figure(c, metric)).collect();
    let w: Vec<f64> = reads.iter().map(|c| mean_latency(c)).collect();
    let o: Vec<f64> = reads
        .iter()
        .map(|c| f64::from(c.params.outstanding))
        .collect();
    let cv: Vec<f64> = reads.iter().map(|c| second_cv(c, metric)).collect();
    let mut best: Option<(usize, usize)> = None;
    for i in 0..line.len() {
        if x[i] <= 0.0 || w[i] <= 0.0 || o[i] <= 0.0 {
            continue;
        }
        let (mut lo, mut hi, mut noise) = (x[i], x[i], cv[i]);
        let mut end = i;
        for j in i + 1..line.len() {
            (lo, hi, noise) = (lo.min(x[j]), hi.max(x[j]), noise.max(cv[j]));
            let band = (2.0 * noise).clamp(FLAT_FLOOR, FLAT_CEILING);
            if lo <= 0.0 || hi / lo - 1.0 > band || w[j] <= w[j - 1] {
                break;
            }
            end = j;
        }
        let capped = (i + 1..=end).rev().find(|&j| {
            let load_growth = o[j] / o[i];
            let proportion = (w[j] / w[i]) / load_growth;
            load_growth >= MIN_LOAD_GROWTH && (1.0 / PROPORTION..=PROPORTION).contains(&proportion)
        });
        if let Some(j) = capped
            && best.is_none_or(|(a, b)| j - i > b - a)
        {
            best = Some((i, j));
        }
    }
    best.map(|(i, j)| line[i..=j].to_vec())
}

fn cap(stretch: &[&PointRead], class: &str, metric: CapMetric) -> RateCap {
    let reads: Vec<&ClassRead> = stretch.iter().filter_map(|p| p.class(class)).collect();
    let (mean, within) = mean_within(reads.iter().map(|c| figure(c, metric)));
    let (first, last) = (reads[0], reads[reads.len() - 1]);
    let latency_growth = mean_latency(last) / mean_latency(first);
    let load_growth = f64::from(last.params.outstanding) / f64::from(first.params.outstanding);
    let devices = device_caps(stretch, metric);
    let sweep: Vec<String> = stretch[0]
        .sweep()
        .iter()
        .map(|b| format!("{}={}", b.key, b.value))
        .collect();
    let sweep = sweep.join(" ");
    let (from_load, to_load) = (first.params.load, last.params.load);
    let message = message(
        class,
        &sweep,
        metric,
        (mean, within),
        (from_load, to_load),
        latency_growth,
        &devices,
    );
    RateCap {
        class: class.to_owned(),
        metric,
        points: stretch.iter().map(|p| p.id()).collect(),
        from_load,
        to_load,
        mean,
        within,
        latency_growth,
        load_growth,
        devices,
        sweep,
        message,
    }
}

fn mean_within(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let v: Vec<f64> = values.collect();
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let within = v.iter().map(|x| (x - mean).abs()).fold(0.0, f64::max);
    (mean, within)
}

/// Each device's rate over the stretch, where the points read several devices' counters.
fn device_caps(stretch: &[&PointRead], metric: CapMetric) -> Vec<DeviceCap> {
    let mut names: Vec<&str> = Vec::new();
    for p in stretch {
        for d in &p.result.devices {
            if !names.contains(&d.name.as_str()) {
                names.push(&d.name);
            }
        }
    }
    if names.len() < 2 {
        return Vec::new();
    }
    names
        .into_iter()
        .map(|name| {
            let rates = stretch.iter().filter_map(|p| {
                let d = p.result.devices.iter().find(|d| d.name == name)?;
                (d.span_ms > 0.0).then(|| match metric {
                    CapMetric::Iops => d.requests_per_s(),
                    CapMetric::Mbps => {
                        (d.read_bytes + d.write_bytes) as f64
                            / (d.span_ms / 1e3)
                            / f64::from(1 << 20)
                    }
                })
            });
            let (mean, within) = mean_within(rates);
            DeviceCap {
                device: name.to_owned(),
                mean,
                within,
            }
        })
        .collect()
}

fn rate(metric: CapMetric, v: f64) -> String {
    match metric {
        CapMetric::Iops => units::thousands(v),
        CapMetric::Mbps => units::number(v),
    }
}

fn message(
    class: &str,
    sweep: &str,
    metric: CapMetric,
    (mean, within): (f64, f64),
    (from, to): (u32, u32),
    latency_growth: f64,
    devices: &[DeviceCap],
) -> String {
    let what = match metric {
        CapMetric::Iops => "IOPS",
        CapMetric::Mbps => "MiB/s",
    };
    let at = if sweep.is_empty() {
        class.to_owned()
    } else {
        format!("{class} ({sweep})")
    };
    let mut s = format!(
        "{at}: {what} held at {} ± {} from load {from} to {to} while latency grew {latency_growth:.1}×: \
         a rate limit (provisioned {what} or a throttle), not the device's capacity",
        rate(metric, mean),
        rate(metric, within),
    );
    if !devices.is_empty() {
        let each: Vec<String> = devices
            .iter()
            .map(|d| {
                format!(
                    "{} {} ± {}",
                    d.device,
                    rate(metric, d.mean),
                    rate(metric, d.within)
                )
            })
            .collect();
        let sum: f64 = devices.iter().map(|d| d.mean).sum();
        s.push_str(&format!(
            "; per device {}: the sum of per-device caps, {} {what}",
            each.join(", "),
            rate(metric, sum)
        ));
    }
    s
}

#[cfg(test)]
#[path = "rate_cap_tests.rs"]
mod tests;
