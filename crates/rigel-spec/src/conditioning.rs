//! `[precondition]` and `run.steady`: getting a volume into the state SNIA's Solid State Storage
//! Performance Test Specification measures it in (filled, then steady), as a spec states it.

use super::diag::SpecError;
use super::expect::class_key;
use super::keys;
use super::model::{ClassSpec, PreconditionSpec, Sp, SteadySpec, SweepSpec};
use super::read::{Reader, size_of};
use super::tree::{Node, Table, Value};
use super::workload::access_of;
use rigel_expr::{self as expr, Access, Metric, Names, Size};
use std::time::Duration;

/// SNIA PTS: fill twice the capacity, sequentially, 128 KiB at a time.
pub const DEFAULT_PASSES: u64 = 2;
pub const DEFAULT_SIZE: u64 = 128 << 10;
pub const DEFAULT_DEPTH: u64 = 32;
pub const DEFAULT_PASS_LIMIT: Duration = Duration::from_secs(3600);
/// SNIA PTS: a window of 5 rounds, data excursion 20%, best-fit line excursion 10%.
pub const DEFAULT_ROUNDS: u64 = 5;
pub const DEFAULT_EXCURSION: f64 = 20.0;
pub const DEFAULT_SLOPE: f64 = 10.0;
pub const DEFAULT_MAX: Duration = Duration::from_secs(30 * 60);

const NAMES: Names = Names {
    targets: 1,
    cores: 1,
};

pub fn read_precondition(r: &mut Reader, root: &Table) -> Option<PreconditionSpec> {
    let t = r.table(root, "precondition")?;
    r.check_keys(t, "[precondition]", &keys::names(keys::PRECONDITION));
    let loc = root.get("precondition").map(|n| n.loc.clone())?;
    let int = |r: &mut Reader, name: &str, default: u64| match t.get(name) {
        Some(n) => Some(Sp::new(
            r.integer(n, &format!("`{name}`"), &NAMES)?,
            n.loc.clone(),
        )),
        None => Some(Sp::new(default, loc.clone())),
    };
    let passes = int(r, "passes", DEFAULT_PASSES);
    let depth = int(r, "depth", DEFAULT_DEPTH);
    let pattern = match t.get("pattern") {
        Some(n) => access_of(r, n),
        None => Some(Sp::new(Access::Sequential, loc.clone())),
    };
    let size = match t.get("size") {
        Some(n) => size_of(r, n, "a precondition size"),
        None => Some(Sp::new(Size(DEFAULT_SIZE), loc.clone())),
    };
    let pass_limit = match t.get("pass_limit") {
        Some(n) => duration(r, n, "`pass_limit`"),
        None => Some(Sp::new(DEFAULT_PASS_LIMIT, loc.clone())),
    };
    let read = match t.get("read") {
        Some(n) => Some(Sp::new(r.boolean(n, "`read`")?, n.loc.clone())),
        None => Some(Sp::new(false, loc.clone())),
    };
    Some(PreconditionSpec {
        read: read?,
        passes: passes?,
        pattern: pattern?,
        size: size?,
        depth: depth?,
        pass_limit: pass_limit?,
        loc,
    })
}

fn duration(r: &mut Reader, n: &Node, what: &str) -> Option<Sp<Duration>> {
    let bare = |i: i64| u64::try_from(i).ok().map(Duration::from_secs);
    r.parsed(
        n,
        what,
        "\"30m\" or \"90s\"",
        Some(&bare),
        expr::parse_duration,
    )
}

/// `run.steady`, an inline table in `[run]`.
pub fn read_steady(
    r: &mut Reader,
    root: &Table,
    classes: &[ClassSpec],
    sweep: &[SweepSpec],
    declared: &[String],
) -> Option<SteadySpec> {
    let Some(Value::Table(run)) = root.get("run").map(|n| &n.value) else {
        return None;
    };
    let node = run.get("steady")?;
    let Value::Table(t) = &node.value else {
        r.push(
            SpecError::at(
                &node.loc,
                format!("`steady` must be a table, found {}", node.value.kind()),
                "expected a table",
            )
            .hint("steady = { metric = \"small.iops\", rounds = 5, excursion = \"20%\", slope = \"10%\", max = \"30m\" }"),
        );
        return None;
    };
    r.check_keys(t, "run.steady", &keys::names(keys::STEADY));
    let loc = node.loc.clone();
    let metric = match t.get("metric") {
        Some(n) => read_metric(r, n, classes, sweep, declared),
        None => {
            r.push(
                SpecError::at(&loc, "run.steady needs `metric`", "in this table")
                    .hint("metric = \"small.iops\": the figure judged each round"),
            );
            None
        }
    };
    let rounds = match t.get("rounds") {
        Some(n) => r.integer(n, "`rounds`", &NAMES).and_then(|v| {
            if (2..=100).contains(&v) {
                return Some(Sp::new(v, n.loc.clone()));
            }
            r.push(
                SpecError::at(
                    &n.loc,
                    format!("a window of {v} rounds cannot show steady state"),
                    "this value",
                )
                .hint("a steady-state window is 2 to 100 rounds (SNIA: 5)"),
            );
            None
        }),
        None => Some(Sp::new(DEFAULT_ROUNDS, loc.clone())),
    };
    let excursion = percent(r, t.get("excursion"), DEFAULT_EXCURSION, &loc);
    let slope = percent(r, t.get("slope"), DEFAULT_SLOPE, &loc);
    let max = match t.get("max") {
        Some(n) => duration(r, n, "`max`"),
        None => Some(Sp::new(DEFAULT_MAX, loc.clone())),
    };
    Some(SteadySpec {
        metric: metric?,
        rounds: rounds?,
        excursion: excursion?,
        slope: slope?,
        max: max?,
    })
}

/// A class's figure, as `[expect]` names it, without a point selector (each round is one point).
fn read_metric(
    r: &mut Reader,
    n: &Node,
    classes: &[ClassSpec],
    sweep: &[SweepSpec],
    declared: &[String],
) -> Option<Sp<String>> {
    let (text, key) = class_key(r, n, "`metric`", classes, sweep, declared)?;
    if !matches!(key.metric, Metric::Class { .. }) || text.contains('@') {
        r.push(
            SpecError::at(&n.loc, "a steady-state metric is one class's figure", "this value")
                .hint("CLASS[.DIR].iops, .mbps, .latency.STAT or .service.STAT, with no @ selector: each round is the point itself"),
        );
        return None;
    }
    Some(Sp::new(text, n.loc.clone()))
}

/// `"20%"`: a share above 0% and at most 100%.
fn percent(
    r: &mut Reader,
    n: Option<&Node>,
    default: f64,
    loc: &super::source::Loc,
) -> Option<Sp<f64>> {
    let Some(n) = n else {
        return Some(Sp::new(default, loc.clone()));
    };
    let parsed = match &n.value {
        Value::Str(s) => s
            .trim()
            .strip_suffix('%')
            .and_then(|p| p.trim().parse::<f64>().ok()),
        _ => None,
    };
    match parsed {
        Some(p) if p > 0.0 && p <= 100.0 => Some(Sp::new(p, n.loc.clone())),
        _ => {
            r.push(
                SpecError::at(&n.loc, "not a share between 0% and 100%", "this value")
                    .hint("write it as a percentage of the window's mean, such as \"20%\""),
            );
            None
        }
    }
}
