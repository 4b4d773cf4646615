//! Which engine cannot serve which run, said once for the spec's `engine` and for `--engine`:
//! libaio without O_DIRECT, and psync asked to keep more I/Os in flight on one worker than it
//! starts threads for.

use super::limits::{Breach, MAX_PSYNC_THREADS, worker_in_flight};
use super::model::{DataPoint, RunPlan, RunSettings};
use rigel_spec::Engine;

/// Why `engine` cannot serve a run (`direct`: O_DIRECT), with the fix: libaio is asynchronous only
/// with O_DIRECT (buffered I/O blocks in `io_submit`), so the engine refuses buffered targets.
pub(crate) fn engine_refusal(engine: Engine, direct: bool) -> Option<(String, &'static str)> {
    (engine == Engine::Libaio && !direct).then(|| {
        (
            "libaio needs O_DIRECT: buffered I/O blocks in io_submit, so its queue depth would \
             be one"
                .to_owned(),
            "set direct = true in [run], or engine = \"psync\" (or \"auto\") for buffered I/O",
        )
    })
}

/// A point whose `engine = "psync"` classes would hold more I/Os in flight on one worker than
/// the psync engine starts threads for (one per I/O, [`MAX_PSYNC_THREADS`]): the first such
/// class and the breach, with the fix. Counted as the executor deals the load out to workers.
pub(crate) fn psync_threads(p: &DataPoint, run: &RunSettings) -> Option<(String, Breach)> {
    let psync = |c: &super::model::ClassLoad| c.engine == Engine::Psync;
    let first = p.active().find(|c| psync(c))?;
    let threads = worker_in_flight(p, run, psync);
    if threads <= MAX_PSYNC_THREADS {
        return None;
    }
    let workers = u64::from(run.workers).max(1);
    Some((
        first.class.clone(),
        Breach {
            message: format!(
                "class `{}` would keep {threads} I/Os in flight on one worker with engine = \
                 \"psync\", which runs one thread per I/O in flight, at most {MAX_PSYNC_THREADS}",
                first.class
            ),
            label: "engine = \"psync\"",
            hint: format!(
                "use the libaio or io_uring engine for this depth, lower the load, or add workers \
                 ([run] workers = {})",
                threads.div_ceil(MAX_PSYNC_THREADS) * workers
            ),
        },
    ))
}

impl RunPlan {
    /// `--engine NAME`: every class takes this engine, whatever the spec asked; an engine that
    /// cannot serve the run is an error of the spec as a whole.
    pub fn force_engine(&mut self, engine: Engine) -> Result<(), rigel_spec::SpecError> {
        if let Some((message, hint)) = engine_refusal(engine, self.run.direct) {
            return Err(
                rigel_spec::SpecError::whole(format!("--engine {engine}: {message}")).hint(hint),
            );
        }
        let option = if self.run.sqpoll.is_some() {
            Some("sqpoll")
        } else {
            self.run.polled.then_some("polled")
        };
        if let Some(option) = option
            && !matches!(engine, Engine::IoUring | Engine::Auto)
        {
            return Err(rigel_spec::SpecError::whole(format!(
                "--engine {engine}: the spec asks for {option}, an io_uring option"
            ))
            .hint(format!(
                "use --engine io_uring (or auto), or remove {option} from [run]"
            )));
        }
        for c in &mut self.classes {
            c.engine = engine;
        }
        let search = self.search.iter_mut().map(|s| &mut s.template);
        for p in self.points.iter_mut().chain(search) {
            for c in &mut p.classes {
                c.engine = engine;
            }
        }
        let trials = self.search.as_ref().map(|s| s.point(1, s.high));
        let points = self.points.iter().chain(trials.as_ref());
        if let Some((_, b)) = points.into_iter().find_map(|p| psync_threads(p, &self.run)) {
            let hint = b.hint.replace("engine = ", "--engine ");
            return Err(
                rigel_spec::SpecError::whole(format!("--engine {engine}: {}", b.message))
                    .hint(hint),
            );
        }
        Ok(())
    }
}
