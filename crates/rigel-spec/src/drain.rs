//! `[drain]`: run the first point's workload before measuring until a burst bucket runs out (a
//! sustained step down in throughput) or `limit` passes, so the measured figures are the
//! volume's baseline, not its burst.

use super::keys;
use super::model::{DrainSpec, Sp};
use super::read::Reader;
use super::tree::{Node, Table};
use rigel_expr as expr;
use std::time::Duration;

/// gp2's burst at full rate lasts about 30 minutes: a limit past it.
pub const DEFAULT_LIMIT: Duration = Duration::from_secs(40 * 60);

pub fn read_drain(r: &mut Reader, root: &Table) -> Option<DrainSpec> {
    let t = r.table(root, "drain")?;
    r.check_keys(t, "[drain]", &keys::names(keys::DRAIN));
    let loc = root.get("drain").map(|n| n.loc.clone())?;
    let limit = match t.get("limit") {
        Some(n) => duration(r, n)?,
        None => Sp::new(DEFAULT_LIMIT, loc.clone()),
    };
    Some(DrainSpec { limit, loc })
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
