//! A punctual sender's queue, to split an open-loop I/O's wait before submission into the part
//! the storage caused and rigel's own lateness. With the class's outstanding cap (its slots) and
//! each I/O's measured service time, an ideal sender would have submitted each I/O at its send
//! time, or when the earliest of its slots' previous I/Os completed if all were busy: that wait is
//! the queueing behind the cap. Whatever remains of response − service is rigel's lag.
//!
//! Why not the slots rigel saw free: a slot counts busy until rigel reaps its completion, so a
//! rigel starved of CPU (its completions unreaped for a second) would find every slot busy and
//! book its own delay as queueing (measured: 388 ms of "queueing" at 1,000 IOPS with a cap of 8
//! on a device serving in 60 µs, when nothing could have queued).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// When each of a class's slots would have become free under a punctual sender, earliest first.
pub(crate) struct Punctual {
    free_at: BinaryHeap<Reverse<u64>>,
}

impl Punctual {
    /// `slots` slots, all free from time 0.
    pub(crate) fn new(slots: usize) -> Punctual {
        let mut free_at = BinaryHeap::with_capacity(slots.max(1));
        for _ in 0..slots.max(1) {
            free_at.push(Reverse(0));
        }
        Punctual { free_at }
    }

    /// One completed I/O, due at `scheduled` and served in `service_ns`: how long a punctual
    /// sender would have kept it waiting for a slot. Taken in the order completions are reaped
    /// (close to the order of the send times: the model may give an I/O that overtook an earlier
    /// one the earlier one's slot, an error only while the cap is reached).
    #[inline]
    pub(crate) fn queued(&mut self, scheduled: u64, service_ns: u64) -> u64 {
        let mut first = self
            .free_at
            .peek_mut()
            .expect("a punctual queue has at least one slot");
        let start = scheduled.max(first.0);
        *first = Reverse(start + service_ns);
        start - scheduled
    }
}

#[cfg(test)]
mod tests {
    use super::Punctual;

    #[test]
    #[serial_test::parallel]
    fn only_a_full_cap_makes_an_io_wait() {
        // Two slots, 10 µs service, sends every 20 µs: nothing waits.
        let mut p = Punctual::new(2);
        for k in 0..100 {
            assert_eq!(p.queued(k * 20_000, 10_000), 0);
        }
        // One slot, a 1 ms stall then sends every 100 µs of 50 µs service: the sends due in the
        // stall wait for it, then for each other, and the queue drains.
        let mut p = Punctual::new(1);
        assert_eq!(p.queued(0, 1_000_000), 0);
        let waits: Vec<u64> = (1..=20).map(|k| p.queued(k * 100_000, 50_000)).collect();
        assert_eq!(&waits[..3], &[900_000, 850_000, 800_000]);
        assert_eq!(waits[17..], [50_000, 0, 0]);
    }
}
