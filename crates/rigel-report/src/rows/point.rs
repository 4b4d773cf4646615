//! A point's view: its label, loads and `[sweep]` values, its outcome and timing, the devices and
//! depth it held, and its class rows (`row.rs`), as `points` and ORION's matrices list them.

use super::depth::{DepthView, DeviceView, depth_view, device_view};
use super::load::{LoadSweep, LoadView, loads_of, sweep_of};
use super::row::{Row, class_row};
use super::shared::Shared;
use rigel_results::CpuTime;
use rigel_results::view::ResultsView;
use serde::Serialize;
use std::collections::BTreeMap;

/// A point's view, shared by the top-level `points` and each ORION matrix's.
pub type Point = Shared<PointView>;

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
