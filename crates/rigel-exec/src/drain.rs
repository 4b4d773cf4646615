//! The end of a point for a worker: cancel what the kernel can, then wait for every I/O still in
//! flight, so no buffer is freed while the kernel may still write into it.

use super::ring::push_or_submit;
use super::slots::State;
use super::tag::Tag;
use super::tick::arm_tick;
use io_uring::{IoUring, opcode, types};
use std::time::{Duration, Instant};

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
            .user_data(Tag::Cancel.user_data());
        // SAFETY: a cancel request references no memory.
        unsafe { push_or_submit(&mut sq, &submitter, &cancel) };
    }
    while in_flight > 0 && Instant::now() < deadline {
        // Entries still queued in the SQ (not yet submitted) are submitted here and complete too.
        sq.sync();
        let _ = submitter.submit_and_wait(1);
        cq.sync();
        for cqe in &mut cq {
            match Tag::of(cqe.user_data()) {
                Tag::Tick => arm_tick(&mut sq, &submitter),
                Tag::Cancel => {}
                Tag::Think(_) | Tag::Idle(_) => in_flight -= 1,
                Tag::Io(i) if st.slots.get(i).is_some_and(|s| s.group.flushing()) => {
                    in_flight -= 1;
                    st.flush_abandoned(i);
                }
                Tag::Io(i) => {
                    in_flight -= 1;
                    st.verify_drained(i, cqe.result());
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
