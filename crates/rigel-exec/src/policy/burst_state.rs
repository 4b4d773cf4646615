//! A bursting class's state in its worker (`burst.rs` drives it), apart from the slots that hold
//! it, so that neither module imports the other.

use crate::engines::Interval;
use std::ops::Range;

/// A bursting class's state in its worker.
pub(crate) struct BurstState {
    pub(crate) ios: u32,
    pub(crate) idle: Interval,
    /// The class's slots (contiguous: `setup` lays a class's slots out together).
    pub(crate) slots: Range<usize>,
    /// I/Os the current burst may still issue, and those of it completed.
    pub(crate) left: u32,
    pub(crate) done: u32,
    /// When the current burst started, and when the last idle started.
    pub(crate) started_ns: u64,
    pub(crate) idle_from: u64,
}

impl BurstState {
    pub(crate) fn new(b: rigel_plan::Burst, slots: Range<usize>) -> BurstState {
        BurstState {
            ios: b.ios,
            idle: Interval::from_ns(b.idle_ns),
            slots,
            left: b.ios,
            done: 0,
            started_ns: 0,
            idle_from: 0,
        }
    }
}
