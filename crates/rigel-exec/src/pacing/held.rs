//! Time the storage held a paced worker's own thread: a submission the storage serves before the
//! system call returns (a FUSE file without async direct I/O, read through io_uring or libaio,
//! serves each I/O inside `io_uring_enter`, one after another) keeps the worker from sending the
//! I/Os falling due meanwhile. That wait is the storage's (a punctual sender on another thread
//! would have had them wait inside the device instead), not rigel's lag.
//!
//! Seen as an entry into the kernel that returns later than the send time it was bounded by
//! (`until`): the overshoot is either held time or the worker waiting for a CPU (a starved rigel,
//! whose delay is its own lag). The kernel's count of the thread's time runnable but not running
//! (`/proc/thread-self/schedstat`, second field) tells the two apart: the overshoot less that
//! time is held. Without the file, nothing is held (all of it stays lag, as before).
//!
//! Measured (faultfs, one read at a time in 2.25 ms, `io = 64`, 600 IOPS asked): each entry
//! served the whole batch of I/Os sent before it (64 once saturated: 145 ms), and the sends due
//! meanwhile were booked as lag (p99 134 ms of a 462 ms response) before this.

use std::fs::File;
use std::os::unix::fs::FileExt;

/// An overshoot below this stays lag without a look at the kernel's counts (a timed wait ends
/// some µs late; reading the counts costs about as much).
const OVERSHOOT_NS: u64 = 200_000;
/// Held spans kept to look back on: an I/O's wait older than the oldest is counted from it.
const KEPT: usize = 256;

/// One span of held time: the overshoot `[from, to)`, `held` of it the storage's (spread evenly
/// over it), and the held total before it.
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    from: u64,
    to: u64,
    held: u64,
    before: u64,
}

/// A worker's held time: the spans in a ring, newest last, and the kernel's count.
pub(crate) struct Held {
    spans: Box<[Span; KEPT]>,
    /// Spans added so far (the ring's newest is `(len - 1) % KEPT`).
    len: usize,
    total: u64,
    /// `/proc/thread-self/schedstat`, opened on the worker's thread when its pacing starts
    /// (None before, or when it cannot be read).
    schedstat: Option<File>,
    /// The thread's time waiting for a CPU at the last reading, ns: taken just before the entry
    /// when the one before overshot (`before_entry`), else at the last overshoot, so the starved
    /// time since may include some before the entry (counted against the overshoot: the safe
    /// side, lag).
    waited: u64,
    /// The last entry overshot: the next one reads the count first.
    hot: bool,
}

impl Held {
    pub(crate) fn new() -> Held {
        Held {
            spans: Box::new([Span::default(); KEPT]),
            len: 0,
            total: 0,
            schedstat: None,
            waited: 0,
            hot: false,
        }
    }

    /// A paced worker's loop starts: opens the kernel's count for this thread (the worker's).
    pub(crate) fn start(&mut self) {
        self.schedstat = File::open("/proc/thread-self/schedstat").ok();
        if let Some(w) = self.read_waited() {
            self.waited = w;
        }
    }

    /// Before an entry bounded by a send time: after an entry that overshot (a storage that
    /// holds the worker does so at every entry), the count is read now, so that only the
    /// entry's own wait for a CPU is taken from its overshoot.
    #[inline]
    pub(crate) fn before_entry(&mut self) {
        if self.hot {
            self.hot = false;
            if let Some(w) = self.read_waited() {
                self.waited = w;
            }
        }
    }

    /// An entry made at `entered` (ns) and bounded by the send time `until` returned at `now`.
    #[inline]
    pub(crate) fn entered(&mut self, entered: u64, until: u64, now: u64) {
        let from = until.max(entered);
        let over = now.saturating_sub(from);
        if over < OVERSHOOT_NS {
            return;
        }
        self.overshot(from, now, over);
    }

    #[cold]
    fn overshot(&mut self, from: u64, now: u64, over: u64) {
        self.hot = true;
        let Some(w) = self.read_waited() else {
            return;
        };
        let starved = w.saturating_sub(self.waited);
        self.waited = w;
        let held = over.saturating_sub(starved);
        if held == 0 {
            return;
        }
        let span = Span {
            from,
            to: now,
            held,
            before: self.total,
        };
        self.spans[self.len % KEPT] = span;
        self.len += 1;
        self.total += held;
    }

    /// Reads the thread's time waiting for a CPU, ns (None when it cannot be read).
    fn read_waited(&mut self) -> Option<u64> {
        let f = self.schedstat.as_ref()?;
        let mut buf = [0u8; 96];
        let n = f.read_at(&mut buf, 0).ok()?;
        let waited = std::str::from_utf8(&buf[..n])
            .ok()?
            .split_ascii_whitespace()
            .nth(1)?
            .parse()
            .ok();
        if waited.is_none() {
            self.schedstat = None;
        }
        waited
    }

    /// Held time in `[from, to)`, ns.
    #[inline]
    pub(crate) fn between(&self, from: u64, to: u64) -> u64 {
        if self.len == 0 || to <= from {
            return 0;
        }
        self.at(to).saturating_sub(self.at(from))
    }

    /// Held time before `t`, ns (counted from the oldest span kept when `t` is older).
    fn at(&self, t: u64) -> u64 {
        let kept = self.len.min(KEPT);
        let mut oldest = self.total;
        for k in 0..kept {
            let s = &self.spans[(self.len - 1 - k) % KEPT];
            if t >= s.to {
                return s.before + s.held;
            }
            if t > s.from {
                let part = (s.held as u128 * (t - s.from) as u128 / (s.to - s.from) as u128) as u64;
                return s.before + part;
            }
            oldest = s.before;
        }
        oldest
    }
}

#[cfg(test)]
mod tests {
    use super::{Held, Span};

    fn with(spans: &[(u64, u64, u64)]) -> Held {
        let mut h = Held::new();
        for &(from, to, held) in spans {
            h.spans[h.len] = Span {
                from,
                to,
                held,
                before: h.total,
            };
            h.len += 1;
            h.total += held;
        }
        h
    }

    #[test]
    #[serial_test::parallel]
    fn held_time_is_counted_where_it_falls() {
        let h = with(&[(10, 20, 10), (30, 50, 10)]);
        assert_eq!(h.between(0, 100), 20);
        assert_eq!(h.between(15, 40), 5 + 5);
        assert_eq!(h.between(20, 30), 0);
        assert_eq!(h.between(50, 60), 0);
        assert_eq!(Held::new().between(0, 100), 0);
    }

    #[test]
    #[serial_test::parallel]
    fn a_sleep_past_the_send_time_is_held_and_a_short_overshoot_never_looked_at() {
        // This thread's own count: a short overshoot is never looked at.
        let mut h = Held::new();
        h.start();
        if h.schedstat.is_none() {
            return;
        }
        h.entered(0, 1_000, 100_000);
        assert_eq!((h.total, h.hot), (0, false));
        // A sleep the kernel does not count as waiting for a CPU: held (less any wake-up wait).
        let t0 = std::time::Instant::now();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let slept = t0.elapsed().as_nanos() as u64;
        h.entered(0, 0, slept);
        assert!(h.total > slept / 2, "held {} of {slept}", h.total);
    }
}
