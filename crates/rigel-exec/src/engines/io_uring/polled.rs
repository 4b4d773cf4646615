//! io_uring with polled completions (`polled = true`: IORING_SETUP_IOPOLL, fio's `hipri`): the
//! worker's entry that waits spins on the device's poll queue instead of sleeping until an
//! interrupt. A polled ring takes only reads and writes (the kernel refuses timeouts, cancels and
//! flushes on it), so this engine wraps the io_uring one and keeps the policy's timers itself,
//! as libaio does (`ready.rs`); the plan refuses flushing classes. A separate type, not a flag:
//! the default ring's hot path is unchanged, each loop compiled for its own engine. It wraps the
//! default ring (`IoUringEngine`) or the passthrough one (`PassthruEngine`: NVMe commands on a
//! namespace's poll queues, Linux 6.1+), each of which opens its ring with IOPOLL when asked.

use super::super::ready::Ready;
use super::super::seam::{Completion, Engine, Facts, Live, Op, Open, Opened};
use super::IoUringEngine;
use crate::engines::clock::Elapsed;
use crate::failure::Failure;
use std::collections::BTreeMap;
use std::io;

/// A worker's polled ring (of engine `E`), its timers and the completions they made.
pub(crate) struct PolledEngine<E: Engine = IoUringEngine> {
    ring: E,
    /// The policy's timers and the completions made here (flushes refused).
    ready: Ready,
    /// Reads and writes in the ring (the policy's count holds its timers too).
    in_ring: usize,
}

impl<E: Engine> Engine for PolledEngine<E> {
    const NAME: &'static str = E::NAME;

    type Live<'r>
        = PolledLive<'r, E::Live<'r>>
    where
        E: 'r;

    fn open(open: &Open<'_>) -> io::Result<Opened<Self>> {
        let Opened { engine, buf_index } = E::open(open)?;
        Ok(Opened {
            engine: PolledEngine {
                ring: engine,
                ready: Ready::with_capacity(open.entries as usize),
                in_ring: 0,
            },
            buf_index,
        })
    }

    fn live(&mut self) -> PolledLive<'_, E::Live<'_>> {
        PolledLive {
            ring: self.ring.live(),
            ready: &mut self.ready,
            in_ring: &mut self.in_ring,
        }
    }

    fn options(&self) -> BTreeMap<String, String> {
        let mut o = self.ring.options();
        o.insert("polled".into(), "true".into());
        o
    }

    fn facts(&self) -> Facts {
        self.ring.facts()
    }

    fn close(self) {
        self.ring.close();
    }
}

/// The polled ring's hot path: reads and writes go to the ring, timers stay here.
pub(crate) struct PolledLive<'r, L> {
    ring: L,
    ready: &'r mut Ready,
    in_ring: &'r mut usize,
}

impl<L: Live> Live for PolledLive<'_, L> {
    #[inline(always)]
    unsafe fn push(&mut self, tag: u64, op: Op<'_>) {
        match op {
            Op::Timer(interval) => self.ready.push_timer(tag, interval, ()),
            // The plan refuses flushing and trimming classes on a polled ring (neither can be
            // polled); one reaching it anyway (a replayed flush or discard) fails as the kernel
            // would fail it, never silently.
            Op::Flush { .. } | Op::Trim(_) => self.ready.push(
                Completion {
                    tag,
                    result: -libc::EOPNOTSUPP,
                },
                (),
            ),
            Op::Rw(_) => {
                *self.in_ring += 1;
                // SAFETY: the caller's guarantees for this request, passed on unchanged.
                unsafe { self.ring.push(tag, op) };
            }
        }
    }

    #[inline(always)]
    fn submit(&mut self) {
        self.ring.submit();
    }

    #[inline]
    fn enter(
        &mut self,
        clock: &Elapsed,
        now: u64,
        _in_flight: usize,
        until: Option<u64>,
    ) -> Result<(), Failure> {
        self.ready.fire();
        if !self.ready.is_empty() {
            self.ring.submit();
            return Ok(());
        }
        if *self.in_ring > 0 {
            // Polls until a read or write completes: on a device with poll queues, microseconds,
            // so the timers are fired again soon after.
            self.ring.enter(clock, now, *self.in_ring, until)?;
        } else if let Some(wait) = self.ready.wait_ns(clock, until) {
            // Only timers in flight (every slot thinking or idle): nothing to poll.
            std::thread::sleep(std::time::Duration::from_nanos(wait));
        }
        self.ready.fire();
        Ok(())
    }

    #[inline(always)]
    fn ready(&mut self) -> usize {
        self.ready.len() + self.ring.ready()
    }

    #[inline(always)]
    fn next(&mut self) -> Option<Completion> {
        if let Some(c) = self.ready.next_completion() {
            return Some(c);
        }
        let c = self.ring.next()?;
        *self.in_ring -= 1;
        Some(c)
    }

    #[inline(always)]
    fn consumed(&mut self) {
        self.ring.consumed();
    }

    fn cancel(&mut self, tag: u64) {
        // A polled ring cannot cancel (the kernel refuses the request); its reads and writes
        // complete within microseconds, and the drain waits for them. The timers end here.
        self.ready.cancel(tag, ());
    }
}
