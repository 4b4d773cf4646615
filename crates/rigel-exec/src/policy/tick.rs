//! The timer request a worker keeps armed in its engine: it completes at least every 100 ms, so no
//! wait inside the kernel lasts longer and a stop request or a stalled I/O is seen in time.

use super::tag::{Tag, push_timer};
use crate::engines::{Interval, Live};

/// A timer request kept armed completes at least this often, so no wait inside the kernel lasts
/// longer and a stop request is seen in time. (A timer request costs nothing per I/O; a timeout
/// argument on every wait would be copied in on every system call.)
static TICK: Interval = Interval::from_ns(100_000_000);

/// Queues the timer request that bounds every wait.
pub(crate) fn arm_tick(eng: &mut impl Live) {
    push_timer(eng, &TICK, Tag::Tick);
}
