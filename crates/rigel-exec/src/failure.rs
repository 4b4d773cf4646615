//! How an I/O fails a point: the failure a worker reports (target, offset, errno, when), and which
//! errors are only a reason to submit again (`failed` makes a slot's failures).

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
