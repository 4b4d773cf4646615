//! The fleet part of the template context: each host's figures at the headline points (so a slow
//! host stands out), a bar chart of them, and the points left partial.

use super::rows::Headline;
use crate::chart::bars::{Bar, hbars};
use rigel_expr::units;
use rigel_results::{PointResult, ResultsDoc};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct FleetView {
    pub ranks: u32,
    /// Hosts that took part (not left out by the merge).
    pub hosts: usize,
    /// Hosts the merge left out, with why.
    pub excluded: Vec<String>,
    /// One table per headline point (max IOPS, max MB/s, min latency), once per point.
    pub tables: Vec<HostTable>,
    /// `point N (label): why`, for every partial point.
    pub partial: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct HostTable {
    /// `Max IOPS`, …
    pub title: String,
    pub point: u32,
    pub label: String,
    pub class: String,
    pub overlap_pct: f64,
    pub rows: Vec<HostRow>,
    /// A horizontal bar chart of the hosts' IOPS (SVG).
    pub svg: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct HostRow {
    pub rank: u32,
    pub host: String,
    pub ok: bool,
    pub iops: f64,
    pub mbps: f64,
    pub mean_ns: f64,
    pub p99_ns: u64,
    /// Share of the fleet's IOPS, percent; a text bar for Markdown.
    pub share_pct: f64,
    pub bar: String,
    /// This host's window started this long after the earliest host's (ms).
    pub start_lag_ms: f64,
}

pub fn fleet_view(doc: &ResultsDoc, headline: &Headline) -> Option<FleetView> {
    let fleet = doc.fleet()?;
    let picks = [
        ("Max IOPS", headline.max_iops.as_ref()),
        ("Max MiB/s", headline.max_mbps.as_ref()),
        ("Min latency", headline.min_latency.as_ref()),
    ];
    let mut tables: Vec<HostTable> = Vec::new();
    for (title, best) in picks {
        let Some(best) = best else { continue };
        if let Some(t) = tables.iter_mut().find(|t| t.point == best.point) {
            t.title = format!("{}, {title}", t.title);
            continue;
        }
        if let Some(p) = doc.points().iter().find(|p| p.point.id == best.point) {
            tables.extend(host_table(title, p, &best.class));
        }
    }
    Some(FleetView {
        ranks: fleet.ranks,
        hosts: fleet.hosts.iter().filter(|h| h.excluded.is_none()).count(),
        excluded: fleet
            .hosts
            .iter()
            .filter_map(|h| {
                Some(format!(
                    "rank {} {}: {}",
                    h.rank,
                    h.hostname,
                    h.excluded.as_ref()?
                ))
            })
            .collect(),
        tables,
        partial: doc
            .points()
            .iter()
            .filter_map(|p| {
                let why = p.partial.as_ref()?;
                Some(format!("point {} ({}): {why}", p.point.id, p.point.label()))
            })
            .collect(),
    })
}

fn host_table(title: &str, p: &PointResult, class: &str) -> Option<HostTable> {
    let fp = p.fleet.as_ref()?;
    // A spill that cannot be read back leaves the table out; the summed figures stand.
    let per_rank = fp.per_rank.load().ok()?;
    let total: f64 = per_rank
        .iter()
        .filter_map(|r| r.classes.iter().find(|c| c.class == class))
        .map(|c| c.iops)
        .sum();
    let earliest = per_rank
        .iter()
        .filter_map(|r| r.window.map(|w| w.start_ns))
        .min()
        .unwrap_or(0);
    let rows: Vec<HostRow> = per_rank
        .iter()
        .map(|r| {
            let c = r.classes.iter().find(|c| c.class == class);
            let iops = c.map_or(0.0, |c| c.iops);
            let share_pct = if total > 0.0 {
                iops / total * 100.0
            } else {
                0.0
            };
            let width = per_rank.len().max(1) as f64;
            HostRow {
                rank: r.rank,
                host: r.hostname.clone(),
                ok: r.ok,
                iops,
                mbps: c.map_or(0.0, |c| c.mbps),
                mean_ns: c.map_or(0.0, |c| c.mean_ns),
                p99_ns: c.map_or(0, |c| c.p99_ns),
                share_pct,
                // 20 characters for a host with its fair share, so a slow one stands out.
                bar: "█".repeat((share_pct * width / 5.0).round().clamp(0.0, 40.0) as usize),
                start_lag_ms: r
                    .window
                    .map_or(0.0, |w| w.start_ns.saturating_sub(earliest) as f64 / 1e6),
            }
        })
        .collect();
    Some(HostTable {
        title: title.to_string(),
        point: p.point.id,
        label: p.point.label(),
        class: class.to_string(),
        overlap_pct: fp.overlap_pct,
        svg: bars(&rows),
        rows,
    })
}

/// Horizontal bars of the hosts' IOPS, longest = full width, failed hosts in the second colour.
fn bars(rows: &[HostRow]) -> String {
    let labels: Vec<String> = rows
        .iter()
        .map(|r| format!("{} {}", r.rank, r.host))
        .collect();
    let bars: Vec<Bar> = rows
        .iter()
        .zip(&labels)
        .map(|(r, label)| Bar {
            label,
            value: r.iops,
            failed: !r.ok,
        })
        .collect();
    hbars("IOPS per host", &bars, units::iops)
}
