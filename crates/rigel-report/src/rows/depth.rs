//! What a point held below rigel: the depth kept against the load asked, and each block device's
//! requests, depth and busy time over the window (iostat's figures).

use rigel_expr::units;
use rigel_results::view::PointRead;
use serde::Serialize;

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

pub(super) fn depth_view(p: &PointRead) -> Option<DepthView> {
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

pub(super) fn device_view(d: &rigel_results::DeviceWindow) -> DeviceView {
    DeviceView {
        name: d.name.clone(),
        requests_per_s: d.requests_per_s(),
        mean_depth: d.mean_depth(),
        request_bytes: d.mean_request_bytes().map(|b| b.round() as u64),
        busy_pct: d.busy_share() * 100.0,
    }
}
