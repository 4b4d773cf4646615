//! Loading and compiling a spec for a command, with diagnostics rendered for the terminal.

use rigel_plan::RunPlan;
use rigel_spec::{self as spec, Diagnostics, LoadedSpec, Override, SpecInput};

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

/// Loads and compiles a spec (`rigel_plan::check`); on failure, the diagnostics. A partial spec (a
/// base to extend) is an error here: it cannot run on its own.
pub fn compile(
    input: SpecInput<'_>,
    overrides: &[Override],
) -> Result<(LoadedSpec, RunPlan), Diagnostics> {
    compile_as(input, overrides, &spec::Builtins::single())
}

/// [`compile`] as a fleet rank (`${rank}`, `${ranks}`, `${host}`).
pub fn compile_as(
    input: SpecInput<'_>,
    overrides: &[Override],
    builtins: &spec::Builtins,
) -> Result<(LoadedSpec, RunPlan), Diagnostics> {
    rigel_plan::check(input, overrides, cores(), builtins)?.runnable()
}

/// Prints diagnostics to stderr (colored on a terminal) with a closing count.
pub fn report(d: &Diagnostics) {
    eprint!("{}", d.render(super::style::color()));
    let n = d.errors.len();
    eprintln!("{n} error{} in spec", if n == 1 { "" } else { "s" });
}

/// Warns (for `check` and `plan`) of what can be known about the targets without I/O: missing
/// ones (below), a file's holes, a target with no block device below it.
pub fn warn_targets(plan: &RunPlan) {
    if let Err(refused) = rigel_exec::probe_ring() {
        eprintln!("warning: `rigel run` cannot run here: {refused}");
    }
    warn_missing_targets(plan);
    for w in rigel_target::foresee(plan) {
        eprintln!("warning: {w}");
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
