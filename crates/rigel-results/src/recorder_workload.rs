//! A class's size mix and grouped durable writes while a point runs: completed I/Os counted per
//! size of the mix, and each commit's latency (a group of writes and its flush) beside the flush's
//! own, turned into the results' `sizes` and `commit` afterwards.

use super::{ClassRecorder, DirRecorder};
use crate::codec::encode;
use crate::model::{CommitResult, SizeShareResult};

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
    /// Counts one completed I/O of a size-mix class by its size's index in the mix.
    #[inline]
    pub fn count_size(&mut self, index: u8) {
        let i = index as usize;
        if i >= self.sizes.len() {
            self.sizes.resize(i + 1, 0);
        }
        self.sizes[i] += 1;
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

    pub(super) fn merge_workload(&mut self, other: &ClassRecorder) {
        for (i, &n) in other.sizes.iter().enumerate() {
            if n > 0 {
                self.count_sizes(i, n);
            }
        }
        if let Some(theirs) = &other.commits {
            let mine = self.commits.get_or_insert_with(Commits::new);
            mine.commit.merge(&theirs.commit);
            mine.flush.merge(&theirs.flush);
            mine.service.merge(&theirs.service);
        }
    }

    fn count_sizes(&mut self, i: usize, n: u64) {
        if i >= self.sizes.len() {
            self.sizes.resize(i + 1, 0);
        }
        self.sizes[i] += n;
    }

    /// Each size's share of the window's I/Os, beside the share asked: `mix` lists (size, asked
    /// share) in the mix's order, as `count_size`'s indices do.
    pub fn size_shares(&self, mix: &[(u64, f64)]) -> Vec<SizeShareResult> {
        let total: u64 = self.sizes.iter().sum();
        mix.iter()
            .enumerate()
            .map(|(i, &(size, asked))| {
                let ios = self.sizes.get(i).copied().unwrap_or(0);
                SizeShareResult {
                    size,
                    asked,
                    ios,
                    achieved: if total > 0 {
                        ios as f64 / total as f64
                    } else {
                        0.0
                    },
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
