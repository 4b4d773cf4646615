//! `rigel check`: validates specs (load, types, compile) without touching storage.

use super::args::CheckArgs;
use super::exit;
use super::outln;
use super::specs;
use crate::spec::SpecInput;

pub fn run(a: &CheckArgs) -> i32 {
    let mut code = exit::OK;
    for path in &a.specs {
        // Loaded once: `-` (standard input) can be read only once.
        let compiled = crate::spec::load(SpecInput::Arg(path), &a.spec.set, specs::cores())
            .and_then(|loaded| {
                if loaded.spec.partial {
                    Ok((loaded, None))
                } else {
                    specs::compile_loaded(loaded).map(|(l, p)| (l, Some(p)))
                }
            });
        match compiled {
            Ok((_, None)) => outln!("{}: ok (partial spec: a base to extend)", path.display()),
            Ok((_, Some(plan))) => {
                outln!("{}: ok ({} points)", path.display(), plan.points.len());
                specs::warn_missing_targets(&plan);
            }
            Err(d) => {
                specs::report(&d);
                code = exit::BAD_SPEC;
            }
        }
    }
    code
}
