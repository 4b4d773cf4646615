//! Issue and completion events joined into records: a completion belongs to the oldest issued
//! request of the same sector and length that has not completed yet (the block layer completes a
//! request under the sector and length it was issued with), a flush's to the oldest open flush
//! (a flush completes with sector −1). Zero-length completions of data requests (a write's end
//! after its postflush) belong to no new request and are left out. A request the driver
//! requeued (a full queue) is issued twice and completes once: the completion joins the first
//! issue, and the second stays open while an earlier issue of its range completed after it was
//! sent; at the end such a record is dropped and counted. (Two genuine requests to one range in
//! flight at once, a hot block read twice, both complete and are both kept.)

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
    /// The (sector, sectors) key of each record.
    keys: Vec<(u64, u32)>,
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
        self.keys.push(key);
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

    /// The records, how many never completed, and how many issues were a requeued request's
    /// second (dropped).
    pub fn finish(self) -> (Vec<Record>, u64, u64) {
        // Per range, the latest completion of an earlier issue: "an earlier issue completed after
        // this one was sent" is that latest completion being after it, one look per record (a
        // million issues of one sector cost a million steps, not half a million million).
        let mut latest: HashMap<(u64, u32), u64> = HashMap::new();
        let mut keep = vec![true; self.records.len()];
        for (i, r) in self.records.iter().enumerate() {
            let key = self.keys[i];
            let earlier = latest.entry(key).or_insert(0);
            if r.complete_ns.is_none() && key != FLUSH {
                keep[i] = *earlier <= r.issue_ns;
            }
            if let Some(c) = r.complete_ns {
                *earlier = (*earlier).max(c);
            }
        }
        let reissued = keep.iter().filter(|k| !**k).count() as u64;
        let records: Vec<Record> = self
            .records
            .into_iter()
            .zip(keep)
            .filter_map(|(r, k)| k.then_some(r))
            .collect();
        let incomplete = records.iter().filter(|r| r.complete_ns.is_none()).count() as u64;
        (records, incomplete, reissued)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completions_join_the_oldest_open_request_of_their_range() {
        let mut p = Pairer::default();
        p.issue(1000, 8, 8, Op::Write, 0);
        // The driver requeues it: issued again, completed once.
        p.issue(1200, 8, 8, Op::Write, 0);
        p.complete(2000, 8, 8, false);
        p.issue(2050, 8, 8, Op::Write, 0);
        p.issue(1600, 0, 0, Op::Flush, 0);
        p.complete(2100, u64::MAX, 0, true);
        p.complete(2200, 99, 8, false);
        // Two reads of one block in flight at once: both kept.
        p.issue(3000, 64, 8, Op::Read, 0);
        p.issue(3001, 64, 8, Op::Read, 0);
        p.complete(3100, 64, 8, false);
        p.complete(3101, 64, 8, false);
        let orphans = p.orphans;
        let (r, incomplete, reissued) = p.finish();
        assert_eq!(
            reissued, 1,
            "the second issue at 1200 is the first request requeued"
        );
        assert_eq!(r.len(), 5);
        assert_eq!(r[0].complete_ns, Some(1000));
        // Issued at 2050, after every earlier issue of its range completed: in flight at the end.
        assert_eq!(r[1].complete_ns, None);
        assert_eq!(r[2].complete_ns, Some(1100));
        assert_eq!(
            (r[3].complete_ns, r[4].complete_ns),
            (Some(2100), Some(2101))
        );
        assert_eq!((r[0].offset, r[0].size, r[2].size), (4096, 4096, 0));
        assert_eq!((incomplete, orphans), (1, 1));
    }

    /// A million issues of one sector (a hostile blkparse file) pair in linear time.
    #[test]
    fn many_issues_of_one_range_pair_in_linear_time() {
        let mut p = Pairer::default();
        p.issue(0, 8, 8, Op::Read, 0);
        p.complete(u64::MAX / 2, 8, 8, false);
        for t in 1..300_000u64 {
            p.issue(t, 8, 8, Op::Read, 0);
        }
        let start = std::time::Instant::now();
        let (r, _, reissued) = p.finish();
        assert_eq!((r.len(), reissued), (1, 299_999));
        assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
    }
}
