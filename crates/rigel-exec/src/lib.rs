//! The executor: runs one data point against an open volume and measures it. Its parts:
//! `point` (the coordinator: checking a point, starting the workers together, the measured
//! window's edges and the merged result, and each worker thread), `policy` (the closed- and
//! open-loop policy a worker runs: slots, offsets, mixes, think/burst, flush groups, the window,
//! the drain), `engines` (the one seam to the storage and its io_uring, libaio and psync engines;
//! all `unsafe` lives there), `pacing` (open-loop send times) and `verify` (data integrity).
//!
//! `run_point` spreads the point's load over worker threads (`share`), each with its own engine
//! (chosen by `resolve_engine`) and buffer arena, running a closed or open loop over offsets drawn
//! from the volume's slots; it then merges the workers' recordings into a `PointResult`.

mod engines;
mod failure;
mod live_seconds;
mod options;
mod pacing;
mod point;
mod policy;
mod refused;
mod reuse;
mod share;
#[cfg(test)]
mod tests;
mod touch;
pub mod verify;

pub use engines::RingMode;
pub use engines::clock::init as calibrate_clock;
pub use live_seconds::{LiveSecond, LiveSeconds};
pub use options::ExecOptions;
pub use point::cpu::process_cpu;
pub use point::engine_choice::resolve_engine;
pub use point::{ClassProbe, PointProbe, run_point, run_point_probed, run_point_with};
pub use policy::offsets::{SlotSpace, Stream};
pub use policy::skew;
pub use policy::skew::{BlockMap, Skew, class_key};
pub use refused::{RingRefused, probe_ring};
pub use reuse::Reuse;
pub use share::{ClassShare, split};

use std::os::fd::BorrowedFd;
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

/// An open target, in the volume's order (opened by `target/`, O_DIRECT unless buffered).
#[derive(Clone, Copy, Debug)]
pub struct ExecTarget<'a> {
    pub fd: BorrowedFd<'a>,
    pub path: &'a str,
}

/// How the command line steers and watches a running point.
#[derive(Clone, Debug)]
pub struct PointControl {
    /// Raised by SIGINT/SIGTERM: the point stops within a second.
    pub stop: Arc<AtomicBool>,
    /// Counters the progress display polls while the point runs.
    pub live: Arc<LiveCounters>,
    /// What the points of one run hand on to the next (share one across a run's points).
    pub reuse: Arc<Reuse>,
    /// A fleet's agreed start of the measured window (wall clock). Workers ready sooner keep
    /// warming up until then, so every host's window starts together whatever its setup took
    /// (rings, buffers and threads take tens of ms on a loaded host); a time already past, or
    /// `None`, leaves the window at the end of the warmup.
    pub window_at: Option<SystemTime>,
    /// `rigel replay`: the point's one class sends these requests at their send times (one
    /// worker) instead of drawing its I/Os.
    pub replay: Option<Arc<rigel_plan::replay::Replay>>,
    /// The CPUs to pin the workers to, dealt round-robin in worker order (`cpus = "0-3"`, or the
    /// device's NUMA node); `None` leaves them to the scheduler.
    pub cpus: Option<Vec<u32>>,
}

impl PointControl {
    /// Controls for points with up to `classes` classes.
    pub fn new(classes: usize) -> PointControl {
        PointControl {
            stop: Arc::new(AtomicBool::new(false)),
            live: Arc::new(LiveCounters::new(classes)),
            reuse: Arc::new(Reuse::default()),
            window_at: None,
            replay: None,
            cpus: None,
        }
    }
}

/// Completed I/Os and bytes per class (index = position in `DataPoint::classes`), warmup
/// included, updated once per completion batch; and the fallbacks the executor had to take.
#[derive(Debug, Default)]
pub struct LiveCounters {
    classes: Vec<(AtomicU64, AtomicU64)>,
    fallbacks: AtomicU32,
    /// The running point's finished seconds (`--metrics`).
    pub seconds: LiveSeconds,
}

const FALLBACK_BUFFERS: u32 = 1;
const FALLBACK_FILES: u32 = 2;

impl LiveCounters {
    pub fn new(classes: usize) -> LiveCounters {
        LiveCounters {
            classes: (0..classes)
                .map(|_| (AtomicU64::new(0), AtomicU64::new(0)))
                .collect(),
            fallbacks: AtomicU32::new(0),
            seconds: LiveSeconds::default(),
        }
    }

    #[inline]
    fn add(&self, class: usize, ios: u64, bytes: u64) {
        if let Some((i, b)) = self.classes.get(class) {
            i.fetch_add(ios, Ordering::Relaxed);
            b.fetch_add(bytes, Ordering::Relaxed);
        }
    }

    /// (I/Os, bytes) completed by class `class` so far.
    pub fn class(&self, class: usize) -> (u64, u64) {
        self.classes.get(class).map_or((0, 0), |(i, b)| {
            (i.load(Ordering::Relaxed), b.load(Ordering::Relaxed))
        })
    }

    /// (I/Os, bytes) over all classes.
    pub fn total(&self) -> (u64, u64) {
        (0..self.classes.len())
            .map(|c| self.class(c))
            .fold((0, 0), |(i, b), (ci, cb)| (i + ci, b + cb))
    }

    /// Zeroes the counters (between points).
    pub fn reset(&self) {
        for (i, b) in &self.classes {
            i.store(0, Ordering::Relaxed);
            b.store(0, Ordering::Relaxed);
        }
    }

    /// What the executor had to do without since this `LiveCounters` was made, as sentences for
    /// the user (say them once per run).
    pub fn notes(&self) -> Vec<&'static str> {
        let f = self.fallbacks.load(Ordering::Relaxed);
        let mut notes = Vec::new();
        if f & FALLBACK_BUFFERS != 0 {
            notes.push(
                "io_uring buffer registration refused (locked-memory limit, RLIMIT_MEMLOCK): \
                 using plain reads and writes, which cost more CPU per I/O",
            );
        }
        if f & FALLBACK_FILES != 0 {
            notes.push("io_uring file registration refused: using plain file descriptors");
        }
        notes
    }

    fn note(&self, flag: u32) {
        self.fallbacks.fetch_or(flag, Ordering::Relaxed);
    }
}

/// Why a point could not run at all (an I/O error is not one: it gives a failed point).
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("the point cannot run: {0}")]
    InvalidPoint(String),
    #[error("worker {worker} could not set up its io_uring: {source}")]
    Setup {
        worker: usize,
        #[source]
        source: RingRefused,
    },
    #[error("could not start a worker thread: {0}")]
    Spawn(#[source] std::io::Error),
    #[error("worker {0} stopped unexpectedly (a bug in rigel's executor)")]
    WorkerPanicked(usize),
    #[error("interrupted: the point was stopped before its end")]
    Interrupted,
}

/// What the workers share: the start signal, the abort flag and the point's timing.
///
/// Nobody polls with sleeps: a worker unparks the coordinator when it is ready, when it sets the
/// window's start and when it ends; the coordinator unparks the workers when it sets the start.
/// A poll's sleep granularity was paid on every point (milliseconds on short points).
pub(crate) struct Shared<'a> {
    ready: AtomicUsize,
    /// Workers that have ended (their outcome is final).
    ended: AtomicUsize,
    /// The thread running the point (`run_point`'s caller), woken by the workers.
    coordinator: std::thread::Thread,
    /// The point's start, monotonic ns (see `clock`).
    start: OnceLock<u64>,
    /// Workers whose whole share is in flight, out of `workers`.
    running: AtomicUsize,
    workers: usize,
    /// Start of the measured window, ns since `start`: set by the last worker to get its load in
    /// flight (so the window never sees a worker still starting), `NOT_YET` before.
    measure_from: AtomicU64,
    /// The earliest start of the measured window, ns since `start` (`PointControl::window_at`;
    /// 0 when none), set before the workers learn `start`.
    not_before: AtomicU64,
    abort: AtomicBool,
    stop: &'a AtomicBool,
    live: &'a LiveCounters,
    reuse: &'a Reuse,
    warmup_ns: u64,
    window_ns: u64,
    /// An I/O outstanding longer than this fails the point as stalled (`run.io_timeout`).
    io_timeout_ns: u64,
}

const NOT_YET: u64 = u64::MAX;

impl Shared<'_> {
    /// Blocks until the coordinator sets the common start time (setup only, not the hot path).
    fn wait_for_start(&self) -> u64 {
        loop {
            if let Some(t) = self.start.get() {
                return *t;
            }
            // The coordinator unparks every worker after setting the start; the timeout only
            // bounds a wait should a wake-up be missed.
            std::thread::park_timeout(Duration::from_millis(1));
        }
    }

    /// Wakes the coordinator: something it waits for (readiness, the window's start, a worker's
    /// end) happened.
    fn wake(&self) {
        self.coordinator.unpark();
    }
}
