//! `rigel check`: validates specs (`rigel_plan::check`: load, types, compile, the requirements'
//! selectors) without touching storage.

use super::args::{CheckArgs, CheckFormat};
use super::exit;
use super::specs;
use super::style::outln;
use rigel_plan::Checked;
use rigel_spec::{Builtins, SpecInput};

pub fn run(a: &CheckArgs) -> i32 {
    let json = a.format == CheckFormat::Json;
    let mut code = exit::OK;
    let mut records = Vec::new();
    for path in &a.specs {
        // Loaded once: `-` (standard input) can be read only once.
        let checked = rigel_plan::check(
            SpecInput::Arg(path),
            &a.spec.set,
            specs::cores(),
            &Builtins::single(),
        )
        .and_then(|c| specs::forced(c, a.spec.engine.engine))
        .and_then(specs::refused_here);
        match checked {
            Ok(Checked { plan: None, .. }) => {
                if !json {
                    outln!("{}: ok (partial spec: a base to extend)", path.display())
                }
            }
            Ok(Checked {
                plan: Some(plan), ..
            }) => {
                if !json {
                    let n = plan.points.len();
                    let points = if n == 1 { "point" } else { "points" };
                    outln!("{}: ok ({n} {points})", path.display());
                    if let Some(d) = &plan.drain {
                        outln!("  drain: {}", d.describe(plan.points.first(), &plan.points));
                    }
                    specs::warn_targets(&plan);
                }
            }
            Err(d) => {
                code = exit::BAD_SPEC;
                if json {
                    records.extend(d.records(&path.display().to_string()));
                } else {
                    specs::report(&d);
                }
            }
        }
    }
    if json {
        match serde_json::to_string_pretty(&records) {
            Ok(text) => outln!("{text}"),
            Err(e) => {
                eprintln!("rigel check: {e}");
                return exit::RUNTIME;
            }
        }
    }
    code
}
