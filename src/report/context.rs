//! The template context: the results document plus views that make reports easy to write (points
//! flattened per class, per-class tables, the headline, run facts). Every template, built-in or a
//! user's, gets this same context; docs/report-context.md documents it.

use crate::expr::{Access, Mix};
use crate::stats::{
    ClassResult, CpuTime, DirStats, Interval, LatencyStats, PointResult, PointStatus, ResultsDoc,
};
use serde::Serialize;
use std::collections::BTreeMap;

/// The renderer's own facts.
#[derive(Clone, Debug, Serialize)]
pub struct RigelInfo {
    pub version: &'static str,
}

/// Facts about the run, gathered from the document and its plan.
#[derive(Clone, Debug, Serialize)]
pub struct RunView {
    pub name: String,
    pub description: String,
    /// The command line as one shell-quoted string.
    pub command: String,
    pub started: String,
    pub finished: String,
    /// `YYYY-MM-DD HH:MM` in the start time's own offset, and that offset.
    pub date: String,
    /// Every planned point finished and the run was closed (`finished` set).
    pub complete: bool,
    pub planned_points: usize,
    pub finished_points: usize,
    pub failed_points: usize,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub estimated_seconds: u64,
    pub layout: String,
    pub stripe: u64,
    pub seed: u64,
    pub direct: bool,
    pub workers: u32,
    pub shape: String,
}

/// One class's figures for one direction (histogram left out: it is in `doc`).
#[derive(Clone, Debug, Serialize)]
pub struct DirView {
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

/// One class at one point: its parameters there and what it measured.
#[derive(Clone, Debug, Serialize)]
pub struct ClassRow {
    pub point: u32,
    pub label: String,
    pub loads: Vec<LoadView>,
    pub sweep: Vec<LoadSweep>,
    pub ok: bool,
    pub class: String,
    pub size: u64,
    pub load: u32,
    pub outstanding: u32,
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    pub mbps: f64,
    pub latency: LatencyStats,
    pub read: Option<DirView>,
    pub write: Option<DirView>,
    /// The per-second series of the measured window.
    pub intervals: Vec<Interval>,
    /// rigel's CPU time at the point (user + system) per I/O completed there, in µs.
    pub cpu_per_io_us: f64,
}

#[derive(Clone, Debug, Serialize)]
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
    /// The classes that ran at this point, in class order.
    pub classes: Vec<ClassRow>,
    /// The same rows keyed by class name.
    pub c: BTreeMap<String, ClassRow>,
}

/// The best point of some measure.
#[derive(Clone, Debug, Serialize)]
pub struct Best {
    pub class: String,
    pub value: f64,
    pub point: u32,
    pub label: String,
    pub loads: Vec<LoadView>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ClassView {
    pub name: String,
    pub size: u64,
    pub access: String,
    /// `100% read`, `70% read, 30% write`, `100% write`.
    pub mix: String,
    pub read_percent: u8,
    pub per_stream: u32,
    /// `small` or `large` when ORION's files map this class, else none.
    pub orion_role: Option<String>,
    /// The matrix levels of this class (0 included where the shape uses it).
    pub levels: Vec<u32>,
    /// Every finished point where this class ran, in run order.
    pub rows: Vec<ClassRow>,
    pub best_iops: Option<Best>,
    pub best_mbps: Option<Best>,
    /// The point with the smallest mean latency.
    pub min_latency: Option<Best>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Headline {
    pub max_iops: Option<Best>,
    pub max_mbps: Option<Best>,
    pub min_latency: Option<Best>,
}

pub fn mix_text(mix: &Mix) -> String {
    match mix.read_percent {
        100 => "100% read".to_string(),
        0 => "100% write".to_string(),
        r => format!("{r}% read, {}% write", 100 - r),
    }
}

pub fn access_text(access: Access) -> &'static str {
    match access {
        Access::Random => "random",
        Access::Sequential => "sequential",
    }
}

/// Joins a command line so that a shell would split it back the same way.
pub fn shell_join(args: &[String]) -> String {
    let quote = |a: &String| {
        let plain = !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%^".contains(c));
        if plain {
            a.clone()
        } else {
            format!("'{}'", a.replace('\'', r"'\''"))
        }
    };
    args.iter().map(quote).collect::<Vec<_>>().join(" ")
}

pub fn run_view(doc: &ResultsDoc) -> RunView {
    let plan = &doc.plan;
    let failed = doc.points.iter().filter(|p| !is_ok(p)).count();
    let date = chrono::DateTime::parse_from_rfc3339(&doc.started)
        .map(|t| t.format("%Y-%m-%d %H:%M UTC%:z").to_string())
        .unwrap_or_else(|_| doc.started.clone());
    RunView {
        name: plan.name.clone(),
        description: plan.description.clone(),
        command: shell_join(&doc.command),
        started: doc.started.clone(),
        finished: doc.finished.clone(),
        date,
        complete: !doc.finished.is_empty() && doc.points.len() >= plan.points.len(),
        planned_points: plan.points.len(),
        finished_points: doc.points.len(),
        failed_points: failed,
        duration_s: plan.run.duration_ms as f64 / 1000.0,
        warmup_s: plan.run.warmup_ms as f64 / 1000.0,
        estimated_seconds: plan.estimated_seconds,
        layout: enum_text(&plan.volume.layout),
        stripe: plan.volume.stripe,
        seed: plan.run.seed,
        direct: plan.run.direct,
        workers: plan.run.workers,
        shape: enum_text(&plan.matrix.shape),
    }
}

/// The serde name of a unit enum variant (`concat`, `basic`).
fn enum_text<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

pub fn is_ok(p: &PointResult) -> bool {
    matches!(p.status, PointStatus::Ok)
}

fn dir_view(d: &DirStats) -> DirView {
    DirView {
        ios: d.ios,
        bytes: d.bytes,
        iops: d.iops,
        mbps: d.mbps,
        latency: d.latency.clone(),
    }
}

fn loads_of(p: &PointResult) -> Vec<LoadView> {
    p.point
        .classes
        .iter()
        .map(|c| LoadView {
            class: c.class.clone(),
            load: c.load,
        })
        .collect()
}

fn class_row(p: &PointResult, c: &ClassResult) -> ClassRow {
    let planned = p.point.classes.iter().find(|l| l.class == c.class);
    ClassRow {
        point: p.point.id,
        label: p.point.label(),
        loads: loads_of(p),
        sweep: sweep_of(p),
        ok: is_ok(p),
        class: c.class.clone(),
        size: c.size,
        load: planned.map_or(c.outstanding, |l| l.load),
        outstanding: c.outstanding,
        ios: c.total.ios,
        bytes: c.total.bytes,
        iops: c.total.iops,
        mbps: c.total.mbps,
        latency: c.total.latency.clone(),
        read: c.read.as_ref().map(dir_view),
        write: c.write.as_ref().map(dir_view),
        intervals: c.intervals.clone(),
        cpu_per_io_us: cpu_per_io_us(p),
    }
}

/// The point's CPU time over every I/O that completed at it (all classes: CPU is per process).
fn cpu_per_io_us(p: &PointResult) -> f64 {
    let ios: u64 = p.classes.iter().map(|c| c.total.ios).sum();
    if ios == 0 {
        return 0.0;
    }
    (p.cpu.user_s + p.cpu.system_s) * 1e6 / ios as f64
}

fn sweep_of(p: &PointResult) -> Vec<LoadSweep> {
    p.point
        .sweep
        .iter()
        .map(|b| LoadSweep {
            key: b.key.clone(),
            value: b.value.clone(),
        })
        .collect()
}

/// The classes that ran at a point: a result with I/Os in flight.
fn active_results(p: &PointResult) -> impl Iterator<Item = &ClassResult> {
    p.classes.iter().filter(|c| c.outstanding > 0)
}

pub fn point_views(doc: &ResultsDoc) -> Vec<PointView> {
    doc.points
        .iter()
        .map(|p| {
            let classes: Vec<ClassRow> = active_results(p).map(|c| class_row(p, c)).collect();
            let error = match &p.status {
                PointStatus::Ok => None,
                PointStatus::Failed { error } => Some(format!(
                    "{} at offset {} on {} (errno {})",
                    error.message, error.offset, error.target, error.errno
                )),
            };
            PointView {
                id: p.point.id,
                label: p.point.label(),
                loads: loads_of(p),
                load: p
                    .point
                    .classes
                    .iter()
                    .map(|c| (c.class.clone(), c.load))
                    .collect(),
                sweep: sweep_of(p),
                ok: is_ok(p),
                error,
                started: p.started.clone(),
                elapsed_s: p.elapsed_s,
                cpu: p.cpu,
                c: classes
                    .iter()
                    .map(|r| (r.class.clone(), r.clone()))
                    .collect(),
                classes,
            }
        })
        .collect()
}

fn best_by(rows: &[ClassRow], value: impl Fn(&ClassRow) -> f64, lowest: bool) -> Option<Best> {
    let better = |a: f64, b: f64| if lowest { a < b } else { a > b };
    let mut best: Option<&ClassRow> = None;
    for r in rows.iter().filter(|r| r.ok && r.ios > 0) {
        if best.is_none_or(|b| better(value(r), value(b))) {
            best = Some(r);
        }
    }
    best.map(|r| Best {
        class: r.class.clone(),
        value: value(r),
        point: r.point,
        label: r.label.clone(),
        loads: r.loads.clone(),
    })
}

pub fn class_views(
    doc: &ResultsDoc,
    points: &[PointView],
    roles: &BTreeMap<String, String>,
) -> Vec<ClassView> {
    doc.plan
        .classes
        .iter()
        .map(|class| {
            let rows: Vec<ClassRow> = points
                .iter()
                .filter_map(|p| p.c.get(&class.name).cloned())
                .collect();
            let levels = doc
                .plan
                .matrix
                .levels
                .iter()
                .find(|l| l.class == class.name)
                .map(|l| l.levels.clone())
                .unwrap_or_default();
            ClassView {
                name: class.name.clone(),
                size: class.size,
                access: access_text(class.access).to_string(),
                mix: mix_text(&class.mix),
                read_percent: class.mix.read_percent,
                per_stream: class.per_stream,
                orion_role: roles.get(&class.name).cloned(),
                levels,
                best_iops: best_by(&rows, |r| r.iops, false),
                best_mbps: best_by(&rows, |r| r.mbps, false),
                min_latency: best_by(&rows, |r| r.latency.mean_ns, true),
                rows,
            }
        })
        .collect()
}

pub fn headline(classes: &[ClassView]) -> Headline {
    let pick = |get: fn(&ClassView) -> Option<&Best>, lowest: bool| {
        classes
            .iter()
            .filter_map(get)
            .fold(None::<&Best>, |acc, b| match acc {
                Some(a) if (lowest && a.value <= b.value) || (!lowest && a.value >= b.value) => {
                    Some(a)
                }
                _ => Some(b),
            })
            .cloned()
    };
    Headline {
        max_iops: pick(|c| c.best_iops.as_ref(), false),
        max_mbps: pick(|c| c.best_mbps.as_ref(), false),
        min_latency: pick(|c| c.min_latency.as_ref(), true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_join_quotes_what_a_shell_would_split() {
        let args = [
            "rigel",
            "run",
            "my spec.toml",
            "--set",
            "lun=/dev/sdb",
            "it's",
        ]
        .map(String::from);
        assert_eq!(
            shell_join(&args),
            r"rigel run 'my spec.toml' --set lun=/dev/sdb 'it'\''s'"
        );
    }

    #[test]
    fn mix_text_names_both_directions() {
        assert_eq!(mix_text(&Mix { read_percent: 70 }), "70% read, 30% write");
        assert_eq!(mix_text(&Mix::READ), "100% read");
        assert_eq!(mix_text(&Mix { read_percent: 0 }), "100% write");
    }
}
