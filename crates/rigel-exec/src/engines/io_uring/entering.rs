//! How a worker enters the kernel each turn: submit and wait for a completion, or, while its I/Os
//! complete during their own submission (page-cache reads), submit only.
//!
//! A waiting entry costs the kernel's wait path even when the completion is already in the ring
//! (`io_cqring_wait` and the task-work run: about 2.5% of a page-cache read at queue depth 1).
//! A page-cache read completes inline, before the submitting call returns, so a submit-only entry
//! finds it there. A device's completions arrive later and, with DEFER_TASKRUN, are delivered
//! only by an entry that waits. So a submit-only entry counts only when it finds every I/O in
//! flight completed: then nothing is left for a wait to deliver, and no completion is held back
//! (a partly cached file would otherwise see its misses' completions delayed, and timed late).
//! Otherwise the worker waits at once, and keeps waiting for `BACKOFF` turns before trying
//! again.

use crate::engines::clock::Elapsed;
use crate::failure::{Failure, transient};
use io_uring::{cqueue, types};
use std::io;

/// Turns a worker waits as usual after a submit-only entry found nothing completed. A device
/// worker then pays one extra system call every this many turns.
const BACKOFF: u32 = 256;
/// While submitting only, a waiting entry at least this often (ns): the timer's completion (stop
/// flag, stalls) is delivered only by an entry that waits.
const WAIT_EVERY_NS: u64 = 1_000_000;

/// The worker's choice between the two kinds of entry.
pub(crate) struct Entering {
    /// Turns left before a submit-only entry is tried again (0: submit only).
    backoff: u32,
    /// While submitting only: when (ns since the point's start) the next entry waits anyway.
    wait_due: u64,
    /// Submit-only entries made, and those that found completions (they completed during
    /// their submission).
    pub(crate) submit_only: u64,
    pub(crate) inline_turns: u64,
}

impl Entering {
    pub(crate) fn new() -> Entering {
        Entering {
            backoff: 0,
            wait_due: 0,
            submit_only: 0,
            inline_turns: 0,
        }
    }

    /// Submits what is queued and returns once a completion is in the ring, or (open loop) when
    /// the send time `until` comes first. `now` is the clock read at the last turn, `in_flight`
    /// the I/Os in flight once the queue is submitted. An error that is not transient fails the
    /// point.
    #[inline]
    pub(crate) fn enter(
        &mut self,
        submitter: &io_uring::Submitter<'_>,
        cq: &mut cqueue::CompletionQueue<'_, impl cqueue::EntryMarker>,
        clock: &Elapsed,
        now: u64,
        in_flight: usize,
        until: Option<u64>,
    ) -> Result<(), Failure> {
        if until.is_none() && self.backoff == 0 {
            if now < self.wait_due {
                self.submit_only += 1;
                checked(submitter.submit(), clock)?;
                cq.sync();
                if cq.len() >= in_flight.max(1) {
                    self.inline_turns += 1;
                    return Ok(());
                }
                // Some I/O did not complete inline (a device's): the wait delivers what has
                // completed, and the worker keeps waiting.
                self.backoff = BACKOFF;
            } else {
                self.wait_due = now + WAIT_EVERY_NS;
            }
        } else if self.backoff > 0 {
            self.backoff -= 1;
        }
        let entered = match until {
            Some(t) => submit_and_wait_until(submitter, clock.ns(), t),
            None => submitter.submit_and_wait(1),
        };
        checked(entered, clock)
    }
}

/// An entry's error fails the point unless it is transient (the loop simply enters again).
#[inline]
fn checked(entered: std::io::Result<usize>, clock: &Elapsed) -> Result<(), Failure> {
    match entered {
        Err(e) if !transient(e.raw_os_error().unwrap_or(0)) => Err(Failure {
            target: 0,
            offset: 0,
            errno: e.raw_os_error().unwrap_or(0),
            message: format!("io_uring_enter: {e}"),
            at_ns: clock.ns(),
            stalled: false,
        }),
        _ => Ok(()),
    }
}

/// Submits what is queued and waits for a completion, or until `until_ns` (an open-loop send
/// time, ns since the point's start, `now_ns` being the present) when that comes first.
fn submit_and_wait_until(
    submitter: &io_uring::Submitter<'_>,
    now_ns: u64,
    until_ns: u64,
) -> io::Result<usize> {
    let wait = until_ns.saturating_sub(now_ns);
    if wait == 0 {
        return submitter.submit();
    }
    let ts = types::Timespec::new()
        .sec(wait / 1_000_000_000)
        .nsec((wait % 1_000_000_000) as u32);
    let args = types::SubmitArgs::new().timespec(&ts);
    submitter.submit_with_args(1, &args)
}
