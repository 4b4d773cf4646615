//! `rigel plan`: the data points a spec expands to, as a table or JSON, before any I/O.

use super::args::PlanArgs;
use super::exit;
use super::plan_table;
use super::specs;
use std::io::Write;

pub fn run(a: &PlanArgs) -> i32 {
    let (loaded, plan) = match specs::compile(specs::input(a.spec_file.as_deref()), &a.spec) {
        Ok(p) => p,
        Err(d) => {
            specs::report(&d);
            return exit::BAD_SPEC;
        }
    };
    specs::warn_targets(&plan);
    say_target_vars(&loaded);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = if a.json {
        serde_json::to_writer_pretty(&mut out, &plan)
            .map_err(std::io::Error::other)
            .and_then(|_| writeln!(out))
    } else {
        plan_table::write(&mut out, &plan)
    };
    // Then what `rigel run` would refuse about the targets as they are now: the plan is shown
    // either way, and the exit code is the one the run would have.
    let consent = rigel_target::Consent {
        allow_destructive: a.allow_destructive,
        force: a.force,
    };
    let refused = specs::preflight(&loaded, &plan, consent, true);
    match written.and_then(|_| out.flush()) {
        Ok(()) => match refused {
            Ok(()) => exit::OK,
            Err((d, code)) => {
                specs::report(&d);
                code
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => exit::OK,
        Err(e) => {
            eprintln!("rigel plan: cannot write the plan: {e}");
            exit::RUNTIME
        }
    }
}

/// How the command line names this spec's targets (`targets: --set data1=PATH …`), beside the
/// engine line: what `rigel specs NAME` explains at length.
fn say_target_vars(loaded: &rigel_spec::LoadedSpec) {
    let sets: Vec<String> = (0..loaded.spec.targets.len())
        .map(|i| match loaded.target_var(i) {
            Some(v) => format!("--set {v}=PATH"),
            None => format!("--set target.{i}.path=PATH"),
        })
        .collect();
    if !sets.is_empty() {
        eprintln!("targets: {} names your LUNs", sets.join(" "));
    }
}
