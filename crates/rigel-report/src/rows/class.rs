//! A class's view: its parameters as declared and as run over the plan, its rows (every point where
//! it ran, with the same load columns), its `[sweep]` groups and its best points.

use super::best::{Best, bests};
use super::load::{LoadSweep, LoadView, sweep_views};
use super::point::PointView;
use super::row::Row;
use super::shared::Shared;
use crate::names::{access_text, mix_text};
use rigel_expr::units;
use rigel_plan::ClassLoad;
use rigel_results::view::ResultsView;
use serde::Serialize;
use std::sync::Arc;

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

/// `small: 4 KiB random, 100% read` (with `, 4 per stream` when sequential), then the sweep values;
/// a size mix is named as a mix (`8 KiB–1 MiB mix, mean 59.6 KiB`), not by its largest size.
pub fn heading(class: &str, prm: &ClassLoad, sweep: &[LoadSweep]) -> String {
    let mut h = format!(
        "{class}: {} {}, {}",
        size_text(prm),
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
                // A trimming class shows its trims on a line of their own.
                mixed: (1..100).contains(&prm.mix.read_percent) || prm.mix.trims(),
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
