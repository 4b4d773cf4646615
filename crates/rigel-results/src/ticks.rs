//! Sub-second counts of one class while a point runs: per 100 ms tick and direction, the I/Os
//! completed and the sum of their latencies. What `rigel compare` needs to give a 1 s point a
//! spread, at two numbers per tick and direction (a histogram per tick would outweigh the point).

use crate::model::Ticks;

/// Ticks per second of the measured window: the executor passes the tick an I/O completed in.
pub const TICKS_PER_SECOND: usize = 10;
/// At most this many ticks are kept per class; longer windows keep coarser ticks (a multiple of
/// 100 ms), which still leaves 600 samples, so the results stay the size of their seconds'.
const MAX_TICKS: usize = 600;

/// I/Os and their latency sum, ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Count {
    pub(crate) ios: u64,
    pub(crate) ns: u64,
}

impl Count {
    fn add(&mut self, other: Count) {
        self.ios += other.ios;
        self.ns += other.ns;
    }
}

/// Both directions' counts per tick of the window.
#[derive(Clone, Debug)]
pub(crate) struct TickRecorder {
    read: Vec<Count>,
    write: Vec<Count>,
}

impl TickRecorder {
    /// Ticks for a window of `seconds` (the last may be partial).
    pub(crate) fn new(seconds: usize) -> TickRecorder {
        let n = seconds.max(1) * TICKS_PER_SECOND;
        TickRecorder {
            read: vec![Count::default(); n],
            write: vec![Count::default(); n],
        }
    }

    /// The last tick index (later completions are counted in it, as the seconds do).
    pub(crate) fn last(&self) -> usize {
        self.read.len() - 1
    }

    pub(crate) fn add(&mut self, tick: usize, read: Count, write: Count) {
        let tick = tick.min(self.last());
        self.read[tick].add(read);
        self.write[tick].add(write);
    }

    pub(crate) fn merge(&mut self, other: &TickRecorder) {
        for (mine, theirs) in [
            (&mut self.read, &other.read),
            (&mut self.write, &other.write),
        ] {
            for (m, t) in mine.iter_mut().zip(theirs) {
                m.add(*t);
            }
        }
    }

    /// The ticks of a window of `window_s` seconds, for the directions the class does.
    pub(crate) fn finish(&self, window_s: f64, reads: bool, writes: bool) -> Ticks {
        let n = ((window_s * TICKS_PER_SECOND as f64 - 1e-6).ceil().max(1.0) as usize)
            .min(self.read.len());
        // Coarser ticks past MAX_TICKS: k of 100 ms each.
        let k = n.div_ceil(MAX_TICKS).max(1);
        let group = |v: &[Count]| -> Vec<Count> {
            v[..n]
                .chunks(k)
                .map(|c| {
                    c.iter().fold(Count::default(), |mut a, b| {
                        a.add(*b);
                        a
                    })
                })
                .collect()
        };
        let (r, w) = (group(&self.read), group(&self.write));
        let ios = |v: &[Count], on: bool| on.then(|| v.iter().map(|c| c.ios).collect());
        let ns = |v: &[Count], on: bool| on.then(|| v.iter().map(|c| c.ns).collect());
        Ticks {
            ms: (k * 1000 / TICKS_PER_SECOND) as u32,
            read_ios: ios(&r, reads).unwrap_or_default(),
            read_latency_ns: ns(&r, reads).unwrap_or_default(),
            write_ios: ios(&w, writes).unwrap_or_default(),
            write_latency_ns: ns(&w, writes).unwrap_or_default(),
        }
    }
}
