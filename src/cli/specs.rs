//! Loading and compiling a spec for a command, with diagnostics rendered for the terminal.

use super::args::{EngineOption, SpecOptions};
use rigel_plan::{Checked, RunPlan};
use rigel_spec::{self as spec, Diagnostics, Engine, LoadedSpec, SpecInput};

/// The built-in default spec (`rigel run` without a spec).
pub const QUICK_SPEC: &str = rigel_spec::library::QUICK;

/// A spec as named on the command line (`-`, a file, a library name), or the built-in quick spec
/// when none is given.
pub fn input(file: Option<&std::path::Path>) -> SpecInput<'_> {
    match file {
        Some(path) => SpecInput::Arg(path),
        None => SpecInput::Text {
            name: "quick",
            text: QUICK_SPEC,
        },
    }
}

/// Cores of this machine: the value of the name `cores` in specs.
pub fn cores() -> u64 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u64)
}

/// Loads and compiles a spec (`rigel_plan::check`) with the command line's `--set` and
/// `--engine`; on failure, the diagnostics. A partial spec (a base to extend) is an error here: it
/// cannot run on its own.
pub fn compile(
    input: SpecInput<'_>,
    options: &SpecOptions,
) -> Result<(LoadedSpec, RunPlan), Diagnostics> {
    compile_as(input, options, &spec::Builtins::single())
}

/// [`compile`] as a fleet rank (`${rank}`, `${ranks}`, `${host}`).
pub fn compile_as(
    input: SpecInput<'_>,
    options: &SpecOptions,
    builtins: &spec::Builtins,
) -> Result<(LoadedSpec, RunPlan), Diagnostics> {
    let checked = rigel_plan::check(input, &options.set, cores(), builtins)?;
    refused_here(forced(checked, options.engine.engine)?)?.runnable()
}

/// A spec another command wrote (`rigel orion`, `rigel fio`: its options translated into TOML),
/// compiled as [`compile`] compiles a file, with the command's `--engine` and no `--set`; its
/// diagnostics printed where it does not compile, and the exit code for them.
pub fn compile_written(
    name: &str,
    text: &str,
    engine: Option<Engine>,
) -> Result<(LoadedSpec, RunPlan), i32> {
    let options = SpecOptions {
        set: Vec::new(),
        engine: EngineOption { engine },
    };
    compile(SpecInput::Text { name, text }, &options).map_err(|d| {
        report(&d);
        super::exit::BAD_SPEC
    })
}

/// What this host's targets refuse of a checked plan, where the spec asks it: writes a zoned
/// device would fail (`rigel_target::zoned_refusals`), polling a device without poll queues
/// (`rigel_target::polled_refusals`), an NVMe passthrough target on an engine that cannot reach
/// it (`rigel_target::passthru_refusals`).
pub fn refused_here(checked: Checked) -> Result<Checked, Diagnostics> {
    let Some(plan) = &checked.plan else {
        return Ok(checked);
    };
    let mut errors = rigel_target::zoned_refusals(&checked.loaded.spec, plan);
    errors.extend(rigel_target::polled_refusals(&checked.loaded.spec, plan));
    errors.extend(rigel_target::passthru_refusals(&checked.loaded.spec, plan));
    if errors.is_empty() {
        return Ok(checked);
    }
    Err(Diagnostics {
        sources: checked.loaded.sources,
        errors,
    })
}

/// `--engine NAME`: every class of the checked plan takes this engine; one that cannot serve the
/// run (libaio with buffered I/O) is an error of the spec as a whole.
pub fn forced(mut checked: Checked, engine: Option<Engine>) -> Result<Checked, Diagnostics> {
    let (Some(engine), Some(plan)) = (engine, checked.plan.as_mut()) else {
        return Ok(checked);
    };
    match plan.force_engine(engine) {
        Ok(()) => Ok(checked),
        Err(e) => Err(Diagnostics {
            sources: checked.loaded.sources,
            errors: vec![e],
        }),
    }
}

/// What `rigel run` would refuse about the targets as they are now, as the spec's diagnostics
/// with the exit code the run would have: a declared size larger than what is there (exit 2,
/// the spec's mistake; both `plan` and `run` refuse it), and, with `refusals`, the write
/// guard's (exit 1, as the run's own open gives; `plan` tells them, `run` leaves them to its open).
pub fn preflight(
    loaded: &LoadedSpec,
    plan: &RunPlan,
    consent: rigel_target::Consent,
    refusals: bool,
) -> Result<(), (Diagnostics, i32)> {
    // `run` opens nothing here: an open that stalls must meet the run's signal handling.
    let depth = if refusals {
        rigel_target::Depth::Open
    } else {
        rigel_target::Depth::Stat
    };
    let found = rigel_target::preflight_refusals(&loaded.spec, plan, consent, depth);
    let (errors, code) = if !found.sizes.is_empty() {
        (found.sizes, super::exit::BAD_SPEC)
    } else if refusals && !found.refusals.is_empty() {
        (found.refusals, super::exit::RUNTIME)
    } else {
        return Ok(());
    };
    let d = Diagnostics {
        sources: loaded.sources.clone(),
        errors,
    };
    Err((d, code))
}

/// Prints diagnostics to stderr (colored on a terminal) with a closing count.
pub fn report(d: &Diagnostics) {
    eprint!("{}", d.render(super::style::color()));
    let n = d.errors.len();
    eprintln!("{n} error{} in spec", if n == 1 { "" } else { "s" });
}

/// Warns (for `check` and `plan`) of what can be known about the run without I/O: the engine each
/// class would get here, missing targets (below), a file's holes, a target with no block device.
pub fn warn_targets(plan: &RunPlan) {
    say_engines(plan);
    warn_missing_targets(plan);
    for w in rigel_target::foresee(plan) {
        eprintln!("warning: {w}");
    }
}

/// Which engine each engine the classes ask for becomes on this host: `engine: auto → io_uring
/// here`, `engine: auto → libaio here (io_uring is refused here …)`; an io_uring named and refused
/// is a warning that the run cannot start.
fn say_engines(plan: &RunPlan) {
    for requested in plan.engines() {
        match rigel_exec::resolve_engine(requested, plan.run.direct) {
            Ok((got, None)) if got == requested => eprintln!("engine: {got} here"),
            Ok((got, None)) => eprintln!("engine: {requested} → {got} here"),
            Ok((got, Some(why))) => eprintln!("engine: {requested} → {got} here ({why})"),
            Err(refused) => eprintln!("warning: `rigel run` cannot run here: {refused}"),
        }
    }
}

/// Warns about targets that do not exist and that the spec declares no
/// size for: `rigel run` could neither open nor create them. A warning, not an error: the device
/// may exist on the machine that runs the spec.
fn warn_missing_targets(plan: &RunPlan) {
    for t in &plan.targets {
        if t.size.is_none() && !std::path::Path::new(&t.path).exists() {
            eprintln!(
                "warning: target `{}` does not exist, and the spec declares no size for rigel to \
                 create it (size = \"1GiB\" makes a test file); `rigel run` would fail here",
                t.path
            );
        }
    }
}

/// The provenance of a run of `loaded`: its top file's (or text's) sha256 and git commit, who runs.
pub fn provenance(loaded: &LoadedSpec) -> rigel_results::Provenance {
    let top = loaded.sources.try_get(spec::SourceId(0));
    rigel_target::provenance(&rigel_target::SpecRead {
        name: &loaded.spec.name,
        source: top.map_or("", |s| s.name.as_str()),
        path: top.and_then(|s| s.path.as_deref()),
        text: top.map_or(&loaded.resolved_toml, |s| s.text.as_str()),
        resolved: &loaded.resolved_toml,
    })
}
