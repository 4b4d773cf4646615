//! `burst = { ios = 64, idle = "10ms" }` in the plan: checked against what else paces the class.
//! A burst is a closed loop's: its I/Os go back to back at the class's depth, and its pause is
//! the idle time, so a rate, a think time or a flush per N writes beside it is refused.

use rigel_spec::{ClassSpec, Spec, SpecError};
use serde::{Deserialize, Serialize};

/// A class's bursts: `ios` I/Os as fast as the depth allows, then nothing for `idle_ns` after
/// the last of them completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Burst {
    pub ios: u32,
    pub idle_ns: u64,
}

/// `burst`, checked: closed loop, no think time, no grouped flushes, an idle shorter than the
/// measured window.
pub(crate) fn burst(spec: &Spec, class: &ClassSpec, errors: &mut Vec<SpecError>) -> Option<Burst> {
    let b = class.burst.as_ref()?;
    let name = &class.name.value;
    let refuse = |what: String, label: &str, hint: &str| {
        SpecError::at(&b.loc, what, label.to_owned()).hint(hint.to_owned())
    };
    let refused = if class.rate.is_some() {
        Some(refuse(
            format!("class `{name}` has a rate: `burst` is for closed-loop classes"),
            "on an open-loop class",
            "a burst issues as fast as the class's depth allows: remove `rate`, or `burst`",
        ))
    } else if class.think.is_some() {
        Some(refuse(
            format!("class `{name}` thinks: a burst's I/Os go back to back, its pause is `idle`"),
            "beside `think`",
            "keep one of `think` and `burst`, or give each a class of its own",
        ))
    } else if class
        .durability
        .as_ref()
        .is_some_and(|d| d.value.flush_every().is_some())
    {
        Some(refuse(
            format!("class `{name}` flushes every N writes: its flushes would straddle its bursts"),
            "beside a grouped durability",
            "use durability = \"dsync\" with `burst` (each write durable), or remove `burst`",
        ))
    } else if b.value.idle.value >= spec.run.duration.value {
        Some(
            SpecError::at(
                &b.value.idle.loc,
                format!(
                    "an idle of {} is not under run.duration ({}): a window could hold no burst",
                    rigel_expr::format_duration(b.value.idle.value),
                    rigel_expr::format_duration(spec.run.duration.value)
                ),
                "this idle",
            )
            .hint("shorten the idle, or lengthen run.duration"),
        )
    } else {
        None
    };
    if let Some(e) = refused {
        errors.push(e);
        return None;
    }
    Some(Burst {
        ios: b.value.ios.value,
        idle_ns: b.value.idle.value.as_nanos() as u64,
    })
}
