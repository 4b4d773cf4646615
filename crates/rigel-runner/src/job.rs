//! What a run works from: a fresh plan, or a run folder being resumed.

use rigel_plan::{DataPoint, RunPlan};
use rigel_record::{self as record, RecordError, RunHeader};
use rigel_results::{PointResult, PointStatus, Provenance};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A run to do: where it goes, what it runs, and which points are already done.
pub struct Job {
    pub(super) dir: PathBuf,
    pub(super) spec_toml: String,
    pub(super) plan: RunPlan,
    pub(super) header: Option<RunHeader>,
    pub(super) done: Vec<PointResult>,
    /// When a fresh run starts (RFC 3339): its header's `started`, from which ORION's prefix comes.
    pub(super) started: String,
    /// A fleet's schedule: exactly these points run, in this order (the `i`-th in the `i`-th slot
    /// of [`super::Starts`]), even where finished; none: every point not yet done.
    pub(super) schedule: Option<Vec<u32>>,
    /// `dir` is a name rigel picked: a folder that exists makes it `dir.2`, `dir.3`, …
    pub(super) unique: bool,
    /// Where a fresh run came from, for its header (a resumed run keeps its own).
    pub(super) provenance: Option<Provenance>,
}

impl Job {
    /// A fresh run of `plan` into the run folder `dir`.
    pub fn fresh(dir: PathBuf, spec_toml: String, plan: RunPlan, started: String) -> Job {
        Job {
            dir,
            spec_toml,
            plan,
            header: None,
            done: Vec::new(),
            started,
            schedule: None,
            unique: false,
            provenance: None,
        }
    }

    /// This run's folder is a name rigel picked (`runs/NAME-DATE`): where it exists already
    /// (another run of the spec started in the same second), the run takes `NAME-DATE.2`, ….
    pub fn with_unique_dir(mut self) -> Job {
        self.unique = true;
        self
    }

    /// The fresh run's provenance (its spec's digest and commit, who ran it), kept in its header.
    pub fn with_provenance(mut self, provenance: Provenance) -> Job {
        self.provenance = Some(provenance);
        self
    }

    /// The rest of the interrupted run in `dir`: its own spec and plan, only the missing points.
    pub fn resume(dir: &Path) -> Result<Job, RecordError> {
        // The same reading as `rigel report` of the unfinished folder: what one reads, the other runs.
        let r = record::load_recorded(dir)?;
        Ok(Job {
            dir: dir.to_path_buf(),
            spec_toml: r.spec_toml,
            plan: r.plan,
            header: Some(r.header),
            done: r.points,
            started: String::new(),
            schedule: None,
            unique: false,
            provenance: None,
        })
    }

    /// Points recorded as failed (a resumed job's).
    pub fn failed(&self) -> usize {
        self.done
            .iter()
            .filter(|p| crate::outcome::is_failed(p))
            .count()
    }

    /// The run folder this job writes.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The points of the plan not yet finished without error (all of a fresh job's), in plan order;
    /// with `keep_failed` (`--skip-failed`) a point recorded as failed counts as done.
    pub fn missing(&self, keep_failed: bool) -> Vec<u32> {
        let ok: BTreeSet<u32> = self
            .done
            .iter()
            .filter(|p| keep_failed || matches!(p.status, PointStatus::Ok))
            .map(|p| p.point.id)
            .collect();
        self.plan
            .points
            .iter()
            .map(|p| p.id)
            .filter(|id| !ok.contains(id))
            .collect()
    }

    /// Runs exactly the points `ids`, in this order, even where they finished: a fleet runs its
    /// common schedule on every host together, so a point one host lacks is measured again by all
    /// of them in one window. Of a point finished twice, the later result stands; the points not
    /// in `ids` are left as they are.
    pub fn scheduled(mut self, ids: &[u32]) -> Job {
        self.done.retain(|p| !ids.contains(&p.point.id));
        self.schedule = Some(ids.to_vec());
        self
    }

    /// Whether a `[drain]` runs before the first point: the plan has one and no point is done
    /// (a resumed run drains again only when it has none).
    pub fn drains(&self) -> bool {
        self.plan.drain.is_some() && self.done.is_empty()
    }

    /// The plan this job runs.
    pub fn plan(&self) -> &RunPlan {
        &self.plan
    }
}

/// The points to run, in order: a fleet's schedule as given, else every point not finished (nor
/// failed, unless `skip_failed` keeps those).
pub(super) fn to_do<'p>(
    plan: &'p RunPlan,
    done: &[PointResult],
    skip_failed: bool,
    schedule: Option<&[u32]>,
) -> Vec<&'p DataPoint> {
    if let Some(ids) = schedule {
        return ids
            .iter()
            .filter_map(|id| plan.points.iter().find(|p| p.id == *id))
            .collect();
    }
    let finished: BTreeSet<u32> = done
        .iter()
        .filter(|p| skip_failed || !crate::outcome::is_failed(p))
        .map(|p| p.point.id)
        .collect();
    plan.points
        .iter()
        .filter(|p| !finished.contains(&p.id))
        .collect()
}

/// Now, as run headers record it (RFC 3339, local offset, whole seconds).
pub fn now() -> String {
    chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
}
