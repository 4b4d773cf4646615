//! What a slot's current I/O is when `rigel replay` sends it (`replay_slots`), apart so that the
//! slots may hold it without importing the replay's code.

/// The first request goes out this long after the worker starts (its send time 0): the measured
/// window starts just after the start, and the first send must fall inside it.
pub(crate) const LEAD_NS: u64 = 1_000_000;

/// What a slot's current I/O is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Replayed {
    /// Drawn by the class (offset, size, direction), not replayed.
    Drawn,
    /// A replayed read or write as it was traced.
    Data,
    /// A replayed write that carried FUA: sent with RWF_DSYNC.
    DsyncWrite,
    /// A replayed cache flush.
    Flush,
}
