//! One rank's part of a fleet run, around the library's run loop: before it, the fleet's size is
//! recorded and the common schedule agreed (the job then runs exactly the schedule's points, each
//! in its slot); after it, the rank marks itself done and rank 0 waits for the others to merge.
//!
//! A resumed fleet works the same way: every rank is started again with `--resume`, rank 0
//! schedules the points any rank lacks or whose windows came apart, and every rank measures them
//! again together from a fresh T0. A rank resumed alone gets no schedule: its points could not
//! overlap the others' windows, so they would stay partial.

use super::{
    Agreed, FleetError, Preconditioned, Rank, StartRule, agree, mark_done, wait_done, write_ranks,
};
use rigel_runner::{Job, Starts};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// After the schedule's last point, how long rank 0 waits by default for the other ranks'
/// folders to finish (`--finish-grace`).
pub const FINISH_GRACE: Duration = Duration::from_secs(10);

/// A rank's job on the fleet's schedule.
pub struct Joined {
    pub job: Job,
    pub starts: Starts,
    pub agreed: Agreed,
    /// With a `[precondition]` (and a shared fleet folder): the ranks meet after their fills,
    /// and the points' schedule starts again from a T0 after the slowest (the runner's
    /// `Options::barrier`). With `--start-at` there is no folder to meet in: the fills run before
    /// the given time.
    pub barrier: Option<Arc<Preconditioned>>,
}

/// Records the fleet's size and agrees the schedule for `rank`'s `job` (fresh or resumed). With
/// `keep_failed` (`--skip-failed`) the rank does not ask for its failed points again, as a single
/// run keeps them; another rank lacking the point still gets it measured again by all.
pub fn join(
    fleet: &Path,
    rank: &Rank,
    job: Job,
    rule: StartRule,
    keep_failed: bool,
) -> Result<Joined, FleetError> {
    write_ranks(fleet, rank.ranks)?;
    let mut agreed = agree(fleet, rank, job.plan(), job.missing(keep_failed), rule)?;
    let job = job.scheduled(&agreed.points);
    // A drain ends when its own volume's bucket runs out, on each host at another time: the
    // first point waits for the slowest, its limit, and every rank drains until then (idle, a
    // drained bucket would refill and the first point measure credit again).
    agreed.drain = match &job.plan().drain {
        Some(d) if job.drains() => Duration::from_millis(d.limit_ms) + super::SETUP_GAP,
        _ => Duration::ZERO,
    };
    let barrier = match rule {
        StartRule::Shared if job.plan().precondition.is_some() => Some(Preconditioned::new(
            fleet,
            rank.rank,
            agreed.ready.clone(),
            (agreed.t0 - super::MARGIN, agreed.t0),
        )),
        _ => None,
    };
    Ok(Joined {
        job,
        barrier,
        starts: Starts {
            t0: agreed.t0,
            slot: agreed.slot,
            drain: agreed.drain,
        },
        agreed,
    })
}

/// After `rank` ran its part: marks it done; rank 0, when it is to merge, then waits for the other
/// ranks it scheduled (until the schedule's end and `grace`, [`FINISH_GRACE`] unless the user
/// says; from the T0 the ranks met at after their fills when they did). The ranks that did not
/// finish in time.
pub fn leave(
    fleet: &Path,
    rank: &Rank,
    (agreed, barrier): (&Agreed, Option<&Preconditioned>),
    to_merge: bool,
    grace: Duration,
) -> Result<Vec<u32>, FleetError> {
    mark_done(fleet, rank.rank)?;
    if rank.rank != 0 || !to_merge {
        return Ok(Vec::new());
    }
    let t0 = barrier.and_then(Preconditioned::met).unwrap_or(agreed.t0);
    let until = t0 + agreed.drain + agreed.slot * agreed.points.len() as u32 + grace;
    let others: Vec<u32> = agreed.ready.iter().copied().filter(|r| *r != 0).collect();
    Ok(wait_done(fleet, &others, agreed.t0 - super::MARGIN, until))
}
