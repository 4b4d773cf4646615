//! A fake engine for the policy's unit tests: no kernel, no I/O. Each request completes after a
//! scripted time on the policy's own clock (a read, a write, a flush, a timer's interval), one
//! chosen request may stall until cancelled, and every push and completion is logged with its
//! time, so a test can check what the policy asked for (the depth it held, its replacements, its
//! flush groups, its think and burst timing, its cancel and drain) against what it recorded.
//!
//! The script and the log are process-wide (a worker builds its engine on its own thread):
//! tests using the fake run one at a time (`#[serial]`).

use super::ready::Ready;
use super::seam::{Completion, Engine, Live, Op, Open, Opened};
use crate::engines::clock::{Elapsed, monotonic_ns};
use crate::failure::Failure;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::io;
use std::sync::Mutex;
use std::time::Duration;

/// How long each kind of request takes, and which one never completes by itself.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Script {
    pub read_ns: u64,
    pub write_ns: u64,
    pub flush_ns: u64,
    /// The n-th read or write pushed (0-based, over the point) stalls until a cancel.
    pub stall_nth: Option<u64>,
}

/// What a logged request was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Read,
    Write {
        dsync: bool,
    },
    Flush {
        target: u32,
        data_only: bool,
    },
    Timer {
        ns: u64,
    },
    Cancel,
    /// A trim of `len` bytes (completes after the script's write time).
    Trim {
        len: u64,
    },
}

/// One line of the log: a push (`done: None`) or a completion (`done: Some(result)`), at `at`
/// (monotonic ns).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Event {
    pub at: u64,
    pub tag: u64,
    pub kind: Kind,
    pub done: Option<i32>,
}

static SCRIPT: Mutex<Option<Script>> = Mutex::new(None);
static LOG: Mutex<Vec<Event>> = Mutex::new(Vec::new());

/// Sets the script for the next point and clears the log.
pub(crate) fn script(s: Script) {
    *SCRIPT.lock().unwrap_or_else(|e| e.into_inner()) = Some(s);
    LOG.lock().unwrap_or_else(|e| e.into_inner()).clear();
}

/// The log so far, in time order.
pub(crate) fn log() -> Vec<Event> {
    let mut l = LOG.lock().unwrap_or_else(|e| e.into_inner()).clone();
    l.sort_by_key(|e| e.at);
    l
}

/// Logs a request or its completion under the policy's own tag (a slot's read or write without
/// its `SLOT_RW` marker, as `SlotBufs::returned` hands it to the policy).
fn note(tag: u64, kind: Kind, done: Option<i32>) {
    let tag = if super::seam::is_slot_rw(tag) {
        tag & !super::seam::SLOT_RW
    } else {
        tag
    };
    LOG.lock().unwrap_or_else(|e| e.into_inner()).push(Event {
        at: monotonic_ns(),
        tag,
        kind,
        done,
    });
}

/// A worker's fake engine: requests pending until their scripted time, those due and not yet
/// reaped, and the stalled one.
pub(crate) struct FakeEngine {
    script: Script,
    pending: BinaryHeap<Pending>,
    ready: Ready<Kind>,
    stalled: Vec<(u64, Kind)>,
    pushed: u64,
    rws: u64,
}

/// A pending request: (due, push order, tag, result, kind), the heap's earliest due first.
type Pending = Reverse<(u64, u64, u64, i32, KindKey)>;

/// `Kind` in a form the heap can order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct KindKey(u8, u64, bool);

impl KindKey {
    fn of(k: Kind) -> KindKey {
        match k {
            Kind::Read => KindKey(0, 0, false),
            Kind::Write { dsync } => KindKey(1, 0, dsync),
            Kind::Flush { target, data_only } => KindKey(2, u64::from(target), data_only),
            Kind::Timer { ns } => KindKey(3, ns, false),
            Kind::Cancel => KindKey(4, 0, false),
            Kind::Trim { len } => KindKey(5, len, false),
        }
    }

    fn kind(self) -> Kind {
        match self.0 {
            0 => Kind::Read,
            1 => Kind::Write { dsync: self.2 },
            2 => Kind::Flush {
                target: self.1 as u32,
                data_only: self.2,
            },
            3 => Kind::Timer { ns: self.1 },
            5 => Kind::Trim { len: self.1 },
            _ => Kind::Cancel,
        }
    }
}

impl Engine for FakeEngine {
    const NAME: &'static str = "fake";

    type Live<'r> = &'r mut FakeEngine;

    fn open(_: &Open<'_>) -> io::Result<Opened<Self>> {
        let script = SCRIPT
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .ok_or_else(|| io::Error::other("the fake engine has no script"))?;
        Ok(Opened {
            engine: FakeEngine {
                script,
                pending: BinaryHeap::new(),
                ready: Ready::with_capacity(0),
                stalled: Vec::new(),
                pushed: 0,
                rws: 0,
            },
            buf_index: Vec::new(),
        })
    }

    fn live(&mut self) -> &mut FakeEngine {
        self
    }

    fn options(&self) -> BTreeMap<String, String> {
        BTreeMap::from([("script".to_owned(), format!("{:?}", self.script))])
    }

    fn close(self) {}
}

impl FakeEngine {
    /// Moves every pending request and timer due by now to the ready queue.
    fn collect(&mut self) {
        let now = monotonic_ns();
        while let Some(Reverse((due, _, tag, result, kind))) = self.pending.peek().copied() {
            if due > now {
                break;
            }
            self.pending.pop();
            self.ready.push(Completion { tag, result }, kind.kind());
        }
        self.ready.fire();
    }
}

impl Live for &mut FakeEngine {
    unsafe fn push(&mut self, tag: u64, op: Op<'_>) {
        let (kind, after, result) = match op {
            Op::Rw(rw) => {
                let kind = if rw.write {
                    Kind::Write { dsync: rw.dsync }
                } else {
                    Kind::Read
                };
                let n = self.rws;
                self.rws += 1;
                if self.script.stall_nth == Some(n) {
                    note(tag, kind, None);
                    self.stalled.push((tag, kind));
                    return;
                }
                let after = if rw.write {
                    self.script.write_ns
                } else {
                    self.script.read_ns
                };
                (kind, after, rw.len as i32)
            }
            Op::Flush { target, data_only } => {
                (Kind::Flush { target, data_only }, self.script.flush_ns, 0)
            }
            Op::Trim(t) => (Kind::Trim { len: t.len }, self.script.write_ns, 0),
            Op::Timer(iv) => {
                note(tag, Kind::Timer { ns: iv.ns() }, None);
                self.ready.push_timer(tag, iv, Kind::Timer { ns: iv.ns() });
                return;
            }
        };
        note(tag, kind, None);
        let due = monotonic_ns() + after;
        self.pushed += 1;
        self.pending
            .push(Reverse((due, self.pushed, tag, result, KindKey::of(kind))));
    }

    fn submit(&mut self) {}

    fn enter(
        &mut self,
        clock: &Elapsed,
        _now: u64,
        _in_flight: usize,
        until: Option<u64>,
    ) -> Result<(), Failure> {
        self.collect();
        if !self.ready.is_empty() {
            return Ok(());
        }
        let now = monotonic_ns();
        let mut wake = self.pending.peek().map_or(u64::MAX, |r| r.0.0);
        if let Some(wait) = self.ready.wait_ns(clock, until) {
            wake = wake.min(now + wait);
        }
        if wake == u64::MAX {
            // Nothing will ever complete (only a stalled request): a bounded wait, as the tick
            // bounds a real engine's.
            wake = now + 100_000_000;
        }
        std::thread::sleep(Duration::from_nanos(wake.saturating_sub(now)));
        self.collect();
        Ok(())
    }

    fn ready(&mut self) -> usize {
        self.ready.len()
    }

    fn next(&mut self) -> Option<Completion> {
        let (c, kind) = self.ready.next()?;
        note(c.tag, kind, Some(c.result));
        Some(c)
    }

    fn consumed(&mut self) {}

    fn cancel(&mut self, tag: u64) {
        note(tag, Kind::Cancel, None);
        // Everything not yet done is withdrawn, as io_uring's cancel of any request does (a real
        // device's I/O would finish instead: either way each request completes once).
        let cancelled = |tag| Completion {
            tag,
            result: -libc::ECANCELED,
        };
        for (t, kind) in std::mem::take(&mut self.stalled) {
            self.ready.push(cancelled(t), kind);
        }
        while let Some(Reverse((_, _, t, _, kind))) = self.pending.pop() {
            self.ready.push(cancelled(t), kind.kind());
        }
        self.ready.cancel(tag, Kind::Cancel);
    }
}
