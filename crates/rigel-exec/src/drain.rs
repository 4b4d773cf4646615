//! The end of a point for a worker: cancel what the kernel can, then wait for every I/O still in
//! flight, so no buffer is freed while the kernel may still write into it.

use super::ring::push_or_submit;
use super::slots::State;
use super::tick::{TICK_TAG, arm_tick};
use io_uring::{IoUring, opcode, types};
use std::time::{Duration, Instant};

/// user_data of the cancel request sent when a point ends.
const CANCEL_TAG: u64 = u64::MAX - 1;

/// Waits for every I/O still in flight (their results no longer count). False when some did not
/// complete within `limit`.
pub(super) fn drain(
    ring: &mut IoUring,
    st: &mut State<'_>,
    mut in_flight: usize,
    limit: Duration,
) -> bool {
    let deadline = Instant::now() + limit;
    let (submitter, mut sq, mut cq) = ring.split();
    if in_flight > 0 {
        // Ask the kernel to cancel what it can (I/O waiting in io-wq or on a file that may never
        // be ready); I/O already at the device completes normally. Needs 5.19; older kernels
        // answer with an error CQE and the drain simply waits.
        let cancel = opcode::AsyncCancel2::new(types::CancelBuilder::any())
            .build()
            .user_data(CANCEL_TAG);
        // SAFETY: a cancel request references no memory.
        unsafe { push_or_submit(&mut sq, &submitter, &cancel) };
    }
    while in_flight > 0 && Instant::now() < deadline {
        // Entries still queued in the SQ (not yet submitted) are submitted here and complete too.
        sq.sync();
        let _ = submitter.submit_and_wait(1);
        cq.sync();
        for cqe in &mut cq {
            match cqe.user_data() {
                TICK_TAG => arm_tick(&mut sq, &submitter),
                CANCEL_TAG => {}
                i if super::think::is_think(i) || super::burst::is_idle(i) => in_flight -= 1,
                i if st.slots.get(i as usize).is_some_and(|s| s.group.flushing()) => {
                    in_flight -= 1;
                    st.flush_abandoned(i as usize);
                }
                i => {
                    in_flight -= 1;
                    st.verify_drained(i as usize, cqe.result());
                }
            }
        }
        cq.sync();
    }
    for c in &mut st.classes {
        c.in_flight = 0;
    }
    st.thinking = 0;
    st.idling = 0;
    // A timer request still armed references no memory of ours (the kernel copied its
    // timespec); dropping the ring cancels it.
    in_flight == 0
}
