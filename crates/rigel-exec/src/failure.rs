//! How an I/O fails a point: the failure a worker reports (target, offset, errno, when), which
//! errors are only a reason to submit again, and the stall of an I/O that never completes.

use super::slots::{Slot, State};
use std::io;
use std::time::Duration;

/// An I/O that failed: which target, where, and the OS error.
#[derive(Clone, Debug)]
pub struct Failure {
    pub target: usize,
    pub offset: u64,
    pub errno: i32,
    pub message: String,
    /// When the failure was seen, ns since the point's start.
    pub at_ns: u64,
    /// No completion within `run.io_timeout` (the I/O is still outstanding), not an error.
    pub stalled: bool,
}

/// Errors after which the I/O is submitted again (interrupted, busy, try again, or a timeout the
/// kernel raised), not a failure of the point.
#[inline]
pub(super) fn transient(errno: i32) -> bool {
    errno == libc::EINTR || errno == libc::EAGAIN || errno == libc::EBUSY || errno == libc::ETIME
}

/// The oldest I/O in flight when it has been outstanding longer than `timeout_ns` of the time
/// rigel ran: a gap in which rigel itself did not run (`pause.rs`) is not the storage's silence.
pub(super) fn stalled(
    st: &State<'_>,
    now: u64,
    timeout_ns: u64,
    pauses: &super::pause::Pauses,
) -> Option<Failure> {
    let oldest = st.slots.iter().min_by_key(|s| s.submitted_ns)?;
    let age = now
        .saturating_sub(oldest.submitted_ns)
        .saturating_sub(pauses.since(oldest.submitted_ns));
    (age > timeout_ns).then(|| Failure {
        target: oldest.target as usize,
        offset: oldest.offset + oldest.done as u64,
        errno: libc::ETIMEDOUT,
        message: format!(
            "stalled: no completion for {}",
            rigel_expr::format_duration(Duration::from_nanos(timeout_ns))
        ),
        at_ns: now,
        stalled: true,
    })
}

pub(super) fn failure(slot: &Slot, res: i32, now: u64) -> Failure {
    let offset = slot.offset + slot.done as u64;
    let (errno, message) = if res < 0 {
        (-res, io::Error::from_raw_os_error(-res).to_string())
    } else {
        let dir = if slot.write { "write" } else { "read" };
        (0, format!("{dir} transferred nothing: end of the target"))
    };
    Failure {
        target: slot.target as usize,
        offset,
        errno,
        message,
        at_ns: now,
        stalled: false,
    }
}
