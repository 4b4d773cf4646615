//! `[run] sqpoll`: io_uring's kernel submission thread, as the plan carries it to the executor
//! and says it, and the rule that checks its keys where written.

use rigel_spec::{Engine, Spec, SpecError};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// io_uring's kernel submission thread (IORING_SETUP_SQPOLL): it takes each worker's queued
/// requests itself, polling the ring until it has been idle for `idle_ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SqPoll {
    /// The CPU the thread is pinned to (IORING_SETUP_SQ_AFF; absent: unpinned).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<u32>,
    pub idle_ms: u32,
}

impl SqPoll {
    /// `sqpoll (kernel submission thread on CPU 3, idle after 1s)`, as the plan and the results
    /// say it.
    pub fn describe(&self) -> String {
        let cpu = self
            .cpu
            .map_or("unpinned".to_string(), |c| format!("on CPU {c}"));
        format!(
            "sqpoll (a kernel submission thread per worker, {cpu}, asleep after {} idle)",
            rigel_expr::format_duration(std::time::Duration::from_millis(u64::from(self.idle_ms)))
        )
    }
}

/// `[run] sqpoll` with its settings, checked where written: the settings only beside
/// `sqpoll = true`, the idle time within 1 ms to 1 h, and every class on io_uring (`auto` is
/// io_uring wherever the kernel allows it), the only engine with a submission thread.
pub(crate) fn sqpoll(spec: &Spec, errors: &mut Vec<SpecError>) -> Option<SqPoll> {
    let r = &spec.run;
    let on = r.sqpoll.as_ref().is_some_and(|s| s.value);
    if !on {
        for (name, loc) in [
            ("sq_thread_cpu", r.sq_thread_cpu.as_ref().map(|s| &s.loc)),
            ("sq_thread_idle", r.sq_thread_idle.as_ref().map(|s| &s.loc)),
        ] {
            if let Some(loc) = loc {
                errors.push(
                    SpecError::at(
                        loc,
                        format!("`{name}` sets the submission thread of sqpoll, which is off"),
                        "without sqpoll = true",
                    )
                    .hint("add sqpoll = true to [run], or remove this key"),
                );
            }
        }
        return None;
    }
    let sqpoll_loc = &r.sqpoll.as_ref()?.loc;
    for c in &spec.classes {
        let asked = c.engine.as_ref().or(r.engine.as_ref());
        if let Some(e) = asked
            && !matches!(e.value, Engine::IoUring | Engine::Auto)
        {
            errors.push(
                SpecError::at(
                    sqpoll_loc,
                    format!(
                        "sqpoll is an io_uring option, and class `{}` runs on {}",
                        c.name.value, e.value
                    ),
                    "io_uring only",
                )
                .hint("set engine = \"io_uring\" (or \"auto\"), or remove sqpoll"),
            );
        }
    }
    let idle = r
        .sq_thread_idle
        .as_ref()
        .map_or(Duration::from_secs(1), |d| d.value);
    if let Some(d) = &r.sq_thread_idle
        && !(Duration::from_millis(1)..=Duration::from_secs(3600)).contains(&d.value)
    {
        errors.push(
            SpecError::at(
                &d.loc,
                "`sq_thread_idle` must be between 1ms and 1h",
                "out of range",
            )
            .hint("the kernel counts it in milliseconds; the default is 1s"),
        );
    }
    let cpu = match &r.sq_thread_cpu {
        Some(c) => match u32::try_from(c.value) {
            Ok(n) => Some(n),
            Err(_) => {
                errors.push(SpecError::at(
                    &c.loc,
                    "no CPU has this number",
                    "out of range",
                ));
                None
            }
        },
        None => None,
    };
    Some(SqPoll {
        cpu,
        idle_ms: idle.as_millis().min(u128::from(u32::MAX)) as u32,
    })
}
