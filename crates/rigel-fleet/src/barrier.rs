//! The fleet's second meeting, after `[precondition]`: a fill (or read-through) takes each host
//! its own time, so each rank says in the fleet folder when its fill ended, rank 0 waits for every
//! scheduled rank and answers with a T0 a margin after the slowest (the other ranks read only its
//! answer), and the points' schedule starts again from it. A rank whose fill failed says so, and
//! no rank measures (every point would be partial); a rank that stops giving signs of life while
//! it fills (its host died) counts as failed.

use super::rendezvous::from_ns;
use super::{FleetError, MARGIN, meta_dir, read_json, unix_ns, write_json};
use rigel_runner::Barrier;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// How often a filling rank says it is alive (`alive-NNNN.json`).
const HEARTBEAT: Duration = Duration::from_secs(5);
/// A rank not heard of for this long while it fills has died (a fill has no bound of its own).
const SILENT: Duration = Duration::from_secs(60);
const POLL: Duration = Duration::from_millis(50);
/// Signs of life are read every this many polls (once a second).
const SILENCE_EVERY: u64 = 20;

/// One rank's end of its precondition, as `fleet/preconditioned-NNNN.json` records it.
#[derive(Debug, Serialize, Deserialize)]
struct Arrival {
    rank: u32,
    /// When the fill ended (or the rank arrived without one), ns since the Unix epoch.
    ended_ns: u64,
    /// Whether this rank filled (a resumed rank with points does not).
    filled: bool,
    /// Why its fill failed.
    failed: Option<String>,
}

/// Rank 0's answer, `fleet/preconditioned.json`: the T0 every rank's points start from, or why
/// none measures.
#[derive(Debug, Serialize, Deserialize)]
struct Met {
    /// The schedule it answers (its publication, ns since the Unix epoch).
    since_ns: u64,
    t0_ns: u64,
    refused: Option<String>,
}

/// A rank's side of the meeting: it says it is alive until it arrives.
#[derive(Debug)]
pub struct Preconditioned {
    fleet: PathBuf,
    rank: u32,
    /// The ranks the schedule answered: the ones to wait for.
    ranks: Vec<u32>,
    /// Files written before this launch's schedule are an earlier launch's.
    since_ns: u64,
    /// The schedule's T0, kept when no rank filled.
    t0: SystemTime,
    /// The T0 the meeting agreed, once it has.
    met: Mutex<Option<SystemTime>>,
    arrived: Arc<AtomicBool>,
}

impl Preconditioned {
    /// `rank`'s side of the meeting of `ranks`, for the schedule published at `published`.
    pub fn new(
        fleet: &Path,
        rank: u32,
        ranks: Vec<u32>,
        (published, t0): (SystemTime, SystemTime),
    ) -> Arc<Preconditioned> {
        let me = Arc::new(Preconditioned {
            fleet: fleet.to_path_buf(),
            rank,
            ranks,
            since_ns: unix_ns(published),
            t0,
            met: Mutex::new(None),
            arrived: Arc::new(AtomicBool::new(false)),
        });
        let (path, arrived) = (alive_path(fleet, rank), Arc::clone(&me.arrived));
        std::thread::spawn(move || {
            while !arrived.load(Ordering::Relaxed) {
                // A heartbeat that cannot be written shows as silence: the others stop waiting.
                let _ = write_json(&path, &unix_ns(SystemTime::now()));
                let next = SystemTime::now() + HEARTBEAT;
                while SystemTime::now() < next && !arrived.load(Ordering::Relaxed) {
                    std::thread::sleep(POLL * 2);
                }
            }
        });
        me
    }

    /// The T0 the meeting agreed (none before it, or when it failed).
    pub fn met(&self) -> Option<SystemTime> {
        *self.met.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Rank 0: waits for every rank's arrival (a rank silent too long counts as failed); the T0
    /// after the slowest fill, or why no rank measures.
    fn collect(&self, stop: &AtomicBool) -> Result<SystemTime, String> {
        let mut arrivals: Vec<Option<Arrival>> = self.ranks.iter().map(|_| None).collect();
        let mut polls = 0u64;
        loop {
            for (slot, &r) in arrivals.iter_mut().zip(&self.ranks) {
                if slot.is_none() {
                    *slot = read_json::<Arrival>(&arrival_path(&self.fleet, r))
                        .ok()
                        .filter(|a| a.ended_ns >= self.since_ns);
                }
            }
            if let Some(a) = arrivals.iter().flatten().find(|a| a.failed.is_some()) {
                return Err(refusal(a.rank, a.failed.as_deref().unwrap_or_default()));
            }
            if arrivals.iter().all(Option::is_some) {
                let filled = arrivals.iter().flatten().filter(|a| a.filled);
                return Ok(match filled.map(|a| a.ended_ns).max() {
                    Some(ns) => (from_ns(ns) + MARGIN).max(self.t0),
                    None => self.t0,
                });
            }
            if stop.load(Ordering::Relaxed) {
                return Err(refusal(0, "interrupted"));
            }
            // Signs of life are read once a second: thousands of ranks' files every poll would
            // load a shared filesystem for nothing.
            polls += 1;
            if polls % SILENCE_EVERY == 0 {
                let waiting = arrivals
                    .iter()
                    .zip(&self.ranks)
                    .filter(|(a, _)| a.is_none());
                for (_, &r) in waiting {
                    self.alive(r)?;
                }
            }
            std::thread::sleep(POLL);
        }
    }

    /// Every rank: waits for rank 0's answer to this launch (rank 0 silent too long: its fill or
    /// its host died).
    fn answer(&self, stop: &AtomicBool) -> Result<SystemTime, String> {
        let mut polls = 0u64;
        loop {
            if let Ok(m) = read_json::<Met>(&met_path(&self.fleet))
                && m.since_ns == self.since_ns
            {
                return match m.refused {
                    Some(why) => Err(why),
                    None => Ok(from_ns(m.t0_ns)),
                };
            }
            if stop.load(Ordering::Relaxed) {
                return Err("interrupted".to_owned());
            }
            polls += 1;
            if polls % SILENCE_EVERY == 0 {
                self.alive(0)?;
            }
            std::thread::sleep(POLL);
        }
    }

    /// Whether `rank` (not arrived yet) still gives signs of life: why it counts as failed when
    /// it has been silent too long.
    fn alive(&self, rank: u32) -> Result<(), String> {
        let heard = read_json::<u64>(&alive_path(&self.fleet, rank)).unwrap_or(0);
        let silent = unix_ns(SystemTime::now()).saturating_sub(heard.max(self.since_ns));
        if silent <= SILENT.as_nanos() as u64 {
            return Ok(());
        }
        let why = format!(
            "no sign of life for {} s during its precondition (its host or rigel died?)",
            silent / 1_000_000_000
        );
        Err(refusal(rank, &why))
    }

    /// Rank 0: publishes the meeting's answer (its heartbeat stops then: the others wait on it
    /// until this is written).
    fn publish(&self, answer: &Result<SystemTime, String>) -> Result<(), String> {
        let met = Met {
            since_ns: self.since_ns,
            t0_ns: answer.as_ref().map_or(0, |t| unix_ns(*t)),
            refused: answer.as_ref().err().cloned(),
        };
        let written = write_json(&met_path(&self.fleet), &met);
        self.arrived.store(true, Ordering::Relaxed);
        written.map_err(|e: FleetError| format!("rank 0: {e}"))
    }
}

impl Barrier for Preconditioned {
    fn preconditioned(
        &self,
        ended: Result<bool, String>,
        stop: &AtomicBool,
    ) -> Result<SystemTime, String> {
        let (filled, failed) = match ended {
            Ok(filled) => (filled, None),
            Err(why) => (false, Some(why)),
        };
        let arrival = Arrival {
            rank: self.rank,
            ended_ns: unix_ns(SystemTime::now()),
            filled,
            failed,
        };
        let written = write_json(&arrival_path(&self.fleet, self.rank), &arrival);
        // Rank 0 keeps its heartbeat until it has answered.
        if self.rank != 0 {
            self.arrived.store(true, Ordering::Relaxed);
        }
        written.map_err(|e: FleetError| format!("rank {}: {e}", self.rank))?;
        let t0 = if self.rank == 0 {
            let answer = match &arrival.failed {
                Some(why) => Err(refusal(0, why)),
                None => self.collect(stop),
            };
            self.publish(&answer)?;
            answer?
        } else if let Some(why) = &arrival.failed {
            return Err(refusal(self.rank, why));
        } else {
            self.answer(stop)?
        };
        *self.met.lock().unwrap_or_else(|e| e.into_inner()) = Some(t0);
        Ok(t0)
    }
}

impl Drop for Preconditioned {
    fn drop(&mut self) {
        self.arrived.store(true, Ordering::Relaxed);
    }
}

/// What every rank says when `rank`'s fill failed.
fn refusal(rank: u32, why: &str) -> String {
    format!(
        "rank {rank}'s precondition failed ({why}): no rank measures, since every point would \
         be partial without it; fix it and start every rank again (`rigel run --resume` on the \
         fleet folder fills again where a rank has no point)"
    )
}

fn arrival_path(fleet: &Path, rank: u32) -> PathBuf {
    meta_dir(fleet).join(format!("preconditioned-{rank:04}.json"))
}

fn met_path(fleet: &Path) -> PathBuf {
    meta_dir(fleet).join("preconditioned.json")
}

fn alive_path(fleet: &Path, rank: u32) -> PathBuf {
    meta_dir(fleet).join(format!("alive-{rank:04}.json"))
}

#[cfg(test)]
mod tests {
    //! The silent-rank rule on a schedule published in the past, so that a minute of silence
    //! needs no minute of waiting: the files and the clock are the real ones.
    use super::*;
    use std::time::Instant;

    /// Rank 0's side of the meeting of ranks 0 and 1, for a schedule published `ago` before now.
    fn meeting(dir: &Path, ago: Duration) -> Arc<Preconditioned> {
        std::fs::create_dir_all(meta_dir(dir)).expect("fleet dir");
        let published = SystemTime::now() - ago;
        Preconditioned::new(dir, 0, vec![0, 1], (published, published))
    }

    fn heard(dir: &Path, rank: u32, ago: Duration) {
        let at = unix_ns(SystemTime::now() - ago);
        write_json(&alive_path(dir, rank), &at).expect("alive file");
    }

    #[test]
    fn a_rank_silent_past_a_minute_fails_the_meeting_counted_from_its_schedule() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path();
        // Published 10 s ago, rank 1 not heard from yet: silent since the schedule, not since
        // 1970; it may still be starting.
        let fresh = meeting(dir, Duration::from_secs(10));
        fresh.alive(1).expect("10 s since the schedule");
        fresh.arrived.store(true, Ordering::Relaxed);

        let old = meeting(dir, SILENT + Duration::from_secs(30));
        let err = old.alive(1).expect_err("never heard from in 90 s");
        assert!(
            err.starts_with("rank 1's precondition failed (no sign of life for 90 s"),
            "{err}"
        );
        heard(dir, 1, SILENT - Duration::from_secs(1));
        old.alive(1).expect("heard from 59 s ago");
        heard(dir, 1, SILENT + Duration::from_secs(1));
        let err = old.alive(1).expect_err("heard from 61 s ago");
        assert!(err.contains("no sign of life for 61 s"), "{err}");

        // Rank 0 waiting for the meeting reads signs of life once a second and gives up on the
        // silent rank then, with no arrival of it.
        let start = Instant::now();
        let err = old
            .collect(&AtomicBool::new(false))
            .expect_err("rank 1 silent");
        assert!(err.starts_with("rank 1's precondition failed"), "{err}");
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        old.arrived.store(true, Ordering::Relaxed);
    }
}
