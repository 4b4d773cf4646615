//! A class's sampled reads while a point runs, split into first touch and re-touch (the executor
//! says which), turned into the results' `touch` afterwards.

use super::{ClassRecorder, DirRecorder};
use crate::codec::encode;
use crate::model::{TouchReads, TouchResult};

impl ClassRecorder {
    /// Records one sampled read: `first` when its block had not been touched before in the run.
    /// The histograms are made at the first sampled read (about one read in 1,024 is sampled).
    #[inline]
    pub fn record_touch(&mut self, first: bool, latency_ns: u64) {
        let t = self
            .touch
            .get_or_insert_with(|| Box::new([DirRecorder::new(), DirRecorder::new()]));
        t[usize::from(!first)].record(latency_ns, 0);
    }

    pub(super) fn merge_touch(&mut self, other: &ClassRecorder) {
        if let Some(theirs) = &other.touch {
            let mine = self
                .touch
                .get_or_insert_with(|| Box::new([DirRecorder::new(), DirRecorder::new()]));
            mine[0].merge(&theirs[0]);
            mine[1].merge(&theirs[1]);
        }
    }

    /// The sampled reads' figures (None: the class had none).
    pub(super) fn touch_result(&self) -> Option<TouchResult> {
        let t = self.touch.as_deref()?;
        let reads = |d: &DirRecorder| {
            let l = d.latency();
            TouchReads {
                reads: d.ios,
                p50_ns: l.p50_ns,
                p99_ns: l.p99_ns,
                mean_ns: l.mean_ns,
                histogram: (d.ios > 0).then(|| encode(&d.hist)),
            }
        };
        Some(TouchResult {
            first: reads(&t[0]),
            retouch: reads(&t[1]),
        })
    }
}
