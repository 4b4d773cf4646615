//! The typed spec: what the user asked for, each value with the location it was written at, so the
//! compiler can point at the spec when a combination is invalid.

use super::source::Loc;
use rigel_expr::{Access, Arrival, Comparison, CountExpr, Mix, Rate, Size};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// A value and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Sp<T> {
    pub value: T,
    pub loc: Loc,
}

impl TargetSpec {
    /// What classes call this target: its `name`, or its index `i` in the list.
    pub fn name_or(&self, i: usize) -> String {
        self.name
            .as_ref()
            .map_or_else(|| i.to_string(), |n| n.value.clone())
    }
}

impl<T> Sp<T> {
    pub fn new(value: T, loc: Loc) -> Sp<T> {
        Sp { value, loc }
    }
}

#[derive(Clone, Debug)]
pub struct Spec {
    pub name: String,
    pub description: String,
    /// A base meant to be extended (`[spec] partial = true`): checked, never compiled on its own.
    pub partial: bool,
    pub targets: Vec<TargetSpec>,
    /// Where `[[target]]` was written (or the spec's start), for errors about the list as a whole.
    pub targets_loc: Loc,
    pub volume: VolumeSpec,
    pub run: RunSpec,
    pub classes: Vec<ClassSpec>,
    pub matrix: MatrixSpec,
    pub sweep: Vec<SweepSpec>,
    pub expect: Vec<ExpectSpec>,
    /// `[answers]`: the figures the spec exists to give, each with where it is taken.
    pub answers: Vec<AnswerSpec>,
    /// `[search]`: the highest rate or load at which a requirement holds.
    pub search: Option<SearchSpec>,
    /// `[precondition]`: fill the volume before the first point.
    pub precondition: Option<PreconditionSpec>,
    /// `[drain]`: run until a burst bucket runs out before the first point.
    pub drain: Option<DrainSpec>,
}

#[derive(Clone, Debug)]
pub struct TargetSpec {
    /// `name`: what classes call it in `targets` (None: its index).
    pub name: Option<Sp<String>>,
    pub path: Sp<String>,
    pub size: Option<Sp<Size>>,
    pub destructive: bool,
    /// Its path came from the command line (`--set VAR=PATH` of a variable the path uses, or
    /// `--set target.N.path=PATH`): the user named it there.
    pub named_on_command_line: bool,
}

/// How the targets form one volume (`[volume] layout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    Concat,
    Raid0,
}

/// What backs the I/O buffers (`[run] buffers`). On a device with a small descriptor ring (virtio
/// without indirect descriptors: one descriptor per physically contiguous run of a request) this
/// decides how many large requests the device holds at once, so it is the user's choice, and the
/// default is fio's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Buffers {
    /// 4 KiB pages wherever the kernel finds them, as fio's default `iomem=malloc`.
    #[default]
    Pages,
    /// Transparent huge pages (2 MiB, physically contiguous), as fio's `iomem=mmaphuge`.
    Huge,
}

/// What `verify` asks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verify {
    #[default]
    Off,
    /// Stamp every written block, check every read of a block written in this run.
    On,
    /// `On`, and re-read every written block at the end of each point.
    After,
}

/// ORION's matrix shapes (`[matrix] shape`): which combinations of class loads are points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MatrixShape {
    Basic,
    Detailed,
    Point,
    Row,
    Col,
    Max,
}

#[derive(Clone, Debug)]
pub struct VolumeSpec {
    pub layout: Sp<Layout>,
    pub stripe: Sp<Size>,
}

#[derive(Clone, Debug)]
pub struct RunSpec {
    pub duration: Sp<Duration>,
    pub warmup: Sp<Duration>,
    /// An I/O outstanding longer than this fails its point as stalled.
    pub io_timeout: Sp<Duration>,
    pub direct: bool,
    pub buffers: Buffers,
    pub seed: Sp<u64>,
    /// None: one worker.
    pub workers: Option<Sp<CountExpr>>,
    /// `run.steady`: repeat each point until steady, then measure.
    pub steady: Option<SteadySpec>,
    /// `run.verify`: every class's default (a class's own `verify` wins).
    pub verify: Option<Sp<Verify>>,
    /// `run.verify_unit`: the block verified classes stamp and check.
    pub verify_unit: Option<Sp<Size>>,
    /// `run.journal`: keep the generation map in the run folder (`rigel verify DIR`).
    pub journal: Option<Sp<bool>>,
    /// `run.engine`: every class's engine (a class's own `engine` wins; None: `auto`).
    pub engine: Option<Sp<super::Engine>>,
    /// `run.cpus`: the CPUs the workers are pinned to (None: the device's NUMA node, if any).
    pub cpus: Option<Sp<rigel_expr::CpuSet>>,
    /// `run.polled`: io_uring's polled completions (IORING_SETUP_IOPOLL).
    pub polled: Option<Sp<bool>>,
    /// `run.sqpoll`: io_uring's kernel submission thread (IORING_SETUP_SQPOLL).
    pub sqpoll: Option<Sp<bool>>,
    /// `run.zones = "sequential"`: writes at each zone's write pointer (the only word).
    pub zones: Option<Sp<bool>>,
    /// `run.sq_thread_cpu`: the CPU the submission thread is pinned to (None: unpinned).
    pub sq_thread_cpu: Option<Sp<u64>>,
    /// `run.sq_thread_idle`: how long the submission thread polls an idle ring before it sleeps.
    pub sq_thread_idle: Option<Sp<Duration>>,
}

#[derive(Clone, Debug)]
pub struct ClassSpec {
    pub name: Sp<String>,
    pub size: Sp<Size>,
    pub access: Sp<Access>,
    pub mix: Sp<Mix>,
    /// None: 4 for sequential classes (ORION's default), 1 for random ones.
    pub per_stream: Option<Sp<u32>>,
    /// Open loop: the class issues I/Os at this rate (None: closed loop).
    pub rate: Option<Sp<Rate>>,
    pub arrival: Sp<Arrival>,
    /// `targets`: the targets (by name) forming the class's own volume (None: every target).
    pub targets: Option<Vec<Sp<String>>>,
    /// `region`: the part of the class's volume it addresses (None: all of it).
    pub region: Option<Sp<rigel_expr::Region>>,
    /// `distribution`: the skew of a random class (None: uniform).
    pub distribution: Option<Sp<rigel_expr::Distribution>>,
    /// `hot_layout = "contiguous"` (None: scattered).
    pub contiguous: Option<Sp<bool>>,
    /// `durability` (None: not written, `none`).
    pub durability: Option<Sp<rigel_expr::Durability>>,
    /// `size` written as a mix (`8KiB:60%, 64KiB:40%`); `size` is then its largest size.
    pub sizes: Option<Sp<rigel_expr::SizeMix>>,
    /// `compress = "3:1"`: written data compressible to this ratio (hundredths: 300).
    pub compress: Option<Sp<u32>>,
    /// `dedupe = "2:1"`: written 4 KiB units duplicated to this ratio (hundredths: 200).
    pub dedupe: Option<Sp<u32>>,
    /// `verify` on the class (None: `run.verify`).
    pub verify: Option<Sp<Verify>>,
    /// `think = "200us"`: each slot waits this long after a completion (closed loop).
    pub think: Option<Sp<Duration>>,
    /// `burst = { ios = 64, idle = "10ms" }`: bursts of I/Os apart by an idle time (closed loop).
    pub burst: Option<Sp<BurstSpec>>,
    /// `engine` on the class (None: `run.engine`).
    pub engine: Option<Sp<super::Engine>>,
}

/// `burst = { ios = 64, idle = "10ms" }`: the class issues `ios` I/Os as fast as its depth allows,
/// then nothing until `idle` after the last of them completed.
#[derive(Clone, Debug)]
pub struct BurstSpec {
    pub ios: Sp<u32>,
    pub idle: Sp<Duration>,
}

#[derive(Clone, Debug)]
pub struct MatrixSpec {
    pub shape: Sp<MatrixShape>,
    /// Each class's load levels (the sweep evaluated: sorted, de-duplicated), in the order written.
    pub loads: Vec<(Sp<String>, Sp<Vec<u64>>)>,
    pub loc: Loc,
}

/// One `[sweep]` entry: `"small.size" = "4KiB, 8KiB"`.
#[derive(Clone, Debug)]
pub struct SweepSpec {
    pub class: Sp<String>,
    pub values: Sp<SweepValues>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SweepValues {
    Size(Vec<Size>),
    Mix(Vec<Mix>),
    Access(Vec<Access>),
    PerStream(Vec<u64>),
    Rate(Vec<Rate>),
}

impl SweepValues {
    pub fn param(&self) -> &'static str {
        match self {
            SweepValues::Size(_) => "size",
            SweepValues::Mix(_) => "mix",
            SweepValues::Access(_) => "access",
            SweepValues::PerStream(_) => "per_stream",
            SweepValues::Rate(_) => "rate",
        }
    }
    pub fn len(&self) -> usize {
        match self {
            SweepValues::Size(v) => v.len(),
            SweepValues::Mix(v) => v.len(),
            SweepValues::Access(v) => v.len(),
            SweepValues::PerStream(v) => v.len(),
            SweepValues::Rate(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One `[expect]` requirement: a key checked by `expr::parse_requirement_key` and `expr::check_key`
/// (kept as written, dotted keys joined), and a comparison whose unit fits the metric.
#[derive(Clone, Debug)]
pub struct ExpectSpec {
    pub key: Sp<String>,
    pub comparison: Sp<Comparison>,
}

/// One `[answers.NAME]`: a figure and where it is taken, without a bound (`[expect]` with a
/// bound is a requirement; an answer is what the run is for).
#[derive(Clone, Debug)]
pub struct AnswerSpec {
    pub name: Sp<String>,
    /// The question in words, as the report prints it (empty: said from the figure and rule).
    pub question: String,
    /// A class figure as `[expect]` writes it, selector filters allowed (`log.write.latency.p99 @
    /// log.size=8KiB`); empty for `at = "search"`.
    pub figure: Sp<String>,
    pub at: Sp<AnswerAt>,
    /// The classes whose summed load `highest load` orders the points by (empty: the figure's).
    pub load: Vec<Sp<String>>,
    /// One answer per value of this class parameter (`log.size`).
    pub per: Option<Sp<String>>,
    /// Only points where this holds, as `[expect]` writes a requirement (`oltp.read.latency.p99
    /// <= 1ms`): the key and the comparison.
    pub when: Option<(Sp<String>, Sp<Comparison>)>,
}

/// Which of the points that qualify gives an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerAt {
    /// The best value (highest IOPS or MB/s, lowest latency): asked for, never assumed for latency.
    Best,
    /// The worst value (the highest latency, the lowest throughput).
    Worst,
    /// The point of the highest load (of `load`'s classes), the worst value among equals.
    HighestLoad,
    /// One answer per load of the figure's class (the worst at each).
    EachLoad,
    /// The `[search]`'s answer, at its trial.
    Search,
}

impl AnswerAt {
    pub const NAMES: [&'static str; 5] = ["best", "worst", "highest load", "each load", "search"];
    pub fn name(self) -> &'static str {
        match self {
            AnswerAt::Best => "best",
            AnswerAt::Worst => "worst",
            AnswerAt::HighestLoad => "highest load",
            AnswerAt::EachLoad => "each load",
            AnswerAt::Search => "search",
        }
    }
    pub fn from_name(s: &str) -> Option<AnswerAt> {
        [
            AnswerAt::Best,
            AnswerAt::Worst,
            AnswerAt::HighestLoad,
            AnswerAt::EachLoad,
            AnswerAt::Search,
        ]
        .into_iter()
        .find(|a| a.name() == s)
    }
}

/// `[search]`: bisect a class's rate (open loop) or load (closed loop) for the highest value at
/// which `target` holds. The class is the one the target names.
#[derive(Clone, Debug)]
pub struct SearchSpec {
    /// The requirement, split as `[expect]` writes it: key and comparison.
    pub key: Sp<String>,
    pub comparison: Sp<Comparison>,
    /// The class the target's key names.
    pub class: String,
    /// A rate (`5000 iops`) for a rate class, or an integer load for a closed-loop class.
    pub low: Sp<Rate>,
    pub high: Sp<Rate>,
    pub precision: Sp<Precision>,
    pub max_trials: Sp<u64>,
    /// The `[search]` table, for errors about the search as a whole.
    pub loc: Loc,
}

/// When the bisection stops: the bracket is within this share of the passing value, or this much.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    Percent(f64),
    Absolute(Rate),
}

/// `[precondition]`: write the whole volume `passes` times before the first point (SNIA PTS:
/// a sequential fill of twice the capacity), `depth` I/Os of `size` in flight.
#[derive(Clone, Debug)]
pub struct PreconditionSpec {
    pub passes: Sp<u64>,
    pub pattern: Sp<Access>,
    pub size: Sp<Size>,
    pub depth: Sp<u64>,
    /// How long one pass may take before the run fails (a pass never ends part-written).
    pub pass_limit: Sp<Duration>,
    /// `read = true`: the passes read the volume instead of writing it.
    pub read: Sp<bool>,
    /// The `[precondition]` table, for errors about it as a whole.
    pub loc: Loc,
}

/// `[drain]`: the first point's workload (or `class` alone, at `load`), unrecorded, until a
/// sustained step down in its throughput (a burst bucket ran out) or `limit`.
#[derive(Clone, Debug)]
pub struct DrainSpec {
    pub limit: Sp<Duration>,
    /// The load each class drained runs at (none: the point's own).
    pub load: Option<Sp<u32>>,
    /// The one class drained (none: the first point's classes).
    pub class: Option<Sp<String>>,
    /// The `[drain]` table, for errors about it as a whole.
    pub loc: Loc,
}

/// `run.steady`: each point repeats rounds of `run.duration` until the last `rounds` values of
/// `metric` are within the SNIA bands, then measures; `max` bounds the rounds.
#[derive(Clone, Debug)]
pub struct SteadySpec {
    /// A class figure as `[expect]` writes it (`small.iops`), no point selector.
    pub metric: Sp<String>,
    pub rounds: Sp<u64>,
    /// Percentages of the window's mean.
    pub excursion: Sp<f64>,
    pub slope: Sp<f64>,
    pub max: Sp<Duration>,
}

/// `run.io_timeout` when a spec does not set it: an I/O outstanding this long fails its point.
pub const DEFAULT_IO_TIMEOUT: Duration = Duration::from_secs(30);
