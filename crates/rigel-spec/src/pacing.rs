//! A closed-loop class's pause between I/Os: `think = "200us"` (each slot waits that long after a
//! completion before its next I/O).

use super::diag::SpecError;
use super::model::Sp;
use super::read::Reader;
use super::tree::Node;
use rigel_expr as expr;

/// The longest think time or idle: a class that waits longer is not measuring storage.
const MAX_PAUSE_S: u64 = 60;

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
            .hint(format!("{key} = \"200us\"; leave it out for none")),
        );
        return false;
    }
    true
}
