//! A turn's open-loop side: parking a rate class's slots, issuing each I/O at its send time
//! (`pacing` keeps the schedule) and recording both latencies.

use crate::engines::Live;
use crate::pacing::tight_timer_slack;
use crate::policy::slots::{PARKED, State};

/// What became of an I/O completed on a slot (`State::complete_paced`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Paced {
    /// A closed-loop slot: the caller gives it its next I/O.
    No,
    /// An open-loop slot, parked until a send time takes it.
    Parked,
    /// An open-loop slot whose write filled its class's group: it holds the group's flush.
    Flushing,
}

impl State<'_> {
    /// At the loop's start: parks the open-loop slots (their I/Os wait for their send times) and
    /// starts the schedules at `now`. Returns whether any class is paced.
    pub(crate) fn start_pacing(&mut self, now: u64) -> bool {
        let mut paced = false;
        for (i, slot) in self.slots.iter_mut().enumerate() {
            if let Some(p) = &mut self.classes[slot.class].pacer {
                slot.submitted_ns = PARKED;
                p.release(i);
            }
        }
        for c in &mut self.classes {
            if let Some(p) = &mut c.pacer {
                p.schedule.shift(now);
                paced = true;
            }
        }
        if paced {
            tight_timer_slack();
        }
        paced
    }

    /// Whether slot `i` belongs to an open-loop class: its completed I/O is recorded with both
    /// latencies and the slot parks until the next send time, or holds the flush its write
    /// started (`Paced::Flushing`, `flush.rs`). `Paced::No` for a closed-loop slot.
    #[inline]
    pub(crate) fn complete_paced(
        &mut self,
        i: usize,
        now: u64,
        measuring: bool,
        tick: usize,
        from: u64,
        eng: &mut impl Live,
    ) -> Paced {
        let slot = &mut self.slots[i];
        let class = &mut self.classes[slot.class];
        let Some(p) = &mut class.pacer else {
            return Paced::No;
        };
        if slot.replayed == crate::policy::slots::Replayed::Flush {
            // A replayed flush moves no data: its response and service go to the commits.
            if measuring {
                let service = now.saturating_sub(slot.submitted_ns);
                class.recorder.record_commit(
                    now.saturating_sub(slot.scheduled_ns),
                    Some(service),
                    service,
                );
            }
            self.park(i);
            return Paced::Parked;
        }
        class.ios_delta += 1;
        class.bytes_delta += slot.len as u64;
        let response = now.saturating_sub(slot.scheduled_ns);
        let service = now.saturating_sub(slot.submitted_ns);
        // Warmup I/Os too: the punctual sender's slots are then as busy as at the window's start.
        let queued = p.punctual.queued(slot.scheduled_ns, service);
        // First touch, by the service latency: the device's time for the block, not the wait
        // for a send slot, which first and later reads share.
        if !slot.trim
            && let Some(first) = self
                .touched
                .touch(slot.target, slot.offset, slot.len as u64)
            && measuring
            && !slot.write
        {
            class.recorder.record_touch(first, service);
        }
        if measuring && slot.trim {
            class.recorder.record_trim(response, slot.len as u64);
        } else if measuring {
            class
                .recorder
                .record_paced(slot.write, response, service, slot.len as u64, tick);
            // Response = queued + lag + service for every I/O (a punctual sender never waits
            // longer than rigel did: the clamp only catches completions taken out of order).
            let waited = response.saturating_sub(service);
            class
                .recorder
                .record_delays(queued.min(waited), waited.saturating_sub(queued));
            // Due before the window but sent only inside it: a backlog carried in. One sent
            // before the window (in flight at its start) is not: it stands for those still in
            // flight at the window's end, which the window does not count.
            if slot.scheduled_ns < from && slot.submitted_ns >= from {
                class.recorder.record_carried();
            }
            if slot.bucket != crate::policy::slots::NO_BUCKET {
                class.recorder.count_rank(slot.bucket);
            }
            if slot.size_index != crate::policy::mix::NO_SIZE {
                let len = slot.len as u64;
                class.recorder.record_size(
                    slot.size_index,
                    slot.write,
                    response,
                    Some(service),
                    len,
                );
            }
        }
        if slot.write && self.start_flush(i, now, eng) {
            return Paced::Flushing;
        }
        self.park(i);
        Paced::Parked
    }

    /// Parks open-loop slot `i` until a send time takes it.
    #[inline]
    pub(crate) fn park(&mut self, i: usize) {
        let slot = &mut self.slots[i];
        slot.submitted_ns = PARKED;
        if let Some(p) = &mut self.classes[slot.class].pacer {
            p.release(i);
        }
    }

    /// Issues every open-loop I/O due by `now` that has a free slot; returns how many. `window`
    /// is the measured window [from, end), ns.
    #[inline]
    pub(crate) fn issue_due(&mut self, now: u64, window: (u64, u64), eng: &mut impl Live) -> usize {
        let mut issued = 0;
        for c in 0..self.classes.len() {
            while let Some((i, t)) = self.classes[c]
                .pacer
                .as_mut()
                .and_then(|p| p.due(now, window))
            {
                // Stamped with this turn's clock reading: the engine is entered with it right
                // after the turn (nothing waits in between), so the reading stands for the send.
                let replayed = self.classes[c]
                    .pacer
                    .as_ref()
                    .and_then(|p| p.schedule.taken_request());
                match replayed {
                    Some(req) => self.replay_io(i, now, req, eng),
                    None => self.next_io(i, now, eng),
                }
                self.slots[i].scheduled_ns = t;
                issued += 1;
            }
        }
        issued
    }

    /// Whether some class replays a trace.
    pub(crate) fn replays(&self) -> bool {
        self.classes
            .iter()
            .filter_map(|c| c.pacer.as_ref())
            .any(|p| p.schedule.requests().is_some())
    }

    /// The earliest send time a free slot waits for (None: nothing to send before a completion).
    #[inline]
    pub(crate) fn next_send(&self) -> Option<u64> {
        self.classes
            .iter()
            .filter_map(|c| c.pacer.as_ref())
            .filter(|p| !p.free.is_empty())
            .map(|p| p.schedule.peek())
            .min()
    }

    /// At the end of the loop: each paced class's send times in the window, its backlog and a
    /// replay's requests never sent.
    pub(crate) fn end_pacing(&mut self, window: (u64, u64)) {
        for c in &mut self.classes {
            if let Some(p) = &mut c.pacer {
                let backlog = p.backlog(window);
                c.recorder.add_schedule(p.scheduled, backlog, p.late);
                if let Some(unsent) = p.unsent() {
                    c.recorder.add_unsent(unsent);
                }
                c.recorder.add_send_gaps(&p.gaps);
            }
        }
    }
}
