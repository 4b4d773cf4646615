//! Agreeing on one schedule through the fleet folder on a shared filesystem: each rank writes a
//! ready file, rank 0 waits for them and publishes T0 a margin ahead with the points to run; or
//! every rank is given the same `--start-at` time. No daemon, no ports.

use super::plan_diff::{comparable, first_difference};
use super::{FleetError, Rank, meta_dir, read_json, write_json};
use rigel_plan::RunPlan;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Time between one point's measured end and the next point's start, for the setup around it
/// (recording the point, spawning the workers, filling the queues): the runner's `WINDOW_LEAD`
/// (250 ms) before each window comes out of it.
pub const SETUP_GAP: Duration = Duration::from_secs(1);
/// How far ahead of its publication rank 0 puts T0, so every rank has read it by then.
pub const MARGIN: Duration = Duration::from_secs(2);
/// How long rank 0 waits for the others to be ready before starting with those that are.
pub const READY_WAIT: Duration = Duration::from_secs(120);
const POLL: Duration = Duration::from_millis(50);

/// How the fleet agrees on T0.
#[derive(Clone, Copy, Debug)]
pub enum StartRule {
    /// Through ready files and rank 0's schedule in the fleet folder (a shared filesystem).
    Shared,
    /// Every rank was given this time; each runs its own missing points (with no shared folder
    /// the ranks cannot agree what to redo: a point one rank resumes alone stays partial).
    At(SystemTime),
}

/// The schedule every rank follows.
#[derive(Clone, Debug, PartialEq)]
pub struct Agreed {
    pub t0: SystemTime,
    pub slot: Duration,
    /// The points every rank runs, in plan order (a resumed fleet redoes what any rank lacks).
    pub points: Vec<u32>,
    /// Ranks that were ready when rank 0 published (all of them with `--start-at`).
    pub ready: Vec<u32>,
    /// The time reserved from T0 for a `[drain]` before the first point (zero without one):
    /// every rank drains from T0 until the first point's agreed start ([`super::join`]).
    pub drain: Duration,
}

#[derive(Debug, Serialize, Deserialize)]
struct Ready {
    rank: u32,
    hostname: String,
    pid: u32,
    written_ns: u64,
    /// The points this rank has not finished.
    missing: Vec<u32>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Schedule {
    published_ns: u64,
    t0_ns: u64,
    slot_ns: u64,
    points: Vec<u32>,
    /// The ready files it answers: (rank, written_ns).
    ready: Vec<(u32, u64)>,
}

/// Ns since the Unix epoch.
pub fn unix_ns(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

pub(crate) fn from_ns(ns: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_nanos(ns)
}

/// One slot of the schedule: a point's warmup and measured time, and the setup gap.
pub fn slot(plan: &RunPlan) -> Duration {
    Duration::from_millis(plan.run.warmup_ms + plan.run.duration_ms) + SETUP_GAP
}

fn ready_path(fleet: &Path, rank: u32) -> PathBuf {
    meta_dir(fleet).join(format!("ready-{rank:04}.json"))
}

fn schedule_path(fleet: &Path) -> PathBuf {
    meta_dir(fleet).join("schedule.json")
}

fn plan_path(fleet: &Path) -> PathBuf {
    meta_dir(fleet).join("plan.json")
}

/// Agrees the schedule for `rank`, which has `missing` points of `plan` left to run. A rank whose
/// plan differs from rank 0's refuses, naming the difference.
pub fn agree(
    fleet: &Path,
    rank: &Rank,
    plan: &RunPlan,
    missing: Vec<u32>,
    rule: StartRule,
) -> Result<Agreed, FleetError> {
    if let StartRule::At(t0) = rule {
        return Ok(Agreed {
            t0,
            slot: slot(plan),
            points: missing,
            ready: (0..rank.ranks).collect(),
            drain: Duration::ZERO,
        });
    }
    super::open_meta(fleet)?;
    let stale_before = if rank.rank == 0 {
        // Ready files older than the last schedule belong to an earlier launch of this fleet.
        let old = read_json::<Schedule>(&schedule_path(fleet)).ok();
        write_json(&plan_path(fleet), &comparable(plan))?;
        old.map_or(0, |s| s.published_ns)
    } else {
        0
    };
    let me = Ready {
        rank: rank.rank,
        hostname: rigel_spec::hostname(),
        pid: std::process::id(),
        written_ns: unix_ns(SystemTime::now()),
        missing,
    };
    write_json(&ready_path(fleet, rank.rank), &me)?;
    if rank.rank == 0 {
        publish(fleet, rank.ranks, plan, stale_before)?;
    }
    let schedule = wait_schedule(fleet, &me)?;
    if rank.rank != 0 {
        let theirs: serde_json::Value = read_json(&plan_path(fleet))?;
        if let Some(difference) = first_difference(&comparable(plan), &theirs) {
            return Err(FleetError::PlanDiffers {
                rank: rank.rank,
                difference,
            });
        }
    }
    Ok(Agreed {
        t0: from_ns(schedule.t0_ns),
        slot: Duration::from_nanos(schedule.slot_ns),
        points: schedule.points,
        ready: schedule.ready.iter().map(|(r, _)| *r).collect(),
        drain: Duration::ZERO,
    })
}

/// Rank 0: waits for every rank's ready file (up to [`READY_WAIT`]), then publishes T0 and the
/// points to run: those any ready rank lacks, and those whose ranks' windows came apart (a resumed
/// fleet measures both again on every host together, on this new schedule; a point is only
/// complete when all ranks ran it in one common window).
fn publish(fleet: &Path, ranks: u32, plan: &RunPlan, stale_before: u64) -> Result<(), FleetError> {
    let deadline = SystemTime::now() + READY_WAIT;
    let ready: Vec<Ready> = loop {
        let ready: Vec<Ready> = (0..ranks)
            .filter_map(|r| read_json::<Ready>(&ready_path(fleet, r)).ok())
            .filter(|r| r.written_ns > stale_before)
            .collect();
        if ready.len() as u32 == ranks || SystemTime::now() > deadline {
            break ready;
        }
        std::thread::sleep(POLL);
    };
    let mut lacking: BTreeSet<u32> = ready
        .iter()
        .flat_map(|r| r.missing.iter().copied())
        .collect();
    lacking.extend(super::overlap::apart(fleet, ranks, plan)?);
    let points = plan
        .points
        .iter()
        .map(|p| p.id)
        .filter(|id| lacking.contains(id))
        .collect();
    let now = SystemTime::now();
    let schedule = Schedule {
        published_ns: unix_ns(now),
        t0_ns: unix_ns(now + MARGIN),
        slot_ns: slot(plan).as_nanos() as u64,
        points,
        ready: ready.iter().map(|r| (r.rank, r.written_ns)).collect(),
    };
    write_json(&schedule_path(fleet), &schedule)
}

/// Waits for the schedule that answers `me` (or, for a rank later than rank 0's wait, one published
/// after it was ready).
fn wait_schedule(fleet: &Path, me: &Ready) -> Result<Schedule, FleetError> {
    let deadline = SystemTime::now() + READY_WAIT + MARGIN * 5;
    loop {
        if let Ok(s) = read_json::<Schedule>(&schedule_path(fleet))
            && (s.ready.contains(&(me.rank, me.written_ns)) || s.published_ns > me.written_ns)
        {
            return Ok(s);
        }
        if SystemTime::now() > deadline {
            return Err(FleetError::NoSchedule {
                path: schedule_path(fleet),
                waited: READY_WAIT + MARGIN * 5,
            });
        }
        std::thread::sleep(POLL);
    }
}

/// Marks `rank` finished (rank 0 merges once every rank is, or the schedule plus a grace is over).
pub fn mark_done(fleet: &Path, rank: u32) -> Result<(), FleetError> {
    let path = meta_dir(fleet).join(format!("done-{rank:04}.json"));
    write_json(&path, &unix_ns(SystemTime::now()))
}

/// Rank 0: waits until every rank in `ranks` has marked itself done after `since`, or `until`.
pub fn wait_done(fleet: &Path, ranks: &[u32], since: SystemTime, until: SystemTime) -> Vec<u32> {
    let since = unix_ns(since);
    loop {
        let pending: Vec<u32> = ranks
            .iter()
            .copied()
            .filter(|r| {
                let path = meta_dir(fleet).join(format!("done-{r:04}.json"));
                read_json::<u64>(&path).map_or(true, |at| at < since)
            })
            .collect();
        if pending.is_empty() || SystemTime::now() > until {
            return pending;
        }
        std::thread::sleep(POLL * 4);
    }
}
