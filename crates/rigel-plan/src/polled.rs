//! `[run] polled`: io_uring's polled completions (IORING_SETUP_IOPOLL, fio's `hipri`), checked
//! where written: O_DIRECT on io_uring only, no flushes (a polled ring refuses them), not beside
//! sqpoll (not built). Whether the targets' devices have poll queues is the host's to say
//! (rigel-target, at `check`, `plan` and `run`).

use super::model::IoClass;
use rigel_spec::{Engine, Spec, SpecError};

/// Whether the run polls; each reason it cannot goes to `errors` at the `polled` key.
/// `zones = "sequential"`: whether asked; verification beside it is refused (its writes claim
/// blocks anywhere, where a zone takes them only at its write pointer).
pub(crate) fn zones(spec: &Spec, errors: &mut Vec<SpecError>) -> bool {
    let Some(z) = spec.run.zones.as_ref().filter(|z| z.value) else {
        return false;
    };
    let verified = spec.run.verify.is_some() || spec.classes.iter().any(|c| c.verify.is_some());
    if verified {
        errors.push(
            SpecError::at(
                &z.loc,
                "zones = \"sequential\" beside verify is not built: a verified write claims its \
                 blocks anywhere, a zone takes writes only at its write pointer",
                "zoned writes",
            )
            .hint("remove verify, or zones"),
        );
    }
    true
}

pub(crate) fn polled(spec: &Spec, classes: &[IoClass], errors: &mut Vec<SpecError>) -> bool {
    let Some(p) = spec.run.polled.as_ref().filter(|p| p.value) else {
        return false;
    };
    let mut refuse = |message: String, hint: &str| {
        errors.push(SpecError::at(&p.loc, message, "polled completions").hint(hint));
    };
    if !spec.run.direct {
        refuse(
            "polled completions need O_DIRECT: buffered I/O is served by the page cache, with \
             nothing for the ring to poll"
                .into(),
            "set direct = true in [run]",
        );
    }
    if spec.run.sqpoll.as_ref().is_some_and(|s| s.value) {
        refuse(
            "polled completions beside sqpoll are not built: choose one".into(),
            "remove sqpoll, or polled",
        );
    }
    for c in classes {
        if !matches!(c.engine, Engine::IoUring | Engine::Auto) {
            refuse(
                format!(
                    "polled is an io_uring option, and class `{}` runs on {}",
                    c.name, c.engine
                ),
                "set engine = \"io_uring\" (or \"auto\"), or remove polled",
            );
        }
        if c.pattern.flush.is_some() {
            refuse(
                format!(
                    "class `{}` flushes (its durability), and a flush cannot be polled: a polled \
                     ring refuses it",
                    c.name
                ),
                "durability = \"dsync\" writes are polled like any write; or set polled = false",
            );
        }
        if c.mix.trims() {
            refuse(
                format!(
                    "class `{}` trims, and a discard cannot be polled: a polled ring refuses it",
                    c.name
                ),
                "take the trims out of this class's mix, or set polled = false",
            );
        }
    }
    true
}
