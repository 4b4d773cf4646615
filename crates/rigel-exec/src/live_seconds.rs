//! The point's finished seconds while it runs: each worker hands over its 1-second interval
//! histograms once a second has passed (from its periodic publish, never per I/O), and whoever
//! watches the run (`--metrics`) reads the last second every worker has finished. They are the
//! same interval recorders `results.json`'s intervals are made of, so the two agree exactly.

use rigel_results::{ClassRecorder, IntervalRecorder};
use std::sync::atomic::{AtomicBool, Ordering};
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

/// The running point's seconds as the workers finish them. Nothing is handed over until someone
/// watches ([`LiveSeconds::watch`]), and only the last finished second and those still open are
/// kept: a long point costs a few seconds' histograms, not one per second.
#[derive(Debug, Default)]
pub struct LiveSeconds {
    inner: Mutex<Seconds>,
    watched: AtomicBool,
}

#[derive(Debug, Default)]
struct Seconds {
    point: u32,
    workers: usize,
    classes: usize,
    /// Per second: the workers that have handed it over, and its figures per class (`None`
    /// before the first hand-over, and again once a later second is finished).
    done: Vec<usize>,
    data: Vec<Option<Vec<IntervalRecorder>>>,
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
        s.classes = classes;
        s.done = vec![0; seconds];
        s.data = vec![None; seconds];
    }

    /// Someone reads the seconds: the workers hand them over from now on (the seconds they
    /// finished before too).
    pub fn watch(&self) {
        self.watched.store(true, Ordering::Relaxed);
    }

    /// Whether the workers hand their seconds over.
    pub(crate) fn watched(&self) -> bool {
        self.watched.load(Ordering::Relaxed)
    }

    /// A worker hands over seconds `from..to` of its classes' recorders (`(point class,
    /// recorder)`); each second is counted once per worker.
    pub(crate) fn add<'r>(
        &self,
        from: usize,
        to: usize,
        recorders: impl Iterator<Item = (usize, &'r ClassRecorder)> + Clone,
    ) {
        let mut guard = self.lock();
        let s = &mut *guard;
        let to = to.min(s.done.len());
        for second in from..to {
            let classes = s.classes;
            let data = s.data[second]
                .get_or_insert_with(|| (0..classes).map(|_| IntervalRecorder::new()).collect());
            for (class, r) in recorders.clone() {
                if let (Some(mine), Some(theirs)) = (data.get_mut(class), r.interval(second)) {
                    mine.merge(theirs);
                }
            }
            s.done[second] += 1;
        }
        // Only the last finished second is ever read: the ones before it go.
        if let Some(last) = s.last_done() {
            s.data[..last].iter_mut().for_each(|d| *d = None);
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
        let index = s.last_done()?;
        if seen == Some((s.point, index)) {
            return None;
        }
        Some(LiveSecond {
            point: s.point,
            index,
            classes: s.data[index].clone()?,
        })
    }
}

impl Seconds {
    /// The last second every worker has handed over.
    fn last_done(&self) -> Option<usize> {
        self.done.iter().rposition(|&n| n >= self.workers && n > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recorder of 3 seconds with `ios` reads of 1 µs in each.
    fn recorder(ios: u64) -> ClassRecorder {
        let mut r = ClassRecorder::new(3);
        for tick in [0, 10, 20] {
            for _ in 0..ios {
                r.record(false, 1_000, 4096, tick);
            }
        }
        r.seal();
        r
    }

    #[test]
    #[serial_test::parallel]
    fn a_second_is_read_once_every_worker_handed_it_over_and_holds_their_sum() {
        let live = LiveSeconds::default();
        live.begin(7, 2, 1, 3);
        let (a, b) = (recorder(10), recorder(5));
        live.add(0, 2, [(0, &a)].into_iter());
        assert!(live.latest(None).is_none(), "one worker of two");
        live.add(0, 1, [(0, &b)].into_iter());
        let s = live.latest(None).expect("second 0 is whole");
        assert_eq!((s.point, s.index, s.classes[0].ios()), (7, 0, 15));
        assert!(live.latest(Some((7, 0))).is_none(), "already seen");
        live.add(1, 3, [(0, &b)].into_iter());
        live.add(2, 3, [(0, &a)].into_iter());
        let s = live.latest(Some((7, 0))).expect("second 2 is whole");
        assert_eq!((s.index, s.classes[0].ios()), (2, 15));
        // Only the last finished second is kept.
        assert!(live.lock().data[..2].iter().all(Option::is_none));
    }
}
