//! `[precondition]` and `run.steady` in the plan: the fill that runs before the first point (and
//! what it writes), and the steady-state rule every point repeats rounds under.

use super::limits::{self, Timing};
use super::model::{ClassLoad, DataPoint, PreconditionPlan, RunSettings, SteadyPlan};
use rigel_expr::{Access, Mix};
use rigel_spec::{Spec, SpecError};
use std::time::Duration;

/// The name of the precondition's one class (in its passes' results and messages).
pub const CLASS: &str = "precondition";

impl PreconditionPlan {
    /// Pass `pass` (0-based) as a point: one class of 100% writes (100% reads, `read`), one stream of `depth` I/Os
    /// (sequential: from the volume's start, so a pass of `slots` I/Os writes it once, in order)
    /// or `depth` random slots. Its id is distinct per pass so random passes draw other offsets.
    pub fn pass_point(&self, pass: u32) -> DataPoint {
        let sequential = self.pattern == Access::Sequential;
        DataPoint {
            id: u32::MAX - pass,
            sweep: Vec::new(),
            classes: vec![ClassLoad {
                class: CLASS.to_owned(),
                size: self.size,
                access: self.pattern,
                mix: Mix::reads_of(if self.read { 100 } else { 0 }),
                load: if sequential { 1 } else { self.depth },
                per_stream: if sequential { self.depth } else { 1 },
                outstanding: self.depth,
                rate: None,
                arrival: Default::default(),
                pattern: Default::default(),
                engine: Default::default(),
            }],
        }
    }

    /// The settings a pass runs with: one worker (a sequential pass is one stream, which one
    /// ring serves in order), no warmup, `pass_limit` as its longest window.
    pub fn settings(&self, run: &RunSettings) -> RunSettings {
        RunSettings {
            duration_ms: self.pass_limit_ms,
            warmup_ms: 0,
            workers: 1,
            verify: None,
            ..run.clone()
        }
    }

    /// Plan text: `2 sequential passes of 128 KiB writes (QD 32): 8 GiB` or `… : 2 × the capacity`;
    /// `reads` with `read`.
    pub fn describe(&self) -> String {
        let pattern = match self.pattern {
            Access::Sequential => "sequential",
            Access::Random => "random",
        };
        let what = match self.bytes {
            Some(b) => rigel_expr::units::size(b as f64),
            None => format!(
                "runs until {} × the capacity is {} (found when the targets open)",
                self.passes,
                self.verb()
            ),
        };
        format!(
            "{} {pattern} pass{} of {} {} (QD {}) before the first point: {what}",
            self.passes,
            if self.passes == 1 { "" } else { "es" },
            rigel_expr::units::size(self.size as f64),
            if self.read { "reads" } else { "writes" },
            self.depth
        )
    }

    /// What a pass does to the volume: `read` or `written`.
    pub fn verb(&self) -> &'static str {
        if self.read { "read" } else { "written" }
    }
}

impl SteadyPlan {
    /// One line for the plan: `steady: small.iops over 5 rounds (excursion ≤ 20%, slope ≤ 10%), 30m at most`.
    pub fn describe(&self) -> String {
        format!(
            "{} over {} rounds (excursion ≤ {}%, slope ≤ {}%), rounds for {} at most, then the measured run",
            self.metric,
            self.rounds,
            self.excursion,
            self.slope,
            rigel_expr::format_duration(Duration::from_millis(self.max_ms))
        )
    }
}

pub fn compile_precondition(spec: &Spec, errors: &mut Vec<SpecError>) -> Option<PreconditionPlan> {
    let p = spec.precondition.as_ref()?;
    let size = p.size.value.0;
    let mut ok = true;
    let mut bad = |loc, message: String, hint: &str| {
        errors.push(SpecError::at(loc, message, "this value").hint(hint));
        ok = false;
    };
    if size == 0 || size % 512 != 0 || size > u64::from(u32::MAX) {
        bad(
            &p.size.loc,
            format!("a precondition I/O of {size} bytes"),
            "a multiple of 512 bytes, such as \"128KiB\"",
        );
    }
    if !(1..=100).contains(&p.passes.value) {
        bad(
            &p.passes.loc,
            format!("{} passes", p.passes.value),
            "1 to 100 passes (SNIA: 2)",
        );
    }
    if !(1..=limits::MAX_OUTSTANDING).contains(&p.depth.value) {
        bad(
            &p.depth.loc,
            format!("a depth of {}", p.depth.value),
            "1 to a few hundred I/Os in flight (SNIA: 32)",
        );
    }
    if let Err(b) = limits::timing(p.pass_limit.value, Timing::Duration) {
        errors.push(b.at(&p.pass_limit.loc));
        ok = false;
    }
    // Concat: each target's whole I/Os, one after the other (raid0's stripes leave other tails).
    let concat = spec.volume.layout.value == rigel_spec::Layout::Concat;
    let declared: Option<u64> = spec
        .targets
        .iter()
        .map(|t| t.size.as_ref().map(|s| s.value.0 / size.max(1) * size))
        .sum::<Option<u64>>()
        .filter(|_| concat);
    ok.then(|| PreconditionPlan {
        passes: p.passes.value as u32,
        pattern: p.pattern.value,
        size,
        depth: p.depth.value as u32,
        pass_limit_ms: p.pass_limit.value.as_millis() as u64,
        read: p.read.value,
        bytes: declared.map(|d| d * p.passes.value),
    })
}

pub fn compile_steady(spec: &Spec, errors: &mut Vec<SpecError>) -> Option<SteadyPlan> {
    let s = spec.run.steady.as_ref()?;
    if let Err(b) = limits::timing(s.max.value, Timing::Duration) {
        errors.push(b.at(&s.max.loc));
        return None;
    }
    Some(SteadyPlan {
        metric: s.metric.value.clone(),
        rounds: s.rounds.value as u32,
        excursion: s.excursion.value,
        slope: s.slope.value,
        max_ms: s.max.value.as_millis() as u64,
    })
}

/// A pass within the executor's limits (buffer memory, in-flight I/Os), or the error at
/// `[precondition]`.
pub fn check_pass(spec: &Spec, p: &PreconditionPlan, run: &RunSettings) -> Option<SpecError> {
    let loc = &spec.precondition.as_ref()?.loc;
    limits::point(&p.pass_point(0), &p.settings(run))
        .err()
        .map(|b| b.at(loc))
}
