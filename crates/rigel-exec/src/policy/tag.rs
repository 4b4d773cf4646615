//! What each request a worker puts in its ring is, told by its `user_data`: a slot's I/O (the
//! slot's index), a slot's think wait, a class's idle between bursts, the timer that bounds every
//! wait, or the cancel sent when a point ends. One encoding, so no two kinds can collide.

use crate::engines::{Interval, Live, Op};

/// Bit 62 marks a think wait (with the slot's index below it).
const THINK: u64 = 1 << 62;
/// Bit 61 marks a burst's idle wait (with the class's index below it).
const IDLE: u64 = 1 << 61;
/// The timer request and the cancel: the two highest values, above any tagged index.
const TICK: u64 = u64::MAX;
const CANCEL: u64 = u64::MAX - 1;

// Neither a slot's index nor a class's reaches the marking bits, so no two kinds can collide.
const _: () = assert!(rigel_plan::limits::MAX_WORKER_IN_FLIGHT < IDLE);
const _: () = assert!((rigel_plan::limits::MAX_CLASSES as u64) < IDLE);

/// A request's kind and the slot or class it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tag {
    /// Slot `i`'s I/O (a read, a write or its flush).
    Io(usize),
    /// Slot `i`'s think time.
    Think(usize),
    /// Class `c`'s idle time after a burst.
    Idle(usize),
    /// The timer request kept armed in the ring (`tick.rs`).
    Tick,
    /// The cancel request of the drain (`drain.rs`).
    Cancel,
}

impl Tag {
    /// The `user_data` that carries this tag.
    #[inline]
    pub(crate) fn user_data(self) -> u64 {
        match self {
            Tag::Io(i) => i as u64,
            Tag::Think(i) => THINK | i as u64,
            Tag::Idle(c) => IDLE | c as u64,
            Tag::Tick => TICK,
            Tag::Cancel => CANCEL,
        }
    }

    /// The tag a completion's `user_data` carries.
    #[inline]
    pub(crate) fn of(user_data: u64) -> Tag {
        match user_data {
            TICK => Tag::Tick,
            CANCEL => Tag::Cancel,
            u if u & THINK != 0 => Tag::Think((u & !THINK) as usize),
            u if u & IDLE != 0 => Tag::Idle((u & !IDLE) as usize),
            u => Tag::Io(u as usize),
        }
    }
}

/// Queues a timer of `iv`, tagged `tag` (a think, an idle or the tick). `iv` is a class's or a
/// static interval: the worker's state outlives its loop and its drain, so it outlives the
/// request (the borrow says no less: it lasts as long as the state's).
#[inline]
pub(crate) fn push_timer(eng: &mut impl Live, iv: &Interval, tag: Tag) {
    // SAFETY: a timer references only `iv`, which lives in the worker's state (or is a static)
    // until the loop and the drain end, after the request's completion or the engine's close.
    unsafe { eng.push(tag.user_data(), Op::Timer(iv)) };
}

#[cfg(test)]
mod tests {
    use super::Tag;

    #[test]
    #[serial_test::parallel]
    fn every_tag_reads_back_as_written() {
        for tag in [
            Tag::Io(0),
            Tag::Io(65_535),
            Tag::Think(0),
            Tag::Think(4_095),
            Tag::Idle(0),
            Tag::Idle(63),
            Tag::Tick,
            Tag::Cancel,
        ] {
            assert_eq!(Tag::of(tag.user_data()), tag, "{tag:?}");
        }
    }
}
