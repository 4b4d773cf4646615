//! A class's size mix and grouped durable writes while a point runs: completed I/Os counted per
//! size of the mix, and each commit's latency (a group of writes and its flush) beside the flush's
//! own, turned into the results' `sizes` and `commit` afterwards.

use super::{ClassRecorder, DirRecorder};
use crate::codec::encode;
use crate::model::{CommitResult, SizeShareResult};

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

    /// Records one commit completed in the window: from its first write's submission to its
    /// flush's completion (`commit_ns`), and the flush alone (`flush_ns`).
    #[inline]
    pub fn record_commit(&mut self, commit_ns: u64, flush_ns: u64) {
        let c = self
            .commits
            .get_or_insert_with(|| Box::new((DirRecorder::new(), DirRecorder::new())));
        c.0.record(commit_ns, 0);
        c.1.record(flush_ns, 0);
    }

    pub(super) fn merge_workload(&mut self, other: &ClassRecorder) {
        for (i, &n) in other.sizes.iter().enumerate() {
            if n > 0 {
                self.count_sizes(i, n);
            }
        }
        if let Some(theirs) = &other.commits {
            let mine = self
                .commits
                .get_or_insert_with(|| Box::new((DirRecorder::new(), DirRecorder::new())));
            mine.0.merge(&theirs.0);
            mine.1.merge(&theirs.1);
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
        let empty = (DirRecorder::new(), DirRecorder::new());
        let (commit, flush) = self.commits.as_deref().unwrap_or(&empty);
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
        }
    }
}
