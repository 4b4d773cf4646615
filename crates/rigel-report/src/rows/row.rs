//! One class at one point (a row of the report's tables): its effective parameters after
//! `[sweep]`, every direction's figures, its per-second series, its size mix and its commits.

use super::load::{LoadSweep, LoadView, loads_of, sweep_of};
use super::shared::Shared;
use crate::names::{access_text, mix_text};
use rigel_expr::Direction;
use rigel_results::view::{ClassRead, Figures, PointRead};
use rigel_results::{Interval, LatencyStats};
use serde::Serialize;

/// A class row, shared: a point's `classes` and `c`, its class's `rows` and its group's `rows` hold
/// the same one (four copies of every row, per-second series included, held 100,000 points in
/// gigabytes).
pub type Row = Shared<ClassRow>;

/// One class at one point: its effective parameters there and what it measured.
#[derive(Clone, Debug, Serialize)]
pub struct ClassRow {
    pub point: u32,
    pub label: String,
    pub loads: Vec<LoadView>,
    pub sweep: Vec<LoadSweep>,
    pub ok: bool,
    /// The row may be a headline: the point finished whole (not partial), it is not a search
    /// trial that failed its target, and the class achieved its rate where it had one.
    pub counted: bool,
    pub class: String,
    /// Effective parameters: as the point ran them, after `[sweep]`.
    pub size: u64,
    /// The size most of its I/Os take (`size` without a mix): what the class is read as.
    pub io_size: u64,
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

/// One direction's figures (histogram left out: it is in `doc`).
#[derive(Clone, Debug, Serialize)]
pub struct DirView {
    /// `total` (reads, writes and trims together), `read`, `write` or `trim`.
    pub direction: &'static str,
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    pub mbps: f64,
    pub latency: LatencyStats,
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

/// A trimming class's discards (`ClassResult::trim`), a line of their own beside its reads and
/// writes.
fn trim_view(t: &rigel_results::DirStats) -> DirView {
    DirView {
        direction: "trim",
        ios: t.ios,
        bytes: t.bytes,
        iops: t.iops,
        mbps: t.mbps,
        latency: t.latency.clone(),
    }
}

pub(super) fn class_row(p: &PointRead, c: &ClassRead) -> ClassRow {
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
        counted: p.ok && p.eligible_for_best(c.name()),
        class: c.name().to_string(),
        size: prm.size,
        io_size: prm.pattern.common_size(prm.size),
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
        dirs: c
            .directions()
            .iter()
            .filter_map(|&d| dir(d))
            .chain(c.result.and_then(|r| r.trim.as_ref()).map(trim_view))
            .collect(),
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
