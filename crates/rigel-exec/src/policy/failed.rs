//! A slot's failures: its I/O's error as the point's failure, and the stall of an I/O that never
//! completes.

use super::slots::{Slot, State};
use crate::failure::Failure;
use std::io;
use std::time::Duration;

/// The oldest I/O in flight when it has been outstanding longer than `timeout_ns` of the time
/// rigel ran: a gap in which rigel itself did not run (`pause.rs`) is not the storage's silence.
pub(crate) fn stalled(
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

pub(crate) fn failure(slot: &Slot, res: i32, now: u64) -> Failure {
    let offset = slot.offset + slot.done as u64;
    let (errno, message) = if res < 0 {
        (-res, io::Error::from_raw_os_error(-res).to_string())
    } else {
        let dir = match (slot.trim, slot.write) {
            (true, _) => "trim",
            (false, true) => "write",
            (false, false) => "read",
        };
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
