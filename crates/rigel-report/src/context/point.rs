//! A point's view: its label, loads and `[sweep]` values, its outcome and timing, the devices and
//! depth it held, and its class rows (`row.rs`), as `points` and ORION's matrices list them.

use super::depth::{DepthView, depth_view, device_view};
use super::row::{Row, class_row};
use super::{DeviceView, Shared};
use rigel_expr::Direction;
use rigel_results::CpuTime;
use rigel_results::LatencyStats;
use rigel_results::view::{Figures, PointRead, ResultsView};
use serde::Serialize;
use std::collections::BTreeMap;

/// A point's view, shared by the top-level `points` and each ORION matrix's.
pub type Point = Shared<PointView>;

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

pub(super) fn dir_view(direction: Direction, f: Figures) -> DirView {
    DirView {
        direction: direction.name(),
        ios: f.ios,
        bytes: f.bytes,
        iops: f.iops,
        mbps: f.mbps,
        latency: f.latency,
    }
}

pub(super) fn loads_of(p: &PointRead) -> Vec<LoadView> {
    p.classes
        .iter()
        .map(|c| LoadView {
            class: c.name().to_string(),
            load: c.params.load,
        })
        .collect()
}

pub(super) fn sweep_of(p: &PointRead) -> Vec<LoadSweep> {
    sweep_views(p.sweep())
}

pub(super) fn sweep_views(sweep: &[rigel_plan::SweepBinding]) -> Vec<LoadSweep> {
    sweep
        .iter()
        .map(|b| LoadSweep {
            key: b.key.clone(),
            value: b.value.clone(),
        })
        .collect()
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
