//! A worker's slots: each in-flight I/O's buffer in the registered arena, and choosing and
//! queueing the next I/O of a slot (offset, direction, fresh write data) when the last completes.

use super::offsets::{SlotSpace, Stream};
use super::tag::Tag;
use crate::LiveCounters;
use crate::engines::arena::{Arena, BUF_ALIGN};
use crate::engines::{Engine, Interval, Live, Op, Open, Opened, Rw};
use crate::pacing::{Pacer, Schedule};
use crate::reuse::Reuse;
use crate::share::ClassShare;
use crate::verify::worker::WorkerVerify;
use rigel_plan::limits::MAX_WORKER_IN_FLIGHT;
use rigel_results::ClassRecorder;
use std::io;
use std::os::fd::RawFd;

/// Write buffers get a fresh random word every this many bytes before each write, so no two
/// writes carry the same blocks (defeats deduplication without refilling whole buffers).
const SCRAMBLE_STRIDE: usize = 512;
const NO_STREAM: u32 = u32::MAX;
/// `Slot::bucket` of a uniform class's I/O: nothing to count.
pub(crate) const NO_BUCKET: u8 = u8::MAX;

/// What a worker is given: its share of the point and everything needed to run it.
pub struct WorkerSpec<'a> {
    pub shares: Vec<ClassShare>,
    /// Per point class: its slot space (`None` for idle classes), size and read percentage.
    pub classes: &'a [ClassSetup],
    pub fds: &'a [RawFd],
    pub seed: u64,
    pub intervals: usize,
    pub options: crate::options::ExecOptions,
    /// What backs the buffer arena (`run.buffers`).
    pub buffers: rigel_plan::Buffers,
    /// `verify`: the run's generation map and the classes that stamp and check.
    pub verify: Option<crate::verify::worker::VerifySetup<'a>>,
    /// The engine of every class of the worker (a concrete one: `resolve_engine`'s).
    pub engine: rigel_plan::Engine,
    /// The CPU to pin the worker to (`PointControl::cpus`).
    pub cpu: Option<u32>,
}

/// A point class as the workers need it.
pub struct ClassSetup {
    pub space: Option<SlotSpace>,
    /// A skewed class's draw over its slots (None: uniform).
    pub skew: Option<super::skew::Skew>,
    /// Writes carry RWF_DSYNC.
    pub dsync: bool,
    /// `durability = "fdatasync:N"` / `"fsync:N"`: a flush after every N writes of a slot.
    pub flush: Option<rigel_plan::Flush>,
    /// `think`: each slot's wait after a completion, ns (closed loop).
    pub think_ns: Option<u64>,
    /// `burst`: bursts of I/Os apart by an idle time (closed loop, one worker).
    pub burst: Option<rigel_plan::Burst>,
    /// A size mix: each I/O's size and its slots (`space` is then the smallest size's).
    pub mix: Option<super::mix::MixSetup>,
    /// `compress` / `dedupe`: the shape of written data.
    pub data: Option<rigel_plan::pattern::DataContent>,
    /// The I/O size (a mix's largest: each slot's buffer holds it).
    pub size: u64,
    pub read_percent: u8,
    /// Streams of the class (sequential), to spread their starts.
    pub streams: u32,
    /// Open loop: the class's rate (I/Os per second over all workers) and arrivals, and its
    /// outstanding cap over all workers (each worker paces its share of the cap's share).
    pub rate: Option<(f64, rigel_expr::Arrival)>,
    pub outstanding: u32,
    /// `rigel replay`: the class sends these requests at their send times instead of drawing
    /// its I/Os (one worker; `rate` is then the trace's mean, for the pace's figures).
    pub replay: Option<std::sync::Arc<rigel_plan::replay::Replay>>,
}

/// One in-flight slot: its buffer, and the I/O it currently carries.
pub(crate) struct Slot {
    pub(crate) class: usize,
    pub(crate) stream: u32,
    pub(crate) buf: usize,
    /// The registered buffer holding it (when the engine registered the buffers).
    pub(crate) buf_index: u16,
    pub(crate) len: u32,
    pub(crate) write: bool,
    /// A skewed class's I/O: its rank's bucket (`Skew::next`), counted at completion.
    pub(crate) bucket: u8,
    /// A size-mix class's I/O: its size's index in the mix (`mix::NO_SIZE` otherwise).
    pub(crate) size_index: u8,
    /// Grouped durable writes: the slot's writes toward its next flush.
    pub(crate) group: super::group::Group,
    pub(crate) target: u32,
    pub(crate) offset: u64,
    pub(crate) done: u32,
    /// When the I/O was queued (`PARKED` while an open-loop slot waits for its send time).
    pub(crate) submitted_ns: u64,
    /// When it was due: its send time (open loop), its submission (closed loop).
    pub(crate) scheduled_ns: u64,
    /// A replayed request's own kind (`replay_slots`): a flush, a write with RWF_DSYNC.
    pub(crate) replayed: super::replayed::Replayed,
}

/// `submitted_ns` of a slot with no I/O: never the oldest in flight.
pub(crate) const PARKED: u64 = u64::MAX;

/// A class's live state inside the worker.
pub(crate) struct WorkerClass<'a> {
    pub(crate) point_class: usize,
    pub(crate) space: &'a SlotSpace,
    pub(crate) skew: Option<&'a super::skew::Skew>,
    /// Every write carries RWF_DSYNC (`durability = "dsync"`).
    pub(crate) dsync: bool,
    /// A flush after every N writes of a slot (`durability = "fdatasync:N"`).
    pub(crate) flush: Option<rigel_plan::Flush>,
    /// Open loop with `flush`: the class's writes toward its next flush (`flush.rs`).
    pub(crate) group: super::group::Group,
    /// `think`: each slot's wait after a completion (`think.rs`).
    pub(crate) think: Option<Interval>,
    /// `burst`: the class's bursts and idle times (`burst.rs`).
    pub(crate) burst: Option<super::burst_state::BurstState>,
    /// A size mix (None: every I/O is the class's size).
    pub(crate) mix: Option<&'a super::mix::MixSetup>,
    /// Shaped write data (None: random words scrambled into the buffer).
    pub(crate) data: Option<super::data::DataFill>,
    pub(crate) read_percent: u8,
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
    pub(crate) arena: Arena,
    pub(crate) rng: fastrand::Rng,
    /// I/Os this worker may still issue (`ExecOptions::ios`; unbounded without one).
    pub(crate) budget: u64,
    /// Slots whose flush is in flight (counted in flight, not in their class's depth).
    pub(crate) flushes: usize,
    /// Slots waiting out their think time (counted in flight, not in their class's depth).
    pub(crate) thinking: usize,
    /// Classes waiting out their idle time between bursts (counted in flight).
    pub(crate) idling: usize,
    /// `verify`: this worker's part (`verify::worker`).
    pub(crate) verify: Option<WorkerVerify<'a>>,
}

/// A worker's state and its engine `E`, built on the worker's thread.
pub(crate) fn setup<'a, E: Engine>(
    spec: &WorkerSpec<'a>,
    reuse: &Reuse,
) -> io::Result<(E, State<'a>)> {
    let mut rng = fastrand::Rng::with_seed(spec.seed);
    let mut slots = Vec::new();
    let mut streams = Vec::new();
    let mut classes = Vec::new();
    let mut arena_bytes = 0usize;
    for (ci, share) in spec.shares.iter().enumerate() {
        let setup = &spec.classes[share.class];
        let space = setup
            .space
            .as_ref()
            .ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))?;
        let len =
            u32::try_from(setup.size).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        let stride = (len as usize).next_multiple_of(BUF_ALIGN);
        let first = slots.len();
        let mut add_slot = |stream: u32| {
            slots.push(Slot {
                class: ci,
                stream,
                buf: arena_bytes,
                buf_index: 0,
                len,
                write: false,
                bucket: NO_BUCKET,
                size_index: super::mix::NO_SIZE,
                group: super::group::Group::IDLE,
                target: 0,
                offset: 0,
                done: 0,
                submitted_ns: 0,
                scheduled_ns: 0,
                replayed: super::replayed::Replayed::Drawn,
            });
            arena_bytes += stride;
        };
        for _ in 0..share.random {
            add_slot(NO_STREAM);
        }
        for &s in &share.streams {
            let idx = streams.len() as u32;
            streams.push(Stream::new(
                space.stream_start(s as u64, setup.streams as u64),
            ));
            for _ in 0..share.per_stream {
                add_slot(idx);
            }
        }
        let burst = setup
            .burst
            .map(|b| super::burst_state::BurstState::new(b, first..slots.len()));
        let replayed = setup.replay.as_ref().map(|r| {
            Pacer::new(
                Schedule::replay(std::sync::Arc::clone(r), super::replayed::LEAD_NS),
                share.in_flight() as usize,
            )
        });
        let pacer = replayed.or_else(|| {
            let (iops, arrival) = setup.rate?;
            let mine = iops * f64::from(share.in_flight()) / f64::from(setup.outstanding.max(1));
            let seed = spec.seed ^ (ci as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F);
            Some(Pacer::new(
                Schedule::new(mine, arrival, seed, 0),
                share.in_flight() as usize,
            ))
        });
        classes.push(WorkerClass {
            point_class: share.class,
            space,
            skew: setup.skew.as_ref(),
            dsync: setup.dsync,
            flush: setup.flush,
            group: super::group::Group::IDLE,
            think: setup.think_ns.map(Interval::from_ns),
            burst,
            mix: setup.mix.as_ref(),
            data: setup.data.map(|d| super::data::DataFill::new(d, &mut rng)),
            read_percent: setup.read_percent,
            in_flight: 0,
            area: 0,
            ios_delta: 0,
            bytes_delta: 0,
            recorder: if pacer.is_some() {
                ClassRecorder::paced(spec.intervals)
            } else {
                ClassRecorder::new(spec.intervals)
            },
            pacer,
        });
    }
    if slots.len() as u64 > MAX_WORKER_IN_FLIGHT {
        return Err(io::Error::other(format!(
            "{} I/Os in flight on one worker: more than the {MAX_WORKER_IN_FLIGHT} a ring can \
             address; add workers",
            slots.len(),
        )));
    }
    // Random content wherever a class writes: writes then carry incompressible data from the
    // first I/O.
    let writes = classes.iter().any(|c| c.read_percent < 100);
    let arena = reuse.arena(arena_bytes, spec.buffers, writes, &mut rng)?;
    let buffers: Vec<(usize, usize)> = slots.iter().map(|s| (s.buf, s.len as usize)).collect();
    let Opened { engine, buf_index } = E::open(&Open {
        // One entry per slot, one for the timer request.
        entries: slots.len() as u32 + 1,
        fds: spec.fds,
        arena: &arena,
        buffers: &buffers,
        options: &spec.options,
    })?;
    for (slot, index) in slots.iter_mut().zip(buf_index) {
        slot.buf_index = index;
    }
    let point_classes: Vec<usize> = classes.iter().map(|c| c.point_class).collect();
    let verify = spec
        .verify
        .as_ref()
        .map(|v| WorkerVerify::new(v, &point_classes, arena_bytes));
    Ok((
        engine,
        State {
            slots,
            streams,
            classes,
            arena,
            rng,
            budget: spec.options.ios.unwrap_or(u64::MAX),
            flushes: 0,
            thinking: 0,
            idling: 0,
            verify,
        },
    ))
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

    /// Chooses slot `i`'s next I/O (offset, direction, fresh write data) and queues it.
    #[inline]
    pub(crate) fn next_io(&mut self, i: usize, now_ns: u64, eng: &mut impl Live) {
        let slot = &mut self.slots[i];
        let class = &mut self.classes[slot.class];
        let (space, stream, skew, mix) = (class.space, slot.stream, class.skew, class.mix);
        // A size mix's I/O: its size first, then an offset aligned to it (a stream's: the next
        // bytes of the stream, as many as the size drawn).
        let size = match mix {
            Some(m) => {
                let k = m.draw(&mut self.rng);
                slot.len = m.len(k);
                k
            }
            _ => super::mix::NO_SIZE,
        };
        slot.size_index = size;
        // The offset (and, for a skewed class, its rank's bucket, counted at completion).
        let pick = |rng: &mut fastrand::Rng, streams: &mut [Stream]| {
            if stream != NO_STREAM {
                let s = &mut streams[stream as usize];
                let at = match mix {
                    Some(m) => s.advance_by(space, m.slots(size)),
                    None => s.advance(space),
                };
                (at, NO_BUCKET)
            } else if let Some(m) = mix {
                match skew {
                    Some(skew) => {
                        let (j, bucket) = skew.next(rng);
                        (m.at(size, j), bucket)
                    }
                    None => (m.random(size, rng), NO_BUCKET),
                }
            } else if let Some(skew) = skew {
                let (j, bucket) = skew.next(rng);
                (space.locate(j), bucket)
            } else {
                (space.random(rng), NO_BUCKET)
            }
        };
        let ((mut target, mut offset), bucket) = pick(&mut self.rng, &mut self.streams);
        slot.bucket = bucket;
        slot.write = match class.read_percent {
            100 => false,
            0 => true,
            p => self.rng.u8(0..100) >= p,
        };
        let mut verify = self
            .verify
            .as_mut()
            .filter(|v| v.tracks(slot.class, slot.write));
        if let Some(v) = &mut verify {
            // A write's blocks are claimed (another offset drawn while one has a write in
            // flight); a read notes the generations it must find.
            let (rng, streams) = (&mut self.rng, &mut self.streams);
            let redrawn = std::cell::Cell::new(bucket);
            let redraw = || {
                let (at, bucket) = pick(rng, streams);
                redrawn.set(bucket);
                at
            };
            (target, offset) = v.claim(
                slot.buf,
                slot.len,
                &mut slot.write,
                (target, offset),
                redraw,
            );
            slot.bucket = redrawn.get();
        }
        slot.target = target as u32;
        slot.offset = offset;
        slot.done = 0;
        slot.submitted_ns = now_ns;
        slot.scheduled_ns = now_ns;
        class.in_flight += 1;
        if slot.write {
            // SAFETY: the slot's buffer is its own range of the arena (setup lays the slots out
            // one after another), and no I/O uses it now: its previous one completed, the next
            // is queued below, after the slice's last use.
            let buf = unsafe { self.arena.slot_mut(slot.buf, slot.len as usize) };
            if let Some(v) = verify {
                v.stamp(buf, slot.buf, slot.class, (target, offset));
            } else if let Some(d) = &class.data {
                d.fill(buf, &mut self.rng);
            } else {
                for chunk in buf.chunks_mut(SCRAMBLE_STRIDE) {
                    if let Some(word) = chunk.first_chunk_mut::<8>() {
                        *word = self.rng.u64(..).to_ne_bytes();
                    }
                }
            }
        }
        self.queue(i, eng);
    }

    /// Queues slot `i`'s current I/O (what remains of it after a short transfer).
    #[inline]
    pub(crate) fn queue(&self, i: usize, eng: &mut impl Live) {
        let slot = &self.slots[i];
        let len = slot.len - slot.done;
        // RWF_DSYNC: the write completes once durable (FUA, or a flush after it).
        let dsync = self.classes[slot.class].dsync
            || slot.replayed == super::replayed::Replayed::DsyncWrite;
        let rw = Rw {
            target: slot.target,
            offset: slot.offset + slot.done as u64,
            buf: self
                .arena
                .range(slot.buf + slot.done as usize, len as usize),
            len,
            buf_index: slot.buf_index,
            write: slot.write,
            dsync,
        };
        // SAFETY: the buffer is this slot's range of the arena (`Arena::range` checked it), alive
        // until the I/O completes (the worker drains every I/O before the arena is freed, or
        // leaks it) and untouched meanwhile (the slot's next write data is written only after
        // this I/O's completion); registered buffer `buf_index` holds the slot's whole range.
        unsafe { eng.push(Tag::Io(i).user_data(), Op::Rw(rw)) };
    }
}
