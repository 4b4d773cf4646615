//! What `rigel check` says of a spec, as one function that the binary (`check`, `plan`, `run`,
//! a fleet's ranks), the spec fuzz target and the tests all call: load → a partial spec told
//! apart → compile → the requirements' selectors against the plan → diagnostics.

use super::model::RunPlan;
use super::{compile, selectors};
use rigel_spec::{self as spec, Builtins, Diagnostics, LoadedSpec, Override, SpecError, SpecInput};

/// A spec that checks: loaded, and its plan unless it is partial.
pub struct Checked {
    pub loaded: LoadedSpec,
    /// The plan; none for a partial spec (`partial = true`, a base to extend), which loads and
    /// has nothing to run alone.
    pub plan: Option<RunPlan>,
}

impl Checked {
    /// The spec and its plan, refusing a partial spec: what `plan` and `run` need.
    pub fn runnable(self) -> Result<(LoadedSpec, RunPlan), Diagnostics> {
        let Checked { loaded, plan } = self;
        match plan {
            Some(plan) => Ok((loaded, plan)),
            None => {
                let e = SpecError::whole(format!(
                    "`{}` is a partial spec (a base to extend), not a runnable one",
                    loaded.spec.name
                ))
                .hint(
                    "write a spec with `extends = \"...\"` that adds classes and a matrix, and plan that",
                );
                Err(Diagnostics {
                    sources: loaded.sources,
                    errors: vec![e],
                })
            }
        }
    }
}

/// Loads `input` (with `overrides`, on a machine of `cores`, as the fleet rank `builtins` names)
/// and checks it: see [`check_loaded`].
pub fn check(
    input: SpecInput<'_>,
    overrides: &[Override],
    cores: u64,
    builtins: &Builtins,
) -> Result<Checked, Diagnostics> {
    check_loaded(spec::load_as(input, overrides, cores, builtins)?, cores)
}

/// Checks a spec already loaded: a partial one as such, else compiled and its requirements'
/// selectors held against the plan (one that picks no point would only say NO DATA after the run).
pub fn check_loaded(loaded: LoadedSpec, cores: u64) -> Result<Checked, Diagnostics> {
    if loaded.spec.partial {
        return Ok(Checked { loaded, plan: None });
    }
    let errors = match compile(&loaded.spec, cores) {
        Ok(plan) => {
            let errors = requirement_points(&loaded, &plan);
            if errors.is_empty() {
                return Ok(Checked {
                    loaded,
                    plan: Some(plan),
                });
            }
            errors
        }
        Err(errors) => errors,
    };
    Err(Diagnostics {
        sources: loaded.sources,
        errors,
    })
}

/// Requirements whose selector names no point of the plan, underlined in their keys.
fn requirement_points(loaded: &LoadedSpec, plan: &RunPlan) -> Vec<SpecError> {
    selectors::check_selectors(plan)
        .into_iter()
        .filter_map(|(i, e)| {
            let key = &loaded.spec.expect.get(i)?.key;
            // The key's location holds exactly its text unless escapes or spaces around dots differ.
            let loc = if key.loc.span.len() == key.value.len() {
                key.loc.sub(e.span)
            } else {
                key.loc.clone()
            };
            Some(SpecError::at(&loc, e.message, "this selector").hint_opt(e.hint))
        })
        .collect()
}
