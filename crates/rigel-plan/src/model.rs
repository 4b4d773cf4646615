//! The run plan: every data point that will run, with its loads, and the run's totals. It is what
//! `rigel plan` shows, what `plan.json` holds, and what the executor consumes.

use rigel_expr::{Access, Arrival, Mix, Rate};
/// Written in the spec and kept in the plan: they live with the spec, which the plan reads.
pub use rigel_spec::{AnswerAt, Buffers, Engine, Layout, MatrixShape};
use serde::{Deserialize, Serialize};

/// Version of the plan and results documents; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunPlan {
    pub name: String,
    pub description: String,
    pub targets: Vec<PlannedTarget>,
    pub volume: VolumeLayout,
    pub run: RunSettings,
    /// The classes as declared (before `[sweep]` overrides).
    pub classes: Vec<IoClass>,
    pub matrix: MatrixInfo,
    pub points: Vec<DataPoint>,
    /// ORION's "Total Data Points": the points plus the (0, 0) cell when the matrix holds it.
    pub orion_total_points: u64,
    /// Sum over points of warmup + duration, in seconds (file creation not included).
    pub estimated_seconds: u64,
    /// The `[expect]` requirements, in the order written, evaluated against the results.
    #[serde(default)]
    pub expect: Vec<Requirement>,
    /// `[answers]`, in the order written (none: the judge derives them from the classes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<AnswerPlan>,
    /// `[search]`: its trials are the points (none are planned otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchPlan>,
    /// `[precondition]`: the fill before the first point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precondition: Option<PreconditionPlan>,
    /// `[drain]`: the first point's workload until a burst bucket runs out, before measuring.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drain: Option<DrainPlan>,
    /// `run.steady`: every point repeats rounds until steady, then measures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<SteadyPlan>,
    /// `run.cpus`: the CPUs the workers are pinned to, as written (absent: the device's NUMA
    /// node's CPUs where it has one, resolved where the run runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<rigel_expr::CpuSet>,
}

impl RunPlan {
    /// ORION's shape: every class is one of ORION's two, `small` and `large` (`rigel orion`, the
    /// `orion/*` specs, specs written in ORION's terms). Only these runs are told in ORION's
    /// words (its point count, its headline lines); another spec's classes are not ORION's.
    pub fn orion_shaped(&self) -> bool {
        !self.classes.is_empty()
            && self
                .classes
                .iter()
                .all(|c| c.name == "small" || c.name == "large")
    }

    /// The engines the classes ask for, each once, in class order.
    pub fn engines(&self) -> Vec<Engine> {
        let mut out: Vec<Engine> = Vec::new();
        for c in &self.classes {
            if !out.contains(&c.engine) {
                out.push(c.engine);
            }
        }
        out
    }
}

/// One `[expect]` entry: `"small.iops" = ">= 40000"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Requirement {
    /// The key as written: metric and point selector (`small.latency.p99 @ small=1`).
    pub key: String,
    pub comparison: rigel_expr::Comparison,
}

/// One `[answers.NAME]`: a figure and where it is taken, judged after the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnswerPlan {
    pub name: String,
    /// The question in words (empty: said from the figure and rule).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub question: String,
    /// A requirement key without a bound (`oltp.iops`); empty for `at = "search"`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub figure: String,
    pub at: AnswerAt,
    /// The classes whose summed load `highest load` orders by (empty: the figure's class).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub load: Vec<String>,
    /// One answer per value of this class parameter (`log.size`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per: Option<String>,
    /// Only points where this requirement holds.
    #[serde(default, rename = "where", skip_serializing_if = "Option::is_none")]
    pub when: Option<Requirement>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedTarget {
    /// What classes call it (`name`; absent in plans whose targets are called by index).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    pub path: String,
    /// Declared size: rigel creates (and fills) the file at this size when it is absent.
    pub size: Option<u64>,
    /// The spec consents to destructive writes on this target.
    pub destructive: bool,
    /// The user named its path on the command line (`--set VAR=PATH`, `--set target.N.path=`):
    /// `--allow-destructive` in that same command line is consent enough, as `destructive = true`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub named_on_command_line: bool,
    /// Some point writes to this target.
    pub written: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VolumeLayout {
    pub layout: Layout,
    /// Stripe depth in bytes (raid0 only; kept for concat so ORION's summary can print it).
    pub stripe: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSettings {
    /// Measured time per data point.
    pub duration_ms: u64,
    /// Unmeasured time before each data point.
    pub warmup_ms: u64,
    /// An I/O outstanding longer than this fails its point as stalled (`run.io_timeout`; absent in
    /// plans that keep the default).
    #[serde(
        default = "default_io_timeout_ms",
        skip_serializing_if = "is_default_io_timeout"
    )]
    pub io_timeout_ms: u64,
    /// O_DIRECT (true) or buffered I/O.
    pub direct: bool,
    /// What backs the I/O buffers (`run.buffers`; absent in plans that keep 4 KiB pages).
    #[serde(default, skip_serializing_if = "is_pages")]
    pub buffers: Buffers,
    /// PRNG seed for offsets, mix draws and write data.
    pub seed: u64,
    /// Worker threads (each with its own ring); the plan resolves "auto" to a number.
    pub workers: u32,
    /// `verify`: the classes that stamp their writes and check their reads (absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyPlan>,
    /// `polled = true`: each worker's ring polls for completions (IORING_SETUP_IOPOLL).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub polled: bool,
    /// `zones = "sequential"`: writes go to each writing slot's zone at its write pointer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub zones: bool,
    /// `sqpoll = true`: each worker's ring has a kernel submission thread (absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sqpoll: Option<super::sqpoll::SqPoll>,
}

/// Data integrity: which classes stamp every written block and check every read of a block written
/// in this run, in blocks of `unit` bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyPlan {
    pub unit: u64,
    /// The verified classes, by name.
    pub classes: Vec<String>,
    /// Every written block is read back and checked at the end of each point (`verify = "after"`).
    #[serde(default)]
    pub after: bool,
    /// The generation map's size (2 bytes per block of the volume), when every target's size is
    /// declared; otherwise known when the targets are opened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map_bytes: Option<u64>,
    /// `journal = true`: the generation map is kept in the run folder (`journal.map`) for
    /// `rigel verify DIR`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub journal: bool,
    /// Every write of the plan carries RWF_DSYNC (`durability = "dsync"`): each acknowledged
    /// write was promised durable.
    #[serde(default)]
    pub durable: bool,
}

fn is_pages(b: &Buffers) -> bool {
    *b == Buffers::Pages
}

/// `run.io_timeout` when a spec does not set it.
pub use rigel_spec::DEFAULT_IO_TIMEOUT;

fn default_io_timeout_ms() -> u64 {
    DEFAULT_IO_TIMEOUT.as_millis() as u64
}

fn is_default_io_timeout(ms: &u64) -> bool {
    *ms == default_io_timeout_ms()
}

/// An I/O class as declared in `[class.NAME]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoClass {
    pub name: String,
    pub size: u64,
    pub access: Access,
    pub mix: Mix,
    /// Outstanding I/Os per sequential stream (ORION's `-num_streamIO`); 1 for random classes.
    pub per_stream: u32,
    /// Open loop: the requested rate (absent: closed loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "is_uniform")]
    pub arrival: Arrival,
    /// Placement (`targets`, `region`): absent keys when the class uses the whole volume.
    #[serde(flatten)]
    pub pattern: super::pattern::Pattern,
    /// The engine the class asks for: its own `engine`, else `[run] engine`, else `--engine`'s
    /// override of both (absent: `auto`).
    #[serde(default, skip_serializing_if = "is_auto")]
    pub engine: Engine,
}

fn is_auto(e: &Engine) -> bool {
    *e == Engine::Auto
}

fn is_uniform(a: &Arrival) -> bool {
    *a == Arrival::Uniform
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatrixInfo {
    pub shape: MatrixShape,
    /// Each class's load levels, in class order, as the matrix expands them (0 included where the
    /// shape uses it).
    pub levels: Vec<ClassLevels>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassLevels {
    pub class: String,
    pub levels: Vec<u32>,
}

/// One data point: its classes with their loads and parameters at this point. Plans of up to
/// `LISTED_IDLE_CLASSES` classes list every class (0 = idle), larger ones only the classes that
/// run; readers take an absent class as idle (`load_of`, `active`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataPoint {
    /// Stable id, 1-based, in run order; `--resume` matches on it.
    pub id: u32,
    /// The `[sweep]` values in force, in the order written (`small.size = 8KiB`).
    pub sweep: Vec<SweepBinding>,
    pub classes: Vec<ClassLoad>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SweepBinding {
    pub key: String,
    pub value: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassLoad {
    pub class: String,
    pub size: u64,
    pub access: Access,
    pub mix: Mix,
    /// The matrix level: outstanding I/Os for random classes, streams for sequential ones.
    pub load: u32,
    pub per_stream: u32,
    /// I/Os kept in flight: `load` (random) or `load × per_stream` (sequential); for a class
    /// with a rate, the most it may have in flight.
    pub outstanding: u32,
    /// Open loop: the requested rate; `load` then caps the outstanding I/Os.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "is_uniform")]
    pub arrival: Arrival,
    /// Placement (`targets`, `region`): absent keys when the class uses the whole volume.
    #[serde(flatten)]
    pub pattern: super::pattern::Pattern,
    /// The engine the class asks for (its `IoClass::engine`; absent: `auto`). The executor
    /// resolves it (`rigel_exec::resolve_engine`).
    #[serde(default, skip_serializing_if = "is_auto")]
    pub engine: Engine,
}

impl ClassLoad {
    /// Requested I/Os per second (open loop), None for a closed-loop class.
    pub fn rate_iops(&self) -> Option<f64> {
        self.rate.map(|r| r.iops(self.pattern.mean_size(self.size)))
    }

    /// The class at matrix level `load`: its outstanding I/Os follow (`load` streams of
    /// `per_stream` for a sequential class).
    pub fn set_load(&mut self, load: u32) {
        self.load = load;
        let per = if self.access == Access::Sequential {
            self.per_stream
        } else {
            1
        };
        self.outstanding = load.saturating_mul(per);
    }
}

impl DataPoint {
    /// The load of a class by name (0 when the class is absent).
    pub fn load_of(&self, class: &str) -> u32 {
        self.classes
            .iter()
            .find(|c| c.class == class)
            .map_or(0, |c| c.load)
    }
    /// The classes that run at this point.
    pub fn active(&self) -> impl Iterator<Item = &ClassLoad> {
        self.classes.iter().filter(|c| c.outstanding > 0)
    }
    /// `small=4 large=0`, as the terminal and reports name a point (the classes the point lists).
    pub fn label(&self) -> String {
        let loads: Vec<String> = self
            .classes
            .iter()
            .map(|c| format!("{}={}", c.class, c.load))
            .collect();
        let mut s = loads.join(" ");
        for b in &self.sweep {
            s.push_str(&format!(" {}={}", b.key, b.value));
        }
        s
    }
}

/// The fill before the first point: `passes` × the volume, `depth` writes of `size` in flight.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreconditionPlan {
    pub passes: u32,
    pub pattern: Access,
    pub size: u64,
    pub depth: u32,
    pub pass_limit_ms: u64,
    /// `read = true`: the passes read the volume through instead of writing it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read: bool,
    /// Bytes it writes when every target's size is declared (None: `passes` × the capacity found
    /// when the targets open).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
}

/// The drain before the first point: its workload (or one class's, at a load of its own) until a
/// sustained step down, at most `limit_ms`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrainPlan {
    pub limit_ms: u64,
    /// `load`: the level each class drained runs at (none: the point's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<u32>,
    /// `class`: the one class drained (none: the first point's classes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
}

/// The steady-state rule (SNIA PTS): rounds of the point until the last `rounds` values of
/// `metric` are within `excursion`% (max − min) and `slope`% (the best-fit line's rise across
/// the window) of their mean; at most `max_ms` of rounds; then the measured run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SteadyPlan {
    pub metric: String,
    pub rounds: u32,
    pub excursion: f64,
    pub slope: f64,
    pub max_ms: u64,
}

/// What the search varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Knob {
    /// An open-loop class's rate, in I/Os per second.
    Rate,
    /// A closed-loop class's load (outstanding I/Os, or streams).
    Load,
}

/// When to stop: the highest pass and the lowest fail within a share of the pass, or a value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tolerance {
    Percent(f64),
    Absolute(f64),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchPlan {
    /// The requirement each trial is judged by, as `[expect]` keeps one.
    pub target: Requirement,
    pub class: String,
    pub knob: Knob,
    /// Bounds in the knob's unit (I/Os per second, or load).
    pub low: f64,
    pub high: f64,
    pub tolerance: Tolerance,
    pub max_trials: u32,
    /// The most trials the search can take (the plan's estimate counts these).
    pub worst_trials: u32,
    /// The point every trial runs, with the class's knob set to the trial's value.
    pub template: DataPoint,
}
