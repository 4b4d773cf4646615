//! A class's size mix and grouped durable writes while a point runs: completed I/Os recorded per
//! size of the mix (count, bytes and latency per direction, the histograms merged across workers,
//! never averaged), and each commit's latency (a group of writes and its flush) beside the flush's
//! own, turned into the results' `sizes` and `commit` afterwards.

use super::{ClassRecorder, DirRecorder, dir_stats};
use crate::codec::encode;
use crate::model::{BurstResult, CommitResult, DirStats, SizeShareResult, ThinkResult};

/// One size of a mix: its I/Os' figures per direction, each made at the first I/O that needs it
/// (a histogram is a quarter of a MiB).
#[derive(Clone, Debug, Default)]
pub(super) struct SizeFigures {
    read: Option<DirRecorder>,
    write: Option<DirRecorder>,
    /// Open loop: service latencies (reads, writes); `read` and `write` hold the response.
    service_read: Option<DirRecorder>,
    service_write: Option<DirRecorder>,
}

impl SizeFigures {
    fn ios(&self) -> u64 {
        self.read.as_ref().map_or(0, |d| d.ios) + self.write.as_ref().map_or(0, |d| d.ios)
    }

    fn merge(&mut self, other: &SizeFigures) {
        for (mine, theirs) in [
            (&mut self.read, &other.read),
            (&mut self.write, &other.write),
            (&mut self.service_read, &other.service_read),
            (&mut self.service_write, &other.service_write),
        ] {
            if let Some(t) = theirs {
                mine.get_or_insert_with(DirRecorder::new).merge(t);
            }
        }
    }

    /// The size's `total`, `read` and `write` figures over `window_s` seconds (a direction without
    /// I/O of this size: None).
    fn stats(&self, window_s: f64) -> [Option<DirStats>; 3] {
        let one = |d: &Option<DirRecorder>, s: &Option<DirRecorder>| {
            d.as_ref().map(|d| dir_stats(d, s.as_ref(), window_s))
        };
        let both = |a: &Option<DirRecorder>, b: &Option<DirRecorder>| match (a, b) {
            (Some(a), Some(b)) => {
                let mut t = a.clone();
                t.merge(b);
                Some(t)
            }
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        let total = both(&self.read, &self.write);
        let service = both(&self.service_read, &self.service_write);
        [
            total
                .as_ref()
                .map(|t| dir_stats(t, service.as_ref(), window_s)),
            one(&self.read, &self.service_read),
            one(&self.write, &self.service_write),
        ]
    }
}

/// A grouped-durability class's commits while a point runs.
#[derive(Clone, Debug)]
pub(super) struct Commits {
    /// From the group's first write's send time to the flush's completion.
    commit: DirRecorder,
    /// The flushes alone.
    flush: DirRecorder,
    /// Open loop: from the group's first write's submission (empty in a closed loop, where the
    /// send time is the submission).
    service: DirRecorder,
}

impl Commits {
    fn new() -> Box<Self> {
        Box::new(Commits {
            commit: DirRecorder::new(),
            flush: DirRecorder::new(),
            service: DirRecorder::new(),
        })
    }
}

impl ClassRecorder {
    /// Records one completed I/O of a size-mix class under its size's index in the mix: its
    /// latency (the response, open loop), its service latency (open loop only) and bytes.
    #[inline]
    pub fn record_size(
        &mut self,
        index: u8,
        write: bool,
        latency_ns: u64,
        service_ns: Option<u64>,
        bytes: u64,
    ) {
        let i = index as usize;
        if i >= self.sizes.len() {
            self.sizes.resize_with(i + 1, SizeFigures::default);
        }
        let f = &mut self.sizes[i];
        let (dir, service) = if write {
            (&mut f.write, &mut f.service_write)
        } else {
            (&mut f.read, &mut f.service_read)
        };
        dir.get_or_insert_with(DirRecorder::new)
            .record(latency_ns, bytes);
        if let Some(s) = service_ns {
            service
                .get_or_insert_with(DirRecorder::new)
                .record(s, bytes);
        }
    }

    /// Records one commit completed in the window: from its first write's send time to its
    /// flush's completion (`commit_ns`), from its first write's submission (`service_ns`, open
    /// loop only), and the flush alone (`flush_ns`).
    #[inline]
    pub fn record_commit(&mut self, commit_ns: u64, service_ns: Option<u64>, flush_ns: u64) {
        let c = self.commits.get_or_insert_with(Commits::new);
        c.commit.record(commit_ns, 0);
        c.flush.record(flush_ns, 0);
        if let Some(s) = service_ns {
            c.service.record(s, 0);
        }
    }

    /// Records one think time achieved in the window (`think`: from the completion reaped to the
    /// next I/O's submission).
    #[inline]
    pub fn record_think(&mut self, ns: u64) {
        self.think.0 += 1;
        self.think.1 += ns;
    }

    /// The think time asked (`asked_ns`) beside the one achieved over the window.
    pub fn think_result(&self, asked_ns: u64) -> ThinkResult {
        let (n, sum) = self.think;
        ThinkResult {
            asked_ns,
            waits: n,
            mean_ns: if n > 0 { sum as f64 / n as f64 } else { 0.0 },
        }
    }

    /// Records one burst whose last I/O completed in the window: its I/Os completed and its
    /// length from its first submission to its last completion.
    #[inline]
    pub fn record_burst(&mut self, ios: u64, active_ns: u64) {
        let b = &mut self.burst;
        b.bursts += 1;
        b.ios += ios;
        b.active_ns += active_ns;
    }

    /// Records one idle time achieved in the window (from a burst's last completion reaped to
    /// the next burst's start).
    #[inline]
    pub fn record_idle(&mut self, ns: u64) {
        self.burst.idles += 1;
        self.burst.idle_ns += ns;
    }

    /// The bursts asked (`ios` per burst, `idle_ns` between) beside those achieved.
    pub fn burst_result(&self, ios: u32, idle_ns: u64) -> BurstResult {
        let b = &self.burst;
        let mean = |sum: u64, n: u64| if n > 0 { sum as f64 / n as f64 } else { 0.0 };
        BurstResult {
            asked_ios: ios,
            asked_idle_ns: idle_ns,
            bursts: b.bursts,
            mean_ios: mean(b.ios, b.bursts),
            mean_active_ns: mean(b.active_ns, b.bursts),
            idles: b.idles,
            mean_idle_ns: mean(b.idle_ns, b.idles),
        }
    }

    /// Records one trim (a discard of `bytes` at the class's offset): its latency, the response
    /// time in an open loop, in the class's `trim` figures, apart from its reads and writes.
    #[inline]
    pub fn record_trim(&mut self, latency_ns: u64, bytes: u64) {
        self.trims
            .get_or_insert_with(|| Box::new(DirRecorder::new()))
            .record(latency_ns, bytes);
    }

    pub(super) fn merge_workload(&mut self, other: &ClassRecorder) {
        if let Some(theirs) = &other.trims {
            self.trims
                .get_or_insert_with(|| Box::new(DirRecorder::new()))
                .merge(theirs);
        }
        self.think.0 += other.think.0;
        self.think.1 += other.think.1;
        let (mine, theirs) = (&mut self.burst, &other.burst);
        mine.bursts += theirs.bursts;
        mine.ios += theirs.ios;
        mine.active_ns += theirs.active_ns;
        mine.idles += theirs.idles;
        mine.idle_ns += theirs.idle_ns;
        if self.sizes.len() < other.sizes.len() {
            self.sizes
                .resize_with(other.sizes.len(), SizeFigures::default);
        }
        for (mine, theirs) in self.sizes.iter_mut().zip(&other.sizes) {
            mine.merge(theirs);
        }
        if let Some(theirs) = &other.commits {
            let mine = self.commits.get_or_insert_with(Commits::new);
            mine.commit.merge(&theirs.commit);
            mine.flush.merge(&theirs.flush);
            mine.service.merge(&theirs.service);
        }
    }

    /// Each size's share of the window's I/Os, beside the share asked, and its figures over
    /// `window_s` seconds: `mix` lists (size, asked share) in the mix's order, as `record_size`'s
    /// indices do.
    pub fn size_shares(&self, mix: &[(u64, f64)], window_s: f64) -> Vec<SizeShareResult> {
        let total: u64 = self.sizes.iter().map(SizeFigures::ios).sum();
        mix.iter()
            .enumerate()
            .map(|(i, &(size, asked))| {
                let f = self.sizes.get(i);
                let ios = f.map_or(0, SizeFigures::ios);
                let [total_stats, read, write] =
                    f.map_or([None, None, None], |f| f.stats(window_s));
                SizeShareResult {
                    size,
                    asked,
                    ios,
                    achieved: if total > 0 {
                        ios as f64 / total as f64
                    } else {
                        0.0
                    },
                    total: total_stats,
                    read,
                    write,
                }
            })
            .collect()
    }

    /// The window's commits (`every` writes and a flush each, `fsync` or fdatasync) over
    /// `window_s` seconds.
    pub fn commit_result(&self, every: u32, fsync: bool, window_s: f64) -> CommitResult {
        let empty = Commits::new();
        let c = self.commits.as_deref().unwrap_or(&empty);
        let (commit, flush, service) = (&c.commit, &c.flush, &c.service);
        CommitResult {
            every,
            fsync,
            commits: commit.ios,
            per_s: if window_s > 0.0 {
                commit.ios as f64 / window_s
            } else {
                0.0
            },
            latency: commit.latency(),
            histogram: encode(&commit.hist),
            flush: flush.latency(),
            flush_histogram: encode(&flush.hist),
            service: (service.ios > 0).then(|| service.latency()),
            service_histogram: (service.ios > 0).then(|| encode(&service.hist)),
        }
    }
}

/// A bursting class's bursts and idle times in the window, as sums (`record_burst`, `record_idle`).
#[derive(Clone, Copy, Debug, Default)]
pub struct BurstTally {
    bursts: u64,
    ios: u64,
    active_ns: u64,
    idles: u64,
    idle_ns: u64,
}
