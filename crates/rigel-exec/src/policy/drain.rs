//! The end of a point for a worker: cancel what the engine can, then wait for every I/O still in
//! flight, so no buffer is freed while the kernel may still write into it.

use super::slots::State;
use super::tag::Tag;
use super::tick::arm_tick;
use crate::clock::Elapsed;
use crate::engines::Live;
use std::time::{Duration, Instant};

/// Waits for every I/O still in flight (their results no longer count). False when some did not
/// complete within `limit`.
pub(crate) fn drain(
    eng: &mut impl Live,
    st: &mut State<'_>,
    mut in_flight: usize,
    limit: Duration,
) -> bool {
    let deadline = Instant::now() + limit;
    if in_flight > 0 {
        eng.cancel(Tag::Cancel.user_data());
    }
    // The engine's waits need a clock: any will do here (no completion is timed).
    let clock = Elapsed::new(crate::clock::monotonic_ns());
    while in_flight > 0 && Instant::now() < deadline {
        // Requests still queued (not yet submitted) are submitted here and complete too. The
        // armed tick bounds the wait.
        let now = clock.ns();
        if eng.enter(&clock, now, in_flight, None).is_err() {
            // The engine cannot wait any more: what is in flight stays unproven (leaked).
            break;
        }
        eng.ready();
        while let Some(c) = eng.next() {
            match Tag::of(c.tag) {
                Tag::Tick => arm_tick(eng),
                Tag::Cancel => {}
                Tag::Think(_) | Tag::Idle(_) => in_flight -= 1,
                Tag::Io(i) if st.slots.get(i).is_some_and(|s| s.group.flushing()) => {
                    in_flight -= 1;
                    st.flush_abandoned(i);
                }
                Tag::Io(i) => {
                    in_flight -= 1;
                    st.verify_drained(i, c.result);
                }
            }
        }
        eng.consumed();
    }
    for c in &mut st.classes {
        c.in_flight = 0;
    }
    st.thinking = 0;
    st.idling = 0;
    // A tick still armed references only a static; the engine's close cancels it.
    in_flight == 0
}
