//! The context's points, rows and classes, built from the results model (`rigel_results::view`):
//! every row carries its class's effective parameters (after `[sweep]`), every direction's figures,
//! and the best points and headline follow the model's one rule.

use super::context::{access_text, mix_text};
use rigel_expr::units;
use rigel_expr::{Direction, LatencyStat, Stat};
use rigel_plan::ClassLoad;
use rigel_results::view::{self, ClassRead, Figures, PointRead, ResultsView};
use rigel_results::{CpuTime, Interval, LatencyStats};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A class row, shared: a point's `classes` and `c`, its class's `rows` and its group's `rows` hold
/// the same one (four copies of every row, per-second series included, held 100,000 points in
/// gigabytes).
pub type Row = Shared<ClassRow>;

/// A point's view, shared by the top-level `points` and each ORION matrix's.
pub type Point = Shared<PointView>;

/// A view shared by the lists that show it, serialized as the view itself (serde's `rc` feature
/// would rebuild every crate that uses serde).
#[derive(Debug)]
pub struct Shared<T>(pub Arc<T>);

impl<T> Shared<T> {
    pub fn new(v: T) -> Self {
        Shared(Arc::new(v))
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Serialize> Serialize for Shared<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// One direction's figures (histogram left out: it is in `doc`).
#[derive(Clone, Debug, Serialize)]
pub struct DirView {
    /// `total` (reads and writes together), `read` or `write`.
    pub direction: &'static str,
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    pub mbps: f64,
    pub latency: LatencyStats,
}

/// `small=4`: one class's load at a point.
#[derive(Clone, Debug, Serialize)]
pub struct LoadView {
    pub class: String,
    pub load: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoadSweep {
    pub key: String,
    pub value: String,
}

/// One class at one point: its effective parameters there and what it measured.
#[derive(Clone, Debug, Serialize)]
pub struct ClassRow {
    pub point: u32,
    pub label: String,
    pub loads: Vec<LoadView>,
    pub sweep: Vec<LoadSweep>,
    pub ok: bool,
    pub class: String,
    /// Effective parameters: as the point ran them, after `[sweep]`.
    pub size: u64,
    pub access: &'static str,
    pub mix: String,
    pub read_percent: u8,
    pub per_stream: u32,
    pub load: u32,
    pub outstanding: u32,
    /// Reads and writes together.
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    pub mbps: f64,
    pub latency: LatencyStats,
    /// Submission to completion; for a rate class `latency` is the response time (from the
    /// scheduled send time), for a closed-loop class both are the same.
    pub service: LatencyStats,
    /// Open loop only: requested against achieved rate.
    pub pace: Option<rigel_results::PaceResult>,
    pub read: Option<DirView>,
    pub write: Option<DirView>,
    /// The lines a report shows: `total`, `read` and `write` for a mix, else the one direction.
    pub dirs: Vec<DirView>,
    /// The per-second series of the measured window.
    pub intervals: Vec<Interval>,
    /// rigel's CPU time at the point (user + system) per I/O completed there, in µs.
    pub cpu_per_io_us: f64,
    /// A size mix: one line per size (empty for a class of one size).
    pub sizes: Vec<SizeView>,
    /// `durability = "fdatasync:N"` / `"fsync:N"`: the commits.
    pub commit: Option<CommitView>,
}

/// One size of a class's mix at a point: its share asked and achieved, and its own figures.
#[derive(Clone, Debug, Serialize)]
pub struct SizeView {
    pub size: u64,
    pub asked: f64,
    pub achieved: f64,
    pub ios: u64,
    pub iops: f64,
    pub mbps: f64,
    /// The response latency for a rate class.
    pub latency: LatencyStats,
    pub service: LatencyStats,
}

/// A grouped-durability class's commits at a point.
#[derive(Clone, Debug, Serialize)]
pub struct CommitView {
    /// `fdatasync:8`.
    pub durability: String,
    pub commits: u64,
    pub per_s: f64,
    /// From the group's first write's send time to the flush's completion.
    pub latency: LatencyStats,
    /// From its first submission: the same as `latency` in a closed loop.
    pub service: LatencyStats,
    /// The flushes alone.
    pub flush: LatencyStats,
}

#[derive(Clone, Debug, Serialize)]
pub struct PointView {
    pub id: u32,
    pub label: String,
    pub loads: Vec<LoadView>,
    /// The same loads keyed by class name (`p.load.small`).
    pub load: BTreeMap<String, u32>,
    pub sweep: Vec<LoadSweep>,
    pub ok: bool,
    /// The failure, when the point stopped on an I/O error.
    pub error: Option<String>,
    pub started: String,
    pub elapsed_s: f64,
    pub cpu: CpuTime,
    /// The block devices under the targets over the window (none on tmpfs or FUSE).
    pub devices: Vec<DeviceView>,
    /// The depth rigel held against the load asked and the devices' own (none in results
    /// written before rigel kept it, and in a fleet's merged point).
    pub depth: Option<DepthView>,
    /// The classes that ran at this point, in class order.
    pub classes: Vec<Row>,
    /// The same rows keyed by class name.
    pub c: BTreeMap<String, Row>,
}

/// The depth a point held: rigel's time-average in flight over its classes, the load asked (the
/// outstanding I/Os, or an open-loop class's cap), and the devices' mean depth summed.
#[derive(Clone, Debug, Serialize)]
pub struct DepthView {
    pub held: f64,
    pub asked: u32,
    /// Some class is open loop: `asked` is then a cap, not a depth kept.
    pub capped: bool,
    pub device: Option<f64>,
    /// `held 31.8 of 32; the device saw 30.9`.
    pub text: String,
}

fn depth_view(p: &PointRead) -> Option<DepthView> {
    let classes: Vec<&rigel_results::ClassResult> = p.running().filter_map(|c| c.result).collect();
    let held = classes
        .iter()
        .map(|c| c.depth_held)
        .sum::<Option<f64>>()
        .filter(|_| !classes.is_empty())?;
    let asked = classes.iter().map(|c| c.outstanding).sum();
    let capped = classes.iter().any(|c| c.pace.is_some());
    let devices = &p.result.devices;
    let device = (!devices.is_empty()).then(|| devices.iter().map(|d| d.mean_depth()).sum());
    let mut text = if capped {
        format!(
            "held {} with at most {asked} outstanding",
            units::depth(held)
        )
    } else {
        format!("held {} of {asked}", units::depth(held))
    };
    // Slots that think between I/Os hold fewer I/Os in flight than the load: Little's law holds
    // for the slots with the wait, load = IOPS × (mean latency + think achieved).
    let thinking: Vec<String> = classes
        .iter()
        .filter_map(|c| {
            let t = c.think?;
            let slots = c.total.iops * (c.total.latency.mean_ns + t.mean_ns) / 1e9;
            Some(format!(
                "{}: think {} asked, {} achieved, IOPS × (latency + think) = {} of {}",
                c.class,
                units::latency(t.asked_ns as f64),
                units::latency(t.mean_ns),
                units::depth(slots),
                c.outstanding
            ))
        })
        .collect();
    // A bursting class holds its depth only during its bursts: its cycle is a burst and its
    // idle, so IOPS × (mean burst + mean idle) is the I/Os of a burst.
    let bursting = classes.iter().filter_map(|c| {
        let b = c.burst?;
        let ios = c.total.iops * (b.mean_active_ns + b.mean_idle_ns) / 1e9;
        Some(format!(
            "{}: bursts of {} I/Os, idle {} asked; {} bursts of {:.1} I/Os in {} each, idle {} achieved, IOPS × (burst + idle) = {:.1} of {}",
            c.class,
            b.asked_ios,
            units::latency(b.asked_idle_ns as f64),
            b.bursts,
            b.mean_ios,
            units::latency(b.mean_active_ns),
            units::latency(b.mean_idle_ns),
            ios,
            b.asked_ios
        ))
    });
    let thinking: Vec<String> = thinking.into_iter().chain(bursting).collect();
    if !thinking.is_empty() {
        text.push_str(&format!(" ({})", thinking.join("; ")));
    }
    if let Some(d) = device {
        let who = if devices.len() == 1 {
            "the device"
        } else {
            "the devices together"
        };
        text.push_str(&format!("; {who} saw {}", units::depth(d)));
    }
    Some(DepthView {
        held,
        asked,
        capped,
        device,
        text,
    })
}

/// What one block device served in a point's window, as the results model derives it.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceView {
    pub name: String,
    pub requests_per_s: f64,
    /// Mean requests in flight (iostat's aqu-sz).
    pub mean_depth: f64,
    /// Mean bytes per request, none without requests.
    pub request_bytes: Option<u64>,
    /// Percent of the window with a request in flight (iostat's %util).
    pub busy_pct: f64,
}

fn device_view(d: &rigel_results::DeviceWindow) -> DeviceView {
    DeviceView {
        name: d.name.clone(),
        requests_per_s: d.requests_per_s(),
        mean_depth: d.mean_depth(),
        request_bytes: d.mean_request_bytes().map(|b| b.round() as u64),
        busy_pct: d.busy_share() * 100.0,
    }
}

/// The best point of some measure.
#[derive(Clone, Debug, Serialize)]
pub struct Best {
    pub class: String,
    pub value: f64,
    pub point: u32,
    pub label: String,
    pub loads: Vec<LoadView>,
    pub sweep: Vec<LoadSweep>,
}

/// A class in one `[sweep]` combination: its effective parameters and its rows there.
#[derive(Clone, Debug, Serialize)]
pub struct ClassGroup {
    pub sweep: Vec<LoadSweep>,
    /// `small: 4 KiB random, 70% read, 30% write (small.size=4KiB, small.mix=70% read)`.
    pub heading: String,
    pub size: u64,
    pub access: &'static str,
    pub mix: String,
    pub read_percent: u8,
    pub per_stream: u32,
    /// Reads and writes both: rows show `total`, `read` and `write` lines (`row.dirs`).
    pub mixed: bool,
    pub rows: Vec<Row>,
    pub best_iops: Option<Best>,
    pub best_mbps: Option<Best>,
    pub min_latency: Option<Best>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ClassView {
    pub name: String,
    /// As declared in `[class.NAME]` (a `[sweep]` may change them: see `groups` and `*_text`).
    pub size: u64,
    pub access: &'static str,
    pub mix: String,
    pub read_percent: u8,
    pub per_stream: u32,
    /// The values the class ran with over the whole plan: `4 KiB, 64 KiB`.
    pub size_text: String,
    pub access_text: String,
    pub mix_text: String,
    /// `small` or `large` when ORION's files map this class, else none.
    pub orion_role: Option<String>,
    /// The matrix levels of this class (0 included where the shape uses it).
    pub levels: Vec<u32>,
    /// Every finished point where this class ran, in run order.
    pub rows: Vec<Row>,
    /// The same rows per `[sweep]` combination (one group without a sweep).
    pub groups: Vec<ClassGroup>,
    pub best_iops: Option<Best>,
    pub best_mbps: Option<Best>,
    /// The point with the smallest mean latency.
    pub min_latency: Option<Best>,
}

/// ORION's headline: the large role's highest MB/s, the small role's highest IOPS and lowest mean
/// latency, over every finished point (the terminal and ORION's summary say the same).
#[derive(Clone, Debug, Serialize)]
pub struct Headline {
    pub max_iops: Option<Best>,
    pub max_mbps: Option<Best>,
    pub min_latency: Option<Best>,
}

fn dir_view(direction: Direction, f: Figures) -> DirView {
    DirView {
        direction: direction.name(),
        ios: f.ios,
        bytes: f.bytes,
        iops: f.iops,
        mbps: f.mbps,
        latency: f.latency,
    }
}

fn loads_of(p: &PointRead) -> Vec<LoadView> {
    p.classes
        .iter()
        .map(|c| LoadView {
            class: c.name().to_string(),
            load: c.params.load,
        })
        .collect()
}

fn sweep_of(p: &PointRead) -> Vec<LoadSweep> {
    sweep_views(p.sweep())
}

fn sweep_views(sweep: &[rigel_plan::SweepBinding]) -> Vec<LoadSweep> {
    sweep
        .iter()
        .map(|b| LoadSweep {
            key: b.key.clone(),
            value: b.value.clone(),
        })
        .collect()
}

fn class_row(p: &PointRead, c: &ClassRead) -> ClassRow {
    let prm = c.params;
    let total = c.figures(Direction::Total);
    let dir = |d: Direction| c.figures(d).map(|f| dir_view(d, f));
    let (read, write) = match c.result {
        Some(r) => (
            r.read.as_ref().and(dir(Direction::Read)),
            r.write.as_ref().and(dir(Direction::Write)),
        ),
        None => (None, None),
    };
    ClassRow {
        point: p.id(),
        label: p.label(),
        loads: loads_of(p),
        sweep: sweep_of(p),
        ok: p.ok,
        class: c.name().to_string(),
        size: prm.size,
        access: access_text(prm.access),
        mix: mix_text(&prm.mix),
        read_percent: prm.mix.read_percent,
        per_stream: prm.per_stream,
        load: prm.load,
        outstanding: prm.outstanding,
        ios: total.as_ref().map_or(0, |f| f.ios),
        bytes: total.as_ref().map_or(0, |f| f.bytes),
        iops: total.as_ref().map_or(0.0, |f| f.iops),
        mbps: total.as_ref().map_or(0.0, |f| f.mbps),
        service: total
            .as_ref()
            .map(|f| f.service.clone())
            .unwrap_or_default(),
        latency: total.map(|f| f.latency).unwrap_or_default(),
        pace: c.result.and_then(|r| r.pace.clone()),
        read,
        write,
        dirs: c.directions().iter().filter_map(|&d| dir(d)).collect(),
        intervals: c.result.map(|r| r.intervals.clone()).unwrap_or_default(),
        cpu_per_io_us: p.cpu_per_io_us(),
        sizes: size_views(c),
        commit: commit_view(c),
    }
}

fn size_views(c: &ClassRead) -> Vec<SizeView> {
    let Some(r) = c.result else {
        return Vec::new();
    };
    r.sizes
        .iter()
        .map(|s| {
            let f = c.size_figures(s.size, Direction::Total);
            SizeView {
                size: s.size,
                asked: s.asked,
                achieved: s.achieved,
                ios: s.ios,
                iops: f.as_ref().map_or(0.0, |f| f.iops),
                mbps: f.as_ref().map_or(0.0, |f| f.mbps),
                service: f.as_ref().map(|f| f.service.clone()).unwrap_or_default(),
                latency: f.map(|f| f.latency).unwrap_or_default(),
            }
        })
        .collect()
}

fn commit_view(c: &ClassRead) -> Option<CommitView> {
    let r = c.result?.commit.as_ref()?;
    let f = c.figures(Direction::Commit)?;
    Some(CommitView {
        durability: c
            .params
            .pattern
            .flush
            .map_or_else(String::new, |f| f.durability().to_string()),
        commits: r.commits,
        per_s: r.per_s,
        latency: f.latency,
        service: f.service,
        flush: r.flush.clone().within_extremes(),
    })
}

pub fn point_views(view: &ResultsView) -> Vec<Shared<PointView>> {
    view.points
        .iter()
        .map(|p| {
            let classes: Vec<Row> = p.running().map(|c| Row::new(class_row(p, c))).collect();
            Shared::new(PointView {
                id: p.id(),
                label: p.label(),
                loads: loads_of(p),
                load: p
                    .classes
                    .iter()
                    .map(|c| (c.name().to_string(), c.params.load))
                    .collect(),
                sweep: sweep_of(p),
                ok: p.ok,
                error: p.error(),
                started: p.result.started.clone(),
                elapsed_s: p.result.elapsed_s,
                cpu: p.result.cpu,
                devices: p.result.devices.iter().map(device_view).collect(),
                depth: depth_view(p),
                c: classes
                    .iter()
                    .map(|r| (r.class.clone(), r.clone()))
                    .collect(),
                classes,
            })
        })
        .collect()
}

fn best_view(b: view::Best) -> Best {
    Best {
        class: b.class.name().to_string(),
        value: b.value,
        point: b.point.id(),
        label: b.point.label(),
        loads: loads_of(b.point),
        sweep: sweep_of(b.point),
    }
}

type Bests = (Option<Best>, Option<Best>, Option<Best>);

/// The class's best IOPS, best MB/s and lowest mean latency among these points.
fn bests<'v, 'a: 'v>(points: &[&'v PointRead<'a>], class: &str) -> Bests {
    let of =
        |stat| view::best(points.iter().copied(), class, Direction::Total, stat).map(best_view);
    (
        of(Stat::Iops),
        of(Stat::Mbps),
        of(Stat::Latency(LatencyStat::Mean)),
    )
}

/// `small: 4 KiB random, 100% read` (with `, 4 per stream` when sequential), then the sweep values.
pub fn heading(class: &str, prm: &ClassLoad, sweep: &[LoadSweep]) -> String {
    let mut h = format!(
        "{class}: {} {}, {}",
        units::size(prm.size as f64),
        access_text(prm.access),
        mix_text(&prm.mix)
    );
    if prm.access == rigel_expr::Access::Sequential {
        h.push_str(&format!(", {} per stream", prm.per_stream));
    }
    if !sweep.is_empty() {
        let s: Vec<String> = sweep
            .iter()
            .map(|b| format!("{}={}", b.key, b.value))
            .collect();
        h.push_str(&format!(" ({})", s.join(", ")));
    }
    h
}

/// A class's I/O size at a point: `8 KiB`, or a size mix's range and mean by count
/// (`512 B–1 MiB mix, mean 31.6 KiB`; its shares are in the size-mix table).
fn size_text(c: &ClassLoad) -> String {
    match &c.pattern.sizes {
        Some(m) if !m.is_fixed() => {
            format!(
                "{}–{} mix, mean {}",
                units::size(m.smallest() as f64),
                units::size(m.largest() as f64),
                units::size(m.mean())
            )
        }
        _ => units::size(c.size as f64),
    }
}

/// Distinct values in first-seen order, joined: `4 KiB, 64 KiB`.
fn distinct(values: impl Iterator<Item = String>) -> String {
    let mut seen: Vec<String> = Vec::new();
    for v in values {
        if !seen.contains(&v) {
            seen.push(v);
        }
    }
    seen.join(", ")
}

/// Gives every row the same load columns (a table's header is taken from its first row): the
/// classes any row lists, in class order, 0 where a row's point leaves one idle. Points of many
/// classes list only those that run, so rows of one class may name different others.
fn same_load_columns(mut rows: Vec<Row>, order: &[rigel_plan::IoClass]) -> Vec<Row> {
    let named: std::collections::HashSet<&str> = rows
        .iter()
        .flat_map(|r| r.loads.iter().map(|l| l.class.as_str()))
        .collect();
    let columns: Vec<String> = order
        .iter()
        .filter(|c| named.contains(c.name.as_str()))
        .map(|c| c.name.clone())
        .collect();
    for r in &mut rows {
        // Most rows already list these columns: a row is copied only where its own differ.
        let same = r.loads.len() == columns.len()
            && r.loads.iter().zip(&columns).all(|(l, c)| &l.class == c);
        if same {
            continue;
        }
        let loads = columns
            .iter()
            .map(|class| LoadView {
                class: class.clone(),
                load: r
                    .loads
                    .iter()
                    .find(|l| &l.class == class)
                    .map_or(0, |l| l.load),
            })
            .collect();
        Arc::make_mut(&mut r.0).loads = loads;
    }
    rows
}

fn class_groups(view: &ResultsView, points: &[Shared<PointView>], class: &str) -> Vec<ClassGroup> {
    view.groups()
        .iter()
        .filter_map(|g| {
            let prm = view.params_in(g.sweep, class)?;
            let sweep = sweep_views(g.sweep);
            let rows: Vec<Row> = points
                .iter()
                .filter(|p| p.sweep == sweep)
                .filter_map(|p| p.c.get(class).cloned())
                .collect();
            let rows = same_load_columns(rows, &view.doc.plan().classes);
            let (best_iops, best_mbps, min_latency) = bests(&g.points, class);
            Some(ClassGroup {
                heading: heading(class, prm, &sweep),
                sweep,
                size: prm.size,
                access: access_text(prm.access),
                mix: mix_text(&prm.mix),
                read_percent: prm.mix.read_percent,
                per_stream: prm.per_stream,
                mixed: (1..100).contains(&prm.mix.read_percent),
                rows,
                best_iops,
                best_mbps,
                min_latency,
            })
        })
        .collect()
}

pub fn class_views(view: &ResultsView, points: &[Shared<PointView>]) -> Vec<ClassView> {
    let plan = &view.doc.plan();
    let all = view.all();
    plan.classes
        .iter()
        .map(|class| {
            let rows: Vec<Row> = points
                .iter()
                .filter_map(|p| p.c.get(&class.name).cloned())
                .collect();
            let rows = same_load_columns(rows, &plan.classes);
            let levels = plan
                .matrix
                .levels
                .iter()
                .find(|l| l.class == class.name)
                .map(|l| l.levels.clone())
                .unwrap_or_default();
            let planned = || {
                plan.points
                    .iter()
                    .flat_map(|p| p.classes.iter())
                    .filter(|c| c.class == class.name)
            };
            let (best_iops, best_mbps, min_latency) = bests(&all, &class.name);
            ClassView {
                name: class.name.clone(),
                size: class.size,
                access: access_text(class.access),
                mix: mix_text(&class.mix),
                read_percent: class.mix.read_percent,
                per_stream: class.per_stream,
                size_text: distinct(planned().map(size_text)),
                access_text: distinct(planned().map(|c| access_text(c.access).to_string())),
                mix_text: distinct(planned().map(|c| mix_text(&c.mix))),
                orion_role: view.roles.get(&class.name).cloned(),
                levels,
                groups: class_groups(view, points, &class.name),
                rows,
                best_iops,
                best_mbps,
                min_latency,
            }
        })
        .collect()
}

pub fn headline(view: &ResultsView) -> Headline {
    let h = view.headline(&view.all());
    Headline {
        max_iops: h.max_iops.map(best_view),
        max_mbps: h.max_mbps.map(best_view),
        min_latency: h.min_latency.map(best_view),
    }
}
