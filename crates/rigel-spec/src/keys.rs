//! The table of a spec's keys: name, kind of value, default and description. The loader checks
//! keys against it and the JSON Schema (`rigel schema`) is generated from it, so they cannot drift.

/// What a key holds, as the loader reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Text,
    /// A path, or a list of them (`extends`).
    Paths,
    /// A name, or a list of them (a class's `targets`).
    Names,
    Bool,
    /// A non-negative TOML integer.
    Integer,
    /// A size string (`8KiB`) or a TOML integer of bytes.
    Size,
    /// A duration string (`60s`) or a TOML integer of seconds.
    Duration,
    /// A count expression (`2 * targets`) or a TOML integer.
    Count,
    /// A mix (`70% read`).
    Mix,
    /// A rate (`20000 iops`, `400MiB/s`) or a TOML integer of I/Os per second.
    Rate,
    /// One of the words listed.
    OneOf(&'static [&'static str]),
    /// `true`, `false`, or one of the words listed.
    BoolOr(&'static [&'static str]),
    /// An inline table with these keys (`run.steady = { metric = "small.iops" }`).
    Table(&'static [Key]),
}

/// One key of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    pub name: &'static str,
    pub kind: Kind,
    /// As docs/spec.md states it (None: required or no default).
    pub default: Option<&'static str>,
    pub description: &'static str,
}

const fn key(
    name: &'static str,
    kind: Kind,
    default: Option<&'static str>,
    description: &'static str,
) -> Key {
    Key {
        name,
        kind,
        default,
        description,
    }
}

pub const ACCESS: &[&str] = &["random", "sequential", "rand", "seq"];
/// `run.zones`'s words.
pub const ZONES: &[&str] = &["sequential"];

pub const LAYOUTS: &[&str] = &["concat", "raid0"];
pub const BUFFERS: &[&str] = &["pages", "huge"];
pub const ENGINES: &[&str] = &super::Engine::NAMES;
pub const SHAPES: &[&str] = &["basic", "detailed", "point", "row", "col", "max"];
/// The class parameters `[sweep]` can loop over.
pub const SWEEP_PARAMS: &[&str] = &["size", "mix", "access", "per_stream", "rate"];
pub const ARRIVALS: &[&str] = &["uniform", "poisson"];
pub const HOT_LAYOUTS: &[&str] = &["scattered", "contiguous"];
/// The words `verify` takes besides `true` and `false`.
pub const VERIFY_WORDS: &[&str] = &["after"];

pub const SPEC: &[Key] = &[
    key(
        "name",
        Kind::Text,
        None,
        "Names the run folder and the reports (default: the file name without .toml)",
    ),
    key(
        "description",
        Kind::Text,
        Some(""),
        "Shown in plans and reports",
    ),
    key(
        "extends",
        Kind::Paths,
        None,
        "Parent spec(s) merged under this one: a path relative to this file (`base.toml`) or a library name found in RIGEL_PATH or the built-in specs (`acme/oltp-base`)",
    ),
    key(
        "partial",
        Kind::Bool,
        Some("false"),
        "A base meant only to be extended: checked without classes or a matrix, never run; not inherited",
    ),
];

pub const TARGET: &[Key] = &[
    key(
        "name",
        Kind::Text,
        None,
        "What classes call this target in their `targets` (default: its index in the list, \"0\", \"1\", …)",
    ),
    key(
        "path",
        Kind::Text,
        None,
        "A block device (/dev/nvme1n1) or a file; required",
    ),
    key(
        "size",
        Kind::Size,
        None,
        "Create the file at this size (filled with random data) when it does not exist",
    ),
    key(
        "destructive",
        Kind::Bool,
        Some("false"),
        "This spec consents to writes on the target (the command line must consent too: --allow-destructive)",
    ),
];

pub const VOLUME: &[Key] = &[
    key(
        "layout",
        Kind::OneOf(LAYOUTS),
        Some("concat"),
        "concat: targets one after the other; raid0: striped",
    ),
    key(
        "stripe",
        Kind::Size,
        Some("1MiB"),
        "raid0 stripe depth; a multiple of every class size",
    ),
];

pub const RUN: &[Key] = &[
    key(
        "duration",
        Kind::Duration,
        Some("60s"),
        "Measured time per data point (a bare integer means seconds)",
    ),
    key(
        "warmup",
        Kind::Duration,
        Some("0s"),
        "Unmeasured I/O before each point's measured window",
    ),
    key(
        "io_timeout",
        Kind::Duration,
        Some("30s"),
        "An I/O outstanding longer than this fails the point as stalled (100ms to 1h)",
    ),
    key(
        "direct",
        Kind::Bool,
        Some("true"),
        "true: O_DIRECT; false: buffered through the page cache",
    ),
    key(
        "buffers",
        Kind::OneOf(BUFFERS),
        Some("pages"),
        "pages: 4 KiB pages, as fio's iomem=malloc; huge: transparent huge pages, as fio's \
         iomem=mmaphuge (one segment per I/O up to 2 MiB)",
    ),
    key(
        "engine",
        Kind::OneOf(ENGINES),
        Some("auto"),
        "The I/O path of every class (a class's own `engine` wins; --engine overrides both): \
         io_uring; libaio (Linux native AIO, ORION's engine); psync (one thread per outstanding \
         I/O, pread/pwrite); auto takes io_uring and, where the kernel refuses it, says so and \
         falls back to libaio for O_DIRECT, else psync",
    ),
    key(
        "cpus",
        Kind::Text,
        None,
        "The CPUs the workers are pinned to, round-robin: \"0-3\", \"0,2,4-7\" or a NUMA node's, \
         \"node:0\" (default: the CPUs of the device's NUMA node where it has one, else unpinned)",
    ),
    key(
        "polled",
        Kind::Bool,
        Some("false"),
        "io_uring and O_DIRECT only: completions are polled from the device's poll queues \
         (IORING_SETUP_IOPOLL, fio's hipri) instead of interrupts; the targets' devices need \
         poll queues (/sys/block/DEV/queue/io_poll = 1: nvme.poll_queues=N), and flushes, which \
         cannot be polled, are refused",
    ),
    key(
        "sqpoll",
        Kind::Bool,
        Some("false"),
        "io_uring only: a kernel thread per worker takes the submissions (IORING_SETUP_SQPOLL, \
         fio's sqthread_poll), so submitting costs the worker no system call; the thread's CPU \
         is rigel's and is counted in the CPU figures",
    ),
    key(
        "zones",
        Kind::OneOf(ZONES),
        None,
        "\"sequential\": on a host-managed zoned device (ZNS, SMR), each writing I/O holds one \
         zone open and writes it from its write pointer, resetting it when full (off the \
         clock); reads go anywhere. Without it, writes to such a device are refused",
    ),
    key(
        "sq_thread_cpu",
        Kind::Integer,
        None,
        "With sqpoll: the CPU the submission threads are pinned to (fio's sqthread_poll_cpu; \
         default: unpinned)",
    ),
    key(
        "sq_thread_idle",
        Kind::Duration,
        Some("1s"),
        "With sqpoll: how long a submission thread polls an idle ring before it sleeps (1ms to 1h)",
    ),
    key(
        "seed",
        Kind::Integer,
        Some("1"),
        "Seed of the offset, mix and write-data generators",
    ),
    key(
        "workers",
        Kind::Count,
        Some("1"),
        "Threads, each with its own io_uring; 0 or \"auto\": one per CPU rigel may run on \
         (\"cores\" allowed)",
    ),
    key(
        "verify",
        Kind::BoolOr(VERIFY_WORDS),
        Some("false"),
        "Data integrity for every class (a class's own `verify` wins): true stamps every written block with a header and checksum and checks every read of a block written in this run; \"after\" also re-reads every written block at the end of each point",
    ),
    key(
        "verify_unit",
        Kind::Size,
        Some("4KiB"),
        "The block verified classes stamp and check: 512 bytes to 1 MiB, a multiple of 512 dividing every verified class's I/O size",
    ),
    key(
        "journal",
        Kind::Bool,
        Some("false"),
        "With verify: keep the generation map in the run folder (journal.map, 2 bytes per block, synced every second) so that `rigel verify DIR` can check the volume after the run, a crash of rigel or a power cut",
    ),
    key(
        "steady",
        Kind::Table(STEADY),
        None,
        "Steady state (SNIA PTS): each point repeats rounds of `duration` until the last `rounds` values of `metric` are within the excursion and slope bands, then measures; bounded by `max`",
    ),
];

pub const STEADY: &[Key] = &[
    key(
        "metric",
        Kind::Text,
        None,
        "The figure judged each round, as [expect] writes a class's figure: \"small.iops\", \"small.mbps\", \"small.read.latency.p99\"; required",
    ),
    key(
        "rounds",
        Kind::Integer,
        Some("5"),
        "The measurement window: this many last rounds must be steady (2 to 100)",
    ),
    key(
        "excursion",
        Kind::Text,
        Some("20%"),
        "Largest max − min of the window's values, as a share of their mean (SNIA: 20%)",
    ),
    key(
        "slope",
        Kind::Text,
        Some("10%"),
        "Largest excursion of the window's least-squares line across the window, as a share of the mean (SNIA: 10%)",
    ),
    key(
        "max",
        Kind::Duration,
        Some("30m"),
        "Stop repeating rounds after this long: the point is then measured and marked not steady",
    ),
];

/// The access patterns of a precondition.
pub const PATTERNS: &[&str] = &["sequential", "random", "seq", "rand"];

pub const PRECONDITION: &[Key] = &[
    key(
        "passes",
        Kind::Integer,
        Some("2"),
        "Write the whole volume this many times before the first point (SNIA PTS: 2); destructive: needs the targets' consent",
    ),
    key(
        "pattern",
        Kind::OneOf(PATTERNS),
        Some("sequential"),
        "sequential: from the start to the end, each pass; random: as many random I/Os as a pass holds",
    ),
    key(
        "size",
        Kind::Size,
        Some("128KiB"),
        "I/O size of the fill, a multiple of 512 bytes",
    ),
    key(
        "depth",
        Kind::Integer,
        Some("32"),
        "I/Os kept in flight during the fill",
    ),
    key(
        "pass_limit",
        Kind::Duration,
        Some("1h"),
        "A pass that has not written the whole volume by then fails the run (a pass never ends part-written)",
    ),
    key(
        "read",
        Kind::Bool,
        Some("false"),
        "Read the volume through instead of writing it (not destructive): a volume restored from a snapshot or a thin LUN is slow on a block's first read, and the points then measure the volume, not its initialization",
    ),
];

pub const DRAIN: &[Key] = &[
    key(
        "limit",
        Kind::Duration,
        Some("40m"),
        "The drain's longest time: it ends sooner when the throughput steps down and stays down (a burst bucket ran out); at the limit the measured figures may still be on credit (5s to 24h)",
    ),
    key(
        "load",
        Kind::Integer,
        None,
        "The load the drain runs at (outstanding I/Os, or streams for a sequential class), for each class it runs: a high load spends the credit sooner (default: the first point's loads)",
    ),
    key(
        "class",
        Kind::Text,
        None,
        "The one class the drain runs, as it runs at the first point where it runs (default: the first point's classes)",
    ),
];

pub const CLASS: &[Key] = &[
    key(
        "size",
        Kind::Size,
        None,
        "I/O size, a multiple of 512 bytes; or a size mix, \"8KiB:60%, 64KiB:30%, 1MiB:10%\" (shares of the I/Os by count, adding up to 100%) or \"4KiB..=64KiB x2\" (equally likely); required",
    ),
    key(
        "access",
        Kind::OneOf(ACCESS),
        Some("random"),
        "random: uniform over the whole volume, aligned to the size; sequential: streams",
    ),
    key(
        "mix",
        Kind::Mix,
        Some("read"),
        "read, write, \"70% read\", \"30% write\", \"70/30\", trim, \"70% read, 20% write, 10% trim\"",
    ),
    key(
        "per_stream",
        Kind::Count,
        Some("4"),
        "Sequential only: outstanding I/Os per stream (ORION's -num_streamIO)",
    ),
    key(
        "rate",
        Kind::Rate,
        None,
        "Open loop: issue I/Os at this rate (\"20000 iops\", \"400MiB/s\") at times fixed in advance; the matrix load caps the outstanding I/Os; latency is then measured from each I/O's scheduled time",
    ),
    key(
        "arrival",
        Kind::OneOf(ARRIVALS),
        Some("uniform"),
        "With a rate: uniform (even gaps) or poisson (exponential gaps)",
    ),
    key(
        "targets",
        Kind::Names,
        None,
        "The targets (by `name`) this class runs on, as a volume of their own with the spec's [volume] layout (default: every target)",
    ),
    key(
        "region",
        Kind::Text,
        Some("0%..100%"),
        "The part of the class's volume it addresses, end excluded: \"0%..10%\", \"0..64GiB\", \"1GiB..50%\" (a working set)",
    ),
    key(
        "distribution",
        Kind::Text,
        Some("uniform"),
        "Random only: how often each block of the region is chosen: uniform, \"zipf:1.2\", \"pareto:0.2\", \"normal:10%\" (fio's meanings) or \"hot:90%/10%, 8%/20%\" (bands of I/O share over region share, DiskSpd's -rdpct)",
    ),
    key(
        "hot_layout",
        Kind::OneOf(HOT_LAYOUTS),
        Some("scattered"),
        "Where the hot blocks lie: scattered over the region by a seeded permutation, or contiguous from the region's start (normal: around its middle)",
    ),
    key(
        "compress",
        Kind::Text,
        Some("none"),
        "Written data compressible to this ratio, \"3:1\": each 4 KiB unit is fresh random bytes for 1/ratio of it and zeros for the rest",
    ),
    key(
        "dedupe",
        Kind::Text,
        Some("none"),
        "Written 4 KiB units duplicated to this ratio, \"2:1\": each unit is a copy from a pool of 16 with probability 1 − 1/ratio, else fresh",
    ),
    key(
        "durability",
        Kind::Text,
        Some("none"),
        "none: writes may stay in a write-back cache; dsync: every write is durable when it completes (RWF_DSYNC: the kernel sends FUA where the device has it, else a flush after the write); fdatasync:N / fsync:N: an fdatasync (fsync) after every N writes of the class, its commit latency recorded",
    ),
    key(
        "verify",
        Kind::BoolOr(VERIFY_WORDS),
        Some("false"),
        "Data integrity (default: run.verify): true stamps every block this class writes and checks every read of a block written in this run, off the latency clock; \"after\" also re-reads every written block at the end of each point",
    ),
    key(
        "think",
        Kind::Duration,
        None,
        "Closed loop: each slot waits this long (\"200us\") after a completion before its next I/O; the I/O's latency starts after it, and the load held is IOPS × (latency + think)",
    ),
    key(
        "engine",
        Kind::OneOf(ENGINES),
        None,
        "This class's I/O path (default: run.engine): auto, io_uring, libaio or psync",
    ),
    key(
        "burst",
        Kind::Table(BURST),
        None,
        "Closed loop, checkpoint-like bursts: the class issues `ios` I/Os as fast as its outstanding depth allows, then nothing until `idle` after the last of them completed; results record the bursts, I/Os per burst and idle achieved",
    ),
];

pub const BURST: &[Key] = &[
    key(
        "ios",
        Kind::Integer,
        None,
        "I/Os per burst, 1 to 1,000,000; the depth held during a burst is the smaller of the class's load and what the burst has left; required",
    ),
    key(
        "idle",
        Kind::Duration,
        None,
        "The pause between bursts (\"10ms\", above 0 and under 60 s and under run.duration), from the completion of a burst's last I/O to the first issue of the next; required",
    ),
];

pub const SEARCH: &[Key] = &[
    key(
        "target",
        Kind::Text,
        None,
        "The requirement to hold, as [expect] writes it: \"small.read.latency.p99 <= 2ms\"; its class's rate (open loop) or load (closed loop) is searched; required",
    ),
    key(
        "low",
        Kind::Rate,
        None,
        "Lowest value tried: a rate (\"1000 iops\") for a rate class, a load (integer) otherwise; required",
    ),
    key(
        "high",
        Kind::Rate,
        None,
        "Highest value tried, as `low`; required",
    ),
    key(
        "precision",
        Kind::Text,
        Some("5%"),
        "Stop when the highest pass and the lowest fail are this close: a share of the pass (\"5%\") or a value (\"500 iops\", 1)",
    ),
    key(
        "max_trials",
        Kind::Integer,
        Some("12"),
        "At most this many trial points (2 to 64)",
    ),
];

pub const ANSWERS: &[Key] = &[
    key(
        "question",
        Kind::Text,
        None,
        "The question the figure answers, in words, as the report prints it",
    ),
    key(
        "figure",
        Kind::Text,
        None,
        "A class figure as [expect] writes it, selector filters allowed: \"oltp.iops\", \"redo.commit.latency.p99\", \"log.write.latency.p99 @ log.size=8KiB\"; required unless at = \"search\"",
    ),
    key(
        "at",
        Kind::OneOf(&["best", "worst", "highest load", "each load", "search"]),
        Some("best"),
        "Which qualifying point gives it: the best value, the worst, the highest load (of `load`), one per load, or the [search]'s answer",
    ),
    key(
        "load",
        Kind::Names,
        None,
        "The classes whose summed load `highest load` means (default: the figure's class)",
    ),
    key(
        "per",
        Kind::Text,
        None,
        "One answer per value of a class parameter (size, mix, access, per_stream, rate, load): \"log.size\"",
    ),
    key(
        "where",
        Kind::Text,
        None,
        "Only points where this holds, as [expect] writes a requirement: \"oltp.read.latency.p99 <= 1ms\"",
    ),
];

/// The top-level tables, with what each holds.
pub const TABLES: &[(&str, &str)] = &[
    ("spec", "The spec's name, description and parents"),
    (
        "vars",
        "Variables: `${name}` in any string outside [vars] is replaced by the value; --set name=value overrides one",
    ),
    (
        "target",
        "The targets ([[target]], one or more): together they form one volume",
    ),
    ("volume", "How the targets form one volume"),
    ("run", "Settings of every data point"),
    ("class", "I/O classes ([class.NAME]), in the order written"),
    (
        "matrix",
        "The load of each class at each data point: `shape` and CLASS = SWEEP (outstanding I/Os, or streams for sequential classes)",
    ),
    (
        "sweep",
        "Outer loops over class parameters: \"CLASS.PARAM\" = values, PARAM one of size, mix, access, per_stream, rate",
    ),
    (
        "expect",
        "Requirements judged after a run: \"KEY\" = \"COMPARISON\", e.g. \"small.iops\" = \">= 40000\"",
    ),
    (
        "answers",
        "The figures the spec answers ([answers.NAME]): a figure as [expect] writes it and where it is taken (`at`, `load`, `per`, `where`), without a bound",
    ),
    (
        "search",
        "Latency-target search: bisect a class's rate or load for the highest value at which `target` holds",
    ),
    (
        "precondition",
        "Preconditioning (SNIA PTS): write the whole volume `passes` times before the first point",
    ),
    (
        "drain",
        "Drain a burst bucket before measuring: run the first point's workload (or `class` alone, at `load`), unrecorded, until its throughput steps down and stays down (or `limit`)",
    ),
];

/// The names of `keys`, as the loader checks them.
pub fn names(keys: &[Key]) -> Vec<&'static str> {
    keys.iter().map(|k| k.name).collect()
}

/// The top-level table names.
pub fn tables() -> Vec<&'static str> {
    TABLES.iter().map(|(n, _)| *n).collect()
}
