//! The point's finished seconds while it runs: each worker hands over its 1-second interval
//! histograms once a second has passed (from its periodic publish, never per I/O), and whoever
//! watches the run (`--metrics`) reads the last second every worker has finished. They are the
//! same interval recorders `results.json`'s intervals are made of, so the two agree exactly.

use rigel_results::{ClassRecorder, IntervalRecorder};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// One finished second of the running point, over every worker.
#[derive(Clone, Debug)]
pub struct LiveSecond {
    /// The point's id.
    pub point: u32,
    /// The second's index in the measured window (0-based).
    pub index: usize,
    /// Per class (the point's order): the second's I/Os and latencies.
    pub classes: Vec<IntervalRecorder>,
}

/// The running point's seconds as the workers finish them.
#[derive(Debug, Default)]
pub struct LiveSeconds {
    inner: Mutex<Seconds>,
}

#[derive(Debug, Default)]
struct Seconds {
    point: u32,
    workers: usize,
    /// Per second: the workers that have handed it over, and its figures per class.
    done: Vec<usize>,
    data: Vec<Vec<IntervalRecorder>>,
}

impl LiveSeconds {
    fn lock(&self) -> MutexGuard<'_, Seconds> {
        // A worker that panicked holding it left whole seconds or none: the data stays usable.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new point: `workers` will each hand over `seconds` seconds of `classes` classes.
    pub(crate) fn begin(&self, point: u32, workers: usize, classes: usize, seconds: usize) {
        let mut s = self.lock();
        s.point = point;
        s.workers = workers;
        s.done = vec![0; seconds];
        s.data = (0..seconds)
            .map(|_| (0..classes).map(|_| IntervalRecorder::new()).collect())
            .collect();
    }

    /// A worker hands over seconds `from..to` of its classes' recorders (`(point class,
    /// recorder)`); each second is counted once per worker.
    pub(crate) fn add<'r>(
        &self,
        from: usize,
        to: usize,
        recorders: impl Iterator<Item = (usize, &'r ClassRecorder)> + Clone,
    ) {
        let mut s = self.lock();
        let to = to.min(s.done.len());
        for second in from..to {
            for (class, r) in recorders.clone() {
                if let (Some(mine), Some(theirs)) = (
                    s.data.get_mut(second).and_then(|d| d.get_mut(class)),
                    r.interval(second),
                ) {
                    mine.merge(theirs);
                }
            }
            s.done[second] += 1;
        }
    }

    /// The seconds of the running point's window.
    pub(crate) fn seconds(&self) -> usize {
        self.lock().done.len()
    }

    /// The last second every worker has handed over, if it is not `seen` (a `(point, index)`
    /// already read): a copy, taken once a second by the watcher.
    pub fn latest(&self, seen: Option<(u32, usize)>) -> Option<LiveSecond> {
        let s = self.lock();
        let index = s.done.iter().rposition(|&n| n >= s.workers && n > 0)?;
        if seen == Some((s.point, index)) {
            return None;
        }
        Some(LiveSecond {
            point: s.point,
            index,
            classes: s.data[index].clone(),
        })
    }
}
