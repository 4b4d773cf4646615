//! A worker's state: its slots (each in-flight I/O's buffer in the registered arena and the I/O
//! it carries), its classes' live state, and the counts the hot loop keeps over them. Built by
//! `setup`; a slot's next I/O is drawn by `next_io`.

use super::burst::BurstState;
use super::data::DataFill;
use super::flush::Group;
use super::mix::MixSetup;
use super::offsets::{SlotSpace, Stream};
use super::skew::Skew;
use crate::LiveCounters;
use crate::engines::Interval;
use crate::engines::slot_bufs::SlotBufs;
use crate::pacing::Pacer;
use crate::verify::worker::WorkerVerify;
use rigel_results::ClassRecorder;

/// `Slot::stream` of a random I/O's slot: no stream.
pub(crate) const NO_STREAM: u32 = u32::MAX;
/// `Slot::bucket` of a uniform class's I/O: nothing to count.
pub(crate) const NO_BUCKET: u8 = u8::MAX;

/// One in-flight slot: its buffer, and the I/O it currently carries.
pub(crate) struct Slot {
    pub(crate) class: usize,
    pub(crate) stream: u32,
    pub(crate) buf: usize,
    /// The registered buffer holding it (when the engine registered the buffers).
    pub(crate) buf_index: u16,
    pub(crate) len: u32,
    pub(crate) write: bool,
    /// The I/O is a trim (a discard of `len` bytes at `offset`: no buffer, never a write).
    pub(crate) trim: bool,
    /// A skewed class's I/O: its rank's bucket (`Skew::next`), counted at completion.
    pub(crate) bucket: u8,
    /// A size-mix class's I/O: its size's index in the mix (`mix::NO_SIZE` otherwise).
    pub(crate) size_index: u8,
    /// Grouped durable writes: the slot's writes toward its next flush.
    pub(crate) group: Group,
    pub(crate) target: u32,
    pub(crate) offset: u64,
    pub(crate) done: u32,
    /// When the I/O was queued (`PARKED` while an open-loop slot waits for its send time).
    pub(crate) submitted_ns: u64,
    /// When it was due: its send time (open loop), its submission (closed loop).
    pub(crate) scheduled_ns: u64,
    /// A replayed request's own kind (`replay_slots`): a flush, a write with RWF_DSYNC.
    pub(crate) replayed: Replayed,
}

/// `submitted_ns` of a slot with no I/O: never the oldest in flight.
pub(crate) const PARKED: u64 = u64::MAX;

/// A class's live state inside the worker.
pub(crate) struct WorkerClass<'a> {
    pub(crate) point_class: usize,
    pub(crate) space: &'a SlotSpace,
    pub(crate) skew: Option<&'a Skew>,
    /// Every write carries RWF_DSYNC (`durability = "dsync"`).
    pub(crate) dsync: bool,
    /// A flush after every N writes of a slot (`durability = "fdatasync:N"`).
    pub(crate) flush: Option<rigel_plan::Flush>,
    /// Open loop with `flush`: the class's writes toward its next flush (`flush.rs`).
    pub(crate) group: Group,
    /// `think`: each slot's wait after a completion (`waits.rs`).
    pub(crate) think: Option<Interval>,
    /// `burst`: the class's bursts and idle times (`burst.rs`).
    pub(crate) burst: Option<BurstState>,
    /// A size mix (None: every I/O is the class's size).
    pub(crate) mix: Option<&'a MixSetup>,
    /// Shaped write data (None: random words scrambled into the buffer).
    pub(crate) data: Option<DataFill>,
    pub(crate) read_percent: u8,
    pub(crate) trim_percent: u8,
    pub(crate) in_flight: u32,
    /// ∫ in-flight I/Os dt over the window, I/O·ns (integer: no conversion per batch).
    pub(crate) area: u128,
    pub(crate) ios_delta: u64,
    pub(crate) bytes_delta: u64,
    pub(crate) recorder: ClassRecorder,
    /// Open loop: the class's send times and free slots.
    pub(crate) pacer: Option<Pacer>,
}

/// Everything the hot loop touches besides the engine.
pub(crate) struct State<'a> {
    pub(crate) slots: Vec<Slot>,
    pub(crate) streams: Vec<Stream>,
    pub(crate) classes: Vec<WorkerClass<'a>>,
    /// The slots' buffers and their loans to the engine.
    pub(crate) bufs: SlotBufs,
    pub(crate) rng: fastrand::Rng,
    /// I/Os this worker may still issue (`ExecOptions::ios`; unbounded without one).
    pub(crate) budget: u64,
    /// Slots whose flush is in flight (counted in flight, not in their class's depth).
    pub(crate) flushes: usize,
    /// Slots waiting out their think time (counted in flight, not in their class's depth).
    pub(crate) thinking: usize,
    /// Classes waiting out their idle time between bursts (counted in flight).
    pub(crate) idling: usize,
    /// The window's seconds before this one are handed to the live seconds (`--metrics`).
    pub(crate) seconds_published: usize,
    /// `verify`: this worker's part (`verify::worker`).
    pub(crate) verify: Option<WorkerVerify<'a>>,
    /// `zones = "sequential"`: each writing slot's zone (empty without zones).
    pub(crate) zones: Vec<Option<super::zones::Cursor<'a>>>,
    /// The run's first-touch record: each completed read or write marks it, and a read that
    /// covers a watched block is recorded as a first touch or a re-touch (`touch`).
    pub(crate) touched: &'a crate::touch::Touched,
}

/// What a slot's current I/O is: drawn by its class, or sent by `rigel replay` (`replay_slots`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Replayed {
    /// Drawn by the class (offset, size, direction), not replayed.
    Drawn,
    /// A replayed read or write as it was traced.
    Data,
    /// A replayed write that carried FUA: sent with RWF_DSYNC.
    DsyncWrite,
    /// A replayed cache flush.
    Flush,
}

impl State<'_> {
    /// Adds the I/Os completed since the last call to the live counters.
    pub(crate) fn publish(&mut self, live: &LiveCounters) {
        for c in &mut self.classes {
            if c.ios_delta > 0 {
                live.add(c.point_class, c.ios_delta, c.bytes_delta);
                c.ios_delta = 0;
                c.bytes_delta = 0;
            }
        }
    }

    /// Hands the window's seconds before `second` to the live seconds once the clock (`tick`,
    /// the window's; `None` at the worker's end, every second then) has left them: once a second
    /// per worker, from the periodic publish.
    pub(crate) fn publish_seconds(
        &mut self,
        live: &LiveCounters,
        second: usize,
        tick: Option<usize>,
    ) {
        let second = second.min(live.seconds.seconds());
        if second <= self.seconds_published || !live.seconds.watched() {
            return;
        }
        if let Some(tick) = tick {
            for c in &mut self.classes {
                c.recorder.settle(tick);
            }
        }
        let recorders = self.classes.iter().map(|c| (c.point_class, &c.recorder));
        live.seconds.add(self.seconds_published, second, recorders);
        self.seconds_published = second;
    }

    /// I/Os in flight (queued or at the kernel), over all classes. Never fewer than the kernel
    /// holds: a slot counts from before its I/O is queued until after its completion is taken.
    pub(crate) fn in_flight(&self) -> usize {
        self.classes
            .iter()
            .map(|c| c.in_flight as usize)
            .sum::<usize>()
            + self.flushes
            + self.thinking
            + self.idling
    }

    /// Takes one I/O from the budget: false once it is spent (the slot is then parked).
    #[inline]
    pub(crate) fn take_budget(&mut self, i: usize) -> bool {
        if self.budget == 0 {
            self.slots[i].submitted_ns = PARKED;
            return false;
        }
        self.budget -= 1;
        true
    }
}
