//! Building a worker's state on its thread: its slots laid out class by class in one buffer
//! arena, its classes' live state (bursts, flush groups, pacing), its engine opened over them,
//! and its part of `verify`.

use super::burst::BurstState;
use super::data::DataFill;
use super::flush::Group;
use super::mix::{MixSetup, NO_SIZE};
use super::offsets::{SlotSpace, Stream};
use super::skew::Skew;
use super::slots::{NO_BUCKET, NO_STREAM, Replayed, Slot, State, WorkerClass};
use crate::engines::arena::BUF_ALIGN;
use crate::engines::slot_bufs::SlotBufs;
use crate::engines::{Engine, Interval, Open, Opened};
use crate::pacing::{Pacer, Schedule};
use crate::reuse::Reuse;
use crate::share::ClassShare;
use crate::verify::worker::WorkerVerify;
use rigel_plan::limits::MAX_WORKER_IN_FLIGHT;
use rigel_results::ClassRecorder;
use std::io;
use std::os::fd::RawFd;

/// A replayed class's first request goes out this long after the worker starts (its send time
/// 0): the measured window starts just after the start, and the first send must fall inside it.
const LEAD_NS: u64 = 1_000_000;

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
    /// `run.sqpoll`: the ring's kernel submission thread.
    pub sqpoll: Option<rigel_plan::SqPoll>,
    /// `run.polled`: the worker runs on the polled io_uring engine.
    pub polled: bool,
    /// `verify`: the run's generation map and the classes that stamp and check.
    pub verify: Option<crate::verify::worker::VerifySetup<'a>>,
    /// The engine of every class of the worker (a concrete one: `resolve_engine`'s).
    pub engine: rigel_plan::Engine,
    /// The CPU to pin the worker to (`PointControl::cpus`).
    pub cpu: Option<u32>,
    /// `zones = "sequential"`: the point's zones, one taken per writing slot.
    pub zones: Option<&'a super::zones::ZonePool>,
    /// The run's first-touch record (`touch`).
    pub touched: &'a crate::touch::Touched,
}

/// A point class as the workers need it.
pub struct ClassSetup {
    pub space: Option<SlotSpace>,
    /// A skewed class's draw over its slots (None: uniform).
    pub skew: Option<Skew>,
    /// Writes carry RWF_DSYNC.
    pub dsync: bool,
    /// `durability = "fdatasync:N"` / `"fsync:N"`: a flush after every N writes of a slot.
    pub flush: Option<rigel_plan::Flush>,
    /// `think`: each slot's wait after a completion, ns (closed loop).
    pub think_ns: Option<u64>,
    /// `burst`: bursts of I/Os apart by an idle time (closed loop, one worker).
    pub burst: Option<rigel_plan::Burst>,
    /// A size mix: each I/O's size and its slots (`space` is then the smallest size's).
    pub mix: Option<MixSetup>,
    /// `compress` / `dedupe`: the shape of written data.
    pub data: Option<rigel_plan::pattern::DataContent>,
    /// The I/O size (a mix's largest: each slot's buffer holds it).
    pub size: u64,
    pub read_percent: u8,
    /// Trims (discards of the I/O's size at its offset), in whole percent; writes are the rest.
    pub trim_percent: u8,
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
                trim: false,
                bucket: NO_BUCKET,
                size_index: NO_SIZE,
                group: Group::IDLE,
                target: 0,
                offset: 0,
                done: 0,
                submitted_ns: 0,
                scheduled_ns: 0,
                replayed: Replayed::Drawn,
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
        let burst = setup.burst.map(|b| BurstState::new(b, first..slots.len()));
        let replayed = setup.replay.as_ref().map(|r| {
            Pacer::new(
                Schedule::replay(std::sync::Arc::clone(r), LEAD_NS),
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
            group: Group::IDLE,
            think: setup.think_ns.map(Interval::from_ns),
            burst,
            mix: setup.mix.as_ref(),
            data: setup.data.map(|d| DataFill::new(d, &mut rng)),
            read_percent: setup.read_percent,
            trim_percent: setup.trim_percent,
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
    let bufs = SlotBufs::new(arena, slots.iter().map(|s| (s.buf, s.len)).collect());
    let buffers: Vec<(usize, usize)> = slots.iter().map(|s| (s.buf, s.len as usize)).collect();
    let Opened { engine, buf_index } = E::open(&Open {
        // One entry per slot, one for the timer request.
        entries: slots.len() as u32 + 1,
        fds: spec.fds,
        arena: bufs.arena(),
        buffers: &buffers,
        options: &spec.options,
        sqpoll: spec.sqpoll,
        polled: spec.polled,
    })?;
    for (slot, index) in slots.iter_mut().zip(buf_index) {
        slot.buf_index = index;
    }
    // A zone per writing slot, taken before the point's window (a full one reset then).
    let zones = match spec.zones {
        Some(pool) => slots
            .iter()
            .map(|s| {
                (classes[s.class].read_percent < 100)
                    .then(|| pool.take(spec.fds))
                    .transpose()
            })
            .collect::<io::Result<Vec<_>>>()?,
        None => Vec::new(),
    };
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
            bufs,
            rng,
            budget: spec.options.ios.unwrap_or(u64::MAX),
            flushes: 0,
            thinking: 0,
            idling: 0,
            seconds_published: 0,
            verify,
            zones,
            touched: spec.touched,
        },
    ))
}
