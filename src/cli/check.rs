//! `rigel check`: validates specs (load, types, compile) without touching storage.

use super::args::CheckArgs;
use super::exit;
use super::outln;
use super::specs;
use crate::spec::SpecInput;

pub fn run(a: &CheckArgs) -> i32 {
    let mut code = exit::OK;
    for path in &a.specs {
        if let Ok(loaded) = crate::spec::load(SpecInput::File(path), &a.spec.set, specs::cores())
            && loaded.spec.partial
        {
            outln!("{}: ok (partial spec: a base to extend)", path.display());
            continue;
        }
        match specs::compile(SpecInput::File(path), &a.spec.set) {
            Ok((_, plan)) => outln!("{}: ok ({} points)", path.display(), plan.points.len()),
            Err(d) => {
                specs::report(&d);
                code = exit::BAD_SPEC;
            }
        }
    }
    code
}
