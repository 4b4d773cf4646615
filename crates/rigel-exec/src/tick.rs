//! The timer request a worker keeps armed in its ring: it completes at least every 100 ms, so no
//! wait inside the kernel lasts longer and a stop request or a stalled I/O is seen in time.

use super::tag::{Tag, push_timeout};
use io_uring::{squeue, types};

/// A timer request kept armed in the ring completes at least this often, so no wait inside the
/// kernel lasts longer and a stop request is seen in time. (A timer request costs nothing per
/// I/O; a timeout argument on every wait would be copied in on every system call.)
static TICK: types::Timespec = types::Timespec::new().nsec(100_000_000);

/// Queues the timer request that bounds every wait.
pub(super) fn arm_tick(sq: &mut squeue::SubmissionQueue<'_>, submitter: &io_uring::Submitter<'_>) {
    // SAFETY: TICK is a static, valid for the life of the program.
    unsafe { push_timeout(sq, submitter, &TICK, Tag::Tick) };
}
