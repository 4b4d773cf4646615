//! `[drain]`: run the first point's workload before measuring until a burst bucket runs out (a
//! sustained step down in throughput) or `limit` passes, so the measured figures are the
//! volume's baseline, not its burst.

use super::diag::SpecError;
use super::keys;
use super::model::{DrainSpec, Sp};
use super::read::Reader;
use super::read::describe;
use super::tree::{Node, Table, Value};
use rigel_expr as expr;
use std::time::Duration;

/// gp2's burst at full rate lasts about 30 minutes: a limit past it.
pub const DEFAULT_LIMIT: Duration = Duration::from_secs(40 * 60);

/// `declared`: the spec's classes, which `class` must name.
pub fn read_drain(r: &mut Reader, root: &Table, declared: &[String]) -> Option<DrainSpec> {
    let t = r.table(root, "drain")?;
    r.check_keys(t, "[drain]", &keys::names(keys::DRAIN));
    let loc = root.get("drain").map(|n| n.loc.clone())?;
    let limit = match t.get("limit") {
        Some(n) => duration(r, n),
        None => Some(Sp::new(DEFAULT_LIMIT, loc.clone())),
    };
    let load = t.get("load").map(|n| load(r, n));
    let class = t.get("class").map(|n| class(r, n, declared));
    Some(DrainSpec {
        limit: limit?,
        load: load.map_or(Some(None), |l| l.map(Some))?,
        class: class.map_or(Some(None), |c| c.map(Some))?,
        loc,
    })
}

/// A load of at least 1: a TOML integer (a count expression would be a second way to write one).
fn load(r: &mut Reader, n: &Node) -> Option<Sp<u32>> {
    let load = match &n.value {
        Value::Int(i) => u32::try_from(*i).ok().filter(|l| *l >= 1),
        _ => None,
    };
    if load.is_none() {
        r.push(
            SpecError::at(
                &n.loc,
                format!(
                    "the drain's `load` must be a whole number of at least 1, found {}",
                    describe(&n.value)
                ),
                "this value",
            )
            .hint(
                "outstanding I/Os, or streams for a sequential class, as a matrix level: load = 32",
            ),
        );
    }
    Some(Sp::new(load?, n.loc.clone()))
}

fn class(r: &mut Reader, n: &Node, declared: &[String]) -> Option<Sp<String>> {
    let name = r.string(n, "the drain's `class`")?;
    if !declared.contains(&name) {
        r.push(super::answers::unknown_class(n, &name, declared));
        return None;
    }
    Some(Sp::new(name, n.loc.clone()))
}

fn duration(r: &mut Reader, n: &Node) -> Option<Sp<Duration>> {
    let bare = |i: i64| u64::try_from(i).ok().map(Duration::from_secs);
    r.parsed(
        n,
        "`limit`",
        "\"40m\" or \"90s\"",
        Some(&bare),
        expr::parse_duration,
    )
}
