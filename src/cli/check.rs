//! `rigel check`: validates specs (load, types, compile) without touching storage.

use super::args::{CheckArgs, CheckFormat};
use super::exit;
use super::specs;
use super::style::outln;
use rigel_spec::SpecInput;

pub fn run(a: &CheckArgs) -> i32 {
    let json = a.format == CheckFormat::Json;
    let mut code = exit::OK;
    let mut records = Vec::new();
    for path in &a.specs {
        // Loaded once: `-` (standard input) can be read only once.
        let compiled = rigel_spec::load(SpecInput::Arg(path), &a.spec.set, specs::cores())
            .and_then(|loaded| {
                if loaded.spec.partial {
                    Ok((loaded, None))
                } else {
                    specs::compile_loaded(loaded, a.spec.engine.engine).map(|(l, p)| (l, Some(p)))
                }
            });
        match compiled {
            Ok((_, None)) => {
                if !json {
                    outln!("{}: ok (partial spec: a base to extend)", path.display())
                }
            }
            Ok((_, Some(plan))) => {
                if !json {
                    let n = plan.points.len();
                    let points = if n == 1 { "point" } else { "points" };
                    outln!("{}: ok ({n} {points})", path.display());
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
