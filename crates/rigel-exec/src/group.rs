//! A committer slot's group of writes toward its next flush (`durability = "fdatasync:N"`): the
//! state `flush` keeps per slot, apart from the slots so neither module imports the other.

/// Most targets a grouped class's writes are tracked over (the plan refuses more).
pub(super) const MAX_FLUSH_TARGETS: u32 = 64;

/// A slot's group of writes toward its next flush.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Group {
    /// Writes completed in the group.
    pub(super) writes: u32,
    /// The submission of the group's first write, ns.
    pub(super) from_ns: u64,
    /// Targets written in the group and not flushed yet (bit k: target k).
    pub(super) targets: u64,
    /// The flush in flight was sent at this time (`u64::MAX`: no flush in flight).
    pub(super) flush_ns: u64,
}

impl Group {
    pub(super) const IDLE: Group = Group {
        writes: 0,
        from_ns: 0,
        targets: 0,
        flush_ns: u64::MAX,
    };

    /// A flush of this slot is in flight.
    #[inline]
    pub(super) fn flushing(&self) -> bool {
        self.flush_ns != u64::MAX
    }
}
