//! Which engine a class gets here: io_uring when the kernel allows it; under `auto` where it
//! refuses, libaio for O_DIRECT (ORION's own engine) else psync, with the refusal as the reason;
//! an explicit `io_uring` refused is today's error.

use super::worker::WorkerOutcome;
use crate::refused::{RingRefused, probe_ring};
use crate::share::ClassShare;
use rigel_plan::{DataPoint, Engine};
use rigel_results::EngineRecord;
use std::sync::OnceLock;

/// Whether io_uring works in this process, found once: a seccomp filter, the sysctl or the kernel
/// do not change while rigel runs, and a probe per point would set up a ring per point.
fn ring_refusal() -> Option<&'static RingRefused> {
    static PROBE: OnceLock<Option<RingRefused>> = OnceLock::new();
    PROBE.get_or_init(|| probe_ring().err()).as_ref()
}

/// The concrete engine for a class asking for `requested`, its I/O O_DIRECT when `direct`, and
/// why `auto` did not get io_uring (the refusal in a sentence: the caller says it once per run).
/// `io_uring` asked and refused is the refusal itself (`rigel run` stops with it, as before).
pub fn resolve_engine(
    requested: Engine,
    direct: bool,
) -> Result<(Engine, Option<String>), RingRefused> {
    match requested {
        Engine::Libaio | Engine::Psync => Ok((requested, None)),
        // Refused: probed again for the error to return (the cached one is the run's).
        Engine::IoUring => match ring_refusal() {
            None => Ok((Engine::IoUring, None)),
            Some(_) => probe_ring().map(|()| (Engine::IoUring, None)),
        },
        Engine::Auto => Ok(match ring_refusal() {
            None => (Engine::IoUring, None),
            Some(refusal) => {
                let fallback = if direct {
                    Engine::Libaio
                } else {
                    Engine::Psync
                };
                (fallback, Some(fallback_reason(refusal, fallback)))
            }
        }),
    }
}

/// The sentence `auto` gives for falling back from io_uring to `to`.
fn fallback_reason(refusal: &RingRefused, to: Engine) -> String {
    format!("{refusal}; engine = \"auto\" uses {to} instead")
}

/// Each point class's engine (index = position in `DataPoint::classes`) and why `auto` fell
/// back, if it did; an idle class gets its resolution too (it costs nothing: the probe is once).
pub(crate) fn class_engines(
    point: &DataPoint,
    direct: bool,
) -> Result<Vec<(Engine, Option<String>)>, RingRefused> {
    point
        .classes
        .iter()
        .map(|c| resolve_engine(c.engine, direct))
        .collect()
}

/// The workers' shares, each worker's classes on one engine: a worker whose classes got different
/// engines becomes one worker per engine (a loop runs one engine; classes of a point rarely
/// differ, and a worker more is the simplest correct answer). Worker order is kept.
pub(crate) fn by_engine(
    shares: Vec<Vec<ClassShare>>,
    engines: &[(Engine, Option<String>)],
) -> Vec<(Engine, Vec<ClassShare>)> {
    let mut workers: Vec<(Engine, Vec<ClassShare>)> = Vec::with_capacity(shares.len());
    for share in shares {
        let first = workers.len();
        for s in share {
            let e = engines[s.class].0;
            match workers[first..].iter_mut().find(|(we, _)| *we == e) {
                Some((_, w)) => w.push(s),
                None => workers.push((e, vec![s])),
            }
        }
    }
    workers
}

/// One record per active class: the engine that ran it, what was asked, why `auto` fell back,
/// and the options of the first worker that served it.
pub(crate) fn records(
    point: &DataPoint,
    engines: &[(Engine, Option<String>)],
    outcomes: &[WorkerOutcome],
) -> Vec<EngineRecord> {
    point
        .classes
        .iter()
        .enumerate()
        .filter_map(|(c, load)| {
            let o = outcomes
                .iter()
                .find(|o| o.recorders.iter().any(|(k, _)| *k == c))?;
            let fallback = &engines[c].1;
            Some(EngineRecord {
                class: load.class.clone(),
                name: o.engine.to_owned(),
                requested: load.engine.name().to_owned(),
                fallback: fallback.clone(),
                options: o.engine_options.clone(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[serial_test::parallel]
    fn explicit_engines_are_kept_and_auto_takes_io_uring_where_allowed() {
        assert_eq!(
            resolve_engine(Engine::Psync, true).ok(),
            Some((Engine::Psync, None))
        );
        assert_eq!(
            resolve_engine(Engine::Libaio, false).ok(),
            Some((Engine::Libaio, None))
        );
        // This host allows io_uring (the executor's other tests need it too).
        assert_eq!(
            resolve_engine(Engine::Auto, true).ok(),
            Some((Engine::IoUring, None))
        );
        assert_eq!(
            resolve_engine(Engine::IoUring, false).ok(),
            Some((Engine::IoUring, None))
        );
    }

    fn share(class: usize) -> ClassShare {
        ClassShare {
            class,
            random: 1,
            streams: Vec::new(),
            per_stream: 1,
        }
    }

    #[test]
    #[serial_test::parallel]
    fn a_worker_of_two_engines_becomes_two_workers_in_order() {
        let engines = [
            (Engine::IoUring, None),
            (Engine::Psync, None),
            (Engine::IoUring, None),
        ];
        let shares = vec![vec![share(0), share(1), share(2)], vec![share(0)]];
        let got: Vec<(Engine, Vec<usize>)> = by_engine(shares, &engines)
            .into_iter()
            .map(|(e, s)| (e, s.iter().map(|s| s.class).collect()))
            .collect();
        assert_eq!(
            got,
            vec![
                (Engine::IoUring, vec![0, 2]),
                (Engine::Psync, vec![1]),
                (Engine::IoUring, vec![0]),
            ]
        );
    }

    #[test]
    #[serial_test::parallel]
    fn the_fallback_names_the_refusal_and_the_engine_taken() {
        let refusal = crate::refused::refused(std::io::Error::from_raw_os_error(libc::EPERM));
        let reason = fallback_reason(&refusal, Engine::Libaio);
        assert!(reason.contains("seccomp"), "{reason}");
        assert!(reason.ends_with("uses libaio instead"), "{reason}");
    }
}
