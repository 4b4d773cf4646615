//! A closed-loop class's pauses: `think = "200us"` (each slot waits that long after a completion
//! before its next I/O) and `burst = { ios = 64, idle = "10ms" }` (bursts of I/Os apart by an idle
//! time).

use super::diag::SpecError;
use super::keys;
use super::model::{BurstSpec, Sp};
use super::read::Reader;
use super::tree::{Node, Value};
use rigel_expr as expr;

/// The longest think time or idle: a class that waits longer is not measuring storage.
const MAX_PAUSE_S: u64 = 60;

/// The most I/Os of one burst: more is a steady load, not a burst.
pub const MAX_BURST_IOS: u64 = 1_000_000;

/// `think = "200us"`.
pub(super) fn think_of(r: &mut Reader, n: &Node) -> Option<Sp<std::time::Duration>> {
    let d = super::read::duration_of(r, n, "a think time")?;
    pause_in_range(r, n, d.value, "think").then_some(d)
}

fn pause_in_range(r: &mut Reader, n: &Node, d: std::time::Duration, key: &str) -> bool {
    if d.is_zero() || d.as_secs() >= MAX_PAUSE_S {
        r.push(
            SpecError::at(
                &n.loc,
                format!(
                    "`{key}` must be above 0 and under {MAX_PAUSE_S} s, found {}",
                    expr::format_duration(d)
                ),
                "here",
            )
            .hint(format!("{key} = \"200us\"")),
        );
        return false;
    }
    true
}

/// `burst = { ios = 64, idle = "10ms" }`: both keys required, `ios` from 1 to
/// [`MAX_BURST_IOS`], `idle` as a think time.
pub(super) fn burst_of(r: &mut Reader, n: &Node, names: &expr::Names) -> Option<Sp<BurstSpec>> {
    const EXAMPLE: &str = "burst = { ios = 64, idle = \"10ms\" }";
    let Value::Table(t) = &n.value else {
        r.push(
            SpecError::at(
                &n.loc,
                format!("`burst` must be a table, found {}", n.value.kind()),
                "expected a table",
            )
            .hint(EXAMPLE),
        );
        return None;
    };
    r.check_keys(t, "burst", &keys::names(keys::BURST));
    let mut missing = |key: &str| {
        r.push(
            SpecError::at(&n.loc, format!("`burst` needs `{key}`"), "in this table").hint(EXAMPLE),
        );
    };
    let (ios_node, idle_node) = (t.get("ios"), t.get("idle"));
    if ios_node.is_none() {
        missing("ios");
    }
    if idle_node.is_none() {
        missing("idle");
    }
    let ios = ios_node.and_then(|i| {
        let v = r.integer(i, "`ios`", names)?;
        if !(1..=MAX_BURST_IOS).contains(&v) {
            r.push(
                SpecError::at(
                    &i.loc,
                    format!("a burst has 1 to {MAX_BURST_IOS} I/Os, found {v}"),
                    "this count",
                )
                .hint(EXAMPLE),
            );
            return None;
        }
        Some(Sp::new(v as u32, i.loc.clone()))
    });
    let idle = idle_node.and_then(|i| {
        let d = super::read::duration_of(r, i, "an idle time")?;
        pause_in_range(r, i, d.value, "idle").then_some(d)
    });
    Some(Sp::new(
        BurstSpec {
            ios: ios?,
            idle: idle?,
        },
        n.loc.clone(),
    ))
}
