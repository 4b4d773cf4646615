//! Grouped durable writes (`durability = "fdatasync:N"` / `"fsync:N"`): each slot of such a class
//! is a committer. After its N-th completed write it sends a flush through its engine
//! (`engines::Op::Flush`, data only for fdatasync) to every target the group wrote, one after the
//! other, before its next I/O; the commit's latency runs from the group's first write's
//! submission to the last flush's completion.
//!
//! An open-loop class (`rate`) has no committers: its writes are sent at their scheduled times
//! whatever the flushes do. The class counts its completed writes into one group; the slot whose
//! write completes the N-th sends the flush and holds it (it is not free for a send time until
//! the commit), while the other slots go on writing into the next group. Its commit latency runs
//! from the group's earliest send time (the scheduled time: the response view, waits for a slot
//! included) and, as `service`, from its earliest submission, to the flush's completion.

/// Most targets a grouped class's writes are tracked over (the plan refuses more).
pub(crate) const MAX_FLUSH_TARGETS: u32 = 64;

/// A slot's group of writes toward its next flush.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Group {
    /// Writes completed in the group.
    pub(crate) writes: u32,
    /// The submission of the group's first write, ns (open loop: the earliest submission of
    /// the group's writes).
    pub(crate) from_ns: u64,
    /// The earliest send time of the group's writes, ns: their submission in a closed loop,
    /// their scheduled time in an open loop.
    pub(crate) sent_ns: u64,
    /// Targets written in the group and not flushed yet (bit k: target k).
    pub(crate) targets: u64,
    /// The flush in flight was sent at this time (`u64::MAX`: no flush in flight).
    pub(crate) flush_ns: u64,
}

impl Group {
    pub(crate) const IDLE: Group = Group {
        writes: 0,
        from_ns: 0,
        sent_ns: 0,
        targets: 0,
        flush_ns: u64::MAX,
    };

    /// Counts a completed write, submitted at `submitted`, due at `sent`, on `target`.
    #[inline]
    pub(crate) fn add(&mut self, submitted: u64, sent: u64, target: u32) {
        if self.writes == 0 {
            (self.from_ns, self.sent_ns) = (submitted, sent);
        } else {
            // Open loop: writes complete out of their send order.
            self.from_ns = self.from_ns.min(submitted);
            self.sent_ns = self.sent_ns.min(sent);
        }
        self.writes += 1;
        self.targets |= 1u64 << target.min(MAX_FLUSH_TARGETS - 1);
    }

    /// A flush of this slot is in flight.
    #[inline]
    pub(crate) fn flushing(&self) -> bool {
        self.flush_ns != u64::MAX
    }

    /// The lowest target the group wrote and has not flushed: the next flush's.
    #[inline]
    pub(crate) fn next_target(&self) -> u32 {
        self.targets.trailing_zeros().min(MAX_FLUSH_TARGETS - 1)
    }

    /// The flush of `next_target` completed: true when every target the group wrote is flushed
    /// (the commit).
    #[inline]
    pub(crate) fn flushed(&mut self) -> bool {
        self.targets &= self.targets.wrapping_sub(1);
        self.targets == 0
    }
}
