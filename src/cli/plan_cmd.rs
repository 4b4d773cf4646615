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
    let refused = specs::preflight(&loaded, &plan, consent);
    match written.and_then(|_| out.flush()) {
        Ok(()) => match refused {
            Ok(()) => exit::OK,
            Err(d) => {
                specs::report(&d);
                exit::BAD_SPEC
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => exit::OK,
        Err(e) => {
            eprintln!("rigel plan: cannot write the plan: {e}");
            exit::RUNTIME
        }
    }
}
