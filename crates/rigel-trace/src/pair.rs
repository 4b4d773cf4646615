//! Issue and completion events joined into records: a completion belongs to the oldest issued
//! request of the same sector and length that has not completed yet (the block layer completes a
//! request under the sector and length it was issued with), a flush's to the oldest open flush
//! (a flush completes with sector −1). Zero-length completions of data requests (a write's end
//! after its postflush) belong to no new request and are left out.

use crate::format::{Op, Record};
use std::collections::{HashMap, VecDeque};

/// The key all flushes share.
const FLUSH: (u64, u32) = (u64::MAX, 0);

/// Records being built from events in time order.
#[derive(Default)]
pub struct Pairer {
    /// The time (ns, on the event clock) that becomes the trace's 0: the first event's.
    origin: Option<u64>,
    pub records: Vec<Record>,
    open: HashMap<(u64, u32), VecDeque<usize>>,
    /// Completions of requests issued before the trace started.
    pub orphans: u64,
}

impl Pairer {
    /// A pairer whose time 0 is `origin` (ns on the events' clock).
    pub fn starting_at(origin: u64) -> Pairer {
        Pairer {
            origin: Some(origin),
            ..Pairer::default()
        }
    }

    fn rel(&mut self, t: u64) -> u64 {
        let o = *self.origin.get_or_insert(t);
        t.saturating_sub(o)
    }

    /// A request issued at `t` ns: `sector` and `sectors` in 512-byte units.
    pub fn issue(&mut self, t: u64, sector: u64, sectors: u32, op: Op, flags: u8) {
        let issue_ns = self.rel(t);
        let key = if op == Op::Flush {
            FLUSH
        } else {
            (sector, sectors)
        };
        let size = if op == Op::Flush {
            0
        } else {
            sectors.saturating_mul(512)
        };
        self.open
            .entry(key)
            .or_default()
            .push_back(self.records.len());
        self.records.push(Record {
            issue_ns,
            complete_ns: None,
            offset: sector.saturating_mul(512),
            size,
            op,
            flags,
        });
    }

    /// A request of `sector` + `sectors` (a flush: `flush`) completed at `t` ns.
    pub fn complete(&mut self, t: u64, sector: u64, sectors: u32, flush: bool) {
        let ns = self.rel(t);
        let key = if flush { FLUSH } else { (sector, sectors) };
        let index = self.open.get_mut(&key).and_then(VecDeque::pop_front);
        match index {
            Some(i) => self.records[i].complete_ns = Some(ns.max(self.records[i].issue_ns)),
            None => self.orphans += 1,
        }
    }

    /// The records, and how many never completed.
    pub fn finish(self) -> (Vec<Record>, u64) {
        let incomplete = self
            .records
            .iter()
            .filter(|r| r.complete_ns.is_none())
            .count();
        (self.records, incomplete as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completions_join_the_oldest_open_request_of_their_range() {
        let mut p = Pairer::default();
        p.issue(1000, 8, 8, Op::Write, 0);
        p.issue(1500, 8, 8, Op::Write, 0);
        p.issue(1600, 0, 0, Op::Flush, 0);
        p.complete(2000, 8, 8, false);
        p.complete(2100, u64::MAX, 0, true);
        p.complete(2200, 99, 8, false);
        let orphans = p.orphans;
        let (r, incomplete) = p.finish();
        assert_eq!(r[0].complete_ns, Some(1000));
        assert_eq!(r[1].complete_ns, None);
        assert_eq!(r[2].complete_ns, Some(1100));
        assert_eq!((r[0].offset, r[0].size, r[2].size), (4096, 4096, 0));
        assert_eq!((incomplete, orphans), (1, 1));
    }
}
