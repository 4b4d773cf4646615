//! The exact merge of a fleet folder: per point and class, the ranks' IOPS and MB/s summed and
//! their HDR histograms added; the per-rank figures kept; a point lacking a rank, or whose ranks'
//! windows overlap less than 95%, marked partial. Each rank's `results.jsonl` is indexed once (line
//! offsets, no figures), then the merge goes one point at a time, reading that point's line from
//! every rank on a few threads and keeping only the point's running sums: its memory does not grow
//! with the ranks' figures, only with the small per-rank rows the results keep.

use super::index::RankIndex;
use super::overlap::{MIN_OVERLAP_PCT, Span};
use super::plan_diff::comparable;
use super::ranks::fleet_size;
use super::spill::{SPILL_FILE, Spill};
use super::{FleetError, rank_dir, rank_of};
use rigel_record::{self as record, RecordError, RunHeader};
use rigel_report::{self as report, ReportError, ReportOptions};
use rigel_results::codec::HdrAdder;
use rigel_results::stats::ClassSum;
use rigel_results::stream::LightPoint;
use rigel_results::{
    CpuTime, FleetHost, FleetInfo, FleetPoint, PointResult, PointStatus, RankClass, RankPoint,
    RankRows, ResultsDoc, TargetInfo,
};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error(transparent)]
    Fleet(#[from] FleetError),
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error("`{dir}` holds no rank folders (rank-0000/, rank-0001/, …): is it a fleet folder?")]
    NoRanks { dir: PathBuf },
}

impl MergeError {
    /// A fleet folder whose files say what cannot be: exit 2, as other bad input.
    pub fn is_bad_input(&self) -> bool {
        match self {
            MergeError::Fleet(e) => e.is_bad_input(),
            MergeError::Record(e) => matches!(e, RecordError::Invalid { .. }),
            MergeError::NoRanks { .. } => false,
        }
    }
}

/// One rank's folder as the merge reads it.
struct RankRun {
    rank: u32,
    hostname: String,
    index: RankIndex,
    /// Its targets as the fleet lists them (`host:path`).
    targets: Vec<TargetInfo>,
    excluded: Option<String>,
}

/// Merges the rank folders of `fleet` into the fleet's results document and writes it as
/// `results.json` beside them.
pub fn merge(fleet: &Path) -> Result<ResultsDoc, MergeError> {
    let mut found: Vec<u32> = std::fs::read_dir(fleet)
        .map_err(|source| RecordError::Io {
            action: "read",
            path: fleet.to_path_buf(),
            source,
        })?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| rank_of(&e.file_name().to_string_lossy()))
        .collect();
    found.sort_unstable();
    let Some(&first) = found.first() else {
        return Err(MergeError::NoRanks {
            dir: fleet.to_path_buf(),
        });
    };
    let ranks = fleet_size(fleet, &found)?;
    let (header, spec_toml, plan) = record::load_parts(&rank_dir(fleet, first))?;
    let reference = comparable(&plan);
    let all: Vec<u32> = (0..ranks).collect();
    let runs: Vec<RankRun> = in_parallel(&all, |chunk| {
        chunk
            .iter()
            .map(|&rank| {
                if found.binary_search(&rank).is_ok() {
                    open_rank(rank, &rank_dir(fleet, rank), &reference)
                } else {
                    Ok(RankRun::excluded(
                        rank,
                        "no run folder (the rank never started)".into(),
                    ))
                }
            })
            .collect::<Result<Vec<_>, _>>()
    })
    .into_iter()
    .collect::<Result<Vec<_>, _>>()?
    .into_iter()
    .flatten()
    .collect();
    let mut ok_points = vec![0usize; runs.len()];
    let mut points = Vec::new();
    let mut spill = Spill::create(fleet, SPILL_FILE)?;
    for planned in &plan.points {
        if let Some(mut p) = merge_point(planned.id, &runs, ranks)? {
            if let Some(f) = &mut p.fleet
                && let RankRows::Rows(rows) = &f.per_rank
            {
                for (n, r) in ok_points.iter_mut().zip(rows) {
                    *n += usize::from(r.ok);
                }
                f.per_rank = spill.put(rows)?;
            }
            points.push(p);
        }
    }
    spill.finish()?;
    let hosts: Vec<FleetHost> = runs
        .iter()
        .zip(ok_points)
        .map(|(r, points)| FleetHost {
            rank: r.rank,
            hostname: r.hostname.clone(),
            dir: format!("rank-{:04}", r.rank),
            points,
            excluded: r.excluded.clone(),
        })
        .collect();
    let targets = runs.into_iter().flat_map(|r| r.targets).collect();
    let finished = if points.len() == plan.points.len() {
        rigel_runner::now()
    } else {
        String::new()
    };
    let mut doc = ResultsDoc::new(
        fleet_header(header, &hosts, targets),
        spec_toml,
        plan,
        points,
        finished,
    );
    doc.set_fleet(Some(FleetInfo { ranks, hosts }));
    record::write_results(fleet, &doc)?;
    Ok(doc)
}

/// [`merge`], then the built-in reports into the fleet folder (a report that fails does not undo
/// the merged results).
pub fn merge_and_render(
    fleet: &Path,
) -> Result<(ResultsDoc, Result<Vec<PathBuf>, ReportError>), MergeError> {
    // Shared, so the reports' templates read the document without a copy of every host's rows.
    let doc = std::sync::Arc::new(merge(fleet)?);
    let files = report::render_shared(&doc, &ReportOptions::new(fleet));
    let doc = std::sync::Arc::try_unwrap(doc).unwrap_or_else(|shared| (*shared).clone());
    Ok((doc, files))
}

/// The fleet's header: rank 0's, naming the hosts, with every host's targets (`host:path`), as
/// ORION lists many LUNs.
fn fleet_header(mut header: RunHeader, hosts: &[FleetHost], targets: Vec<TargetInfo>) -> RunHeader {
    let names: Vec<&str> = hosts
        .iter()
        .filter(|h| h.excluded.is_none())
        .map(|h| h.hostname.as_str())
        .collect();
    let mut shown = names.iter().take(4).copied().collect::<Vec<_>>().join(", ");
    if names.len() > 4 {
        shown.push_str(", …");
    }
    header.host.hostname = format!("{} hosts ({shown})", names.len());
    header.targets = targets;
    header
}

impl RankRun {
    fn excluded(rank: u32, why: String) -> RankRun {
        RankRun {
            rank,
            hostname: String::new(),
            index: RankIndex::default(),
            targets: Vec::new(),
            excluded: Some(why),
        }
    }
}

/// Reads a rank's header and plan, checks the plan against the reference and indexes its points.
fn open_rank(rank: u32, dir: &Path, reference: &serde_json::Value) -> Result<RankRun, MergeError> {
    let (header, _, plan) = match record::load_parts(dir) {
        Ok(parts) => parts,
        Err(e) => return Ok(RankRun::excluded(rank, e.to_string())),
    };
    if let Some(d) = super::first_difference(&comparable(&plan), reference) {
        let mut run = RankRun::excluded(
            rank,
            format!("its plan differs from the first rank's at {d}"),
        );
        run.hostname = header.host.hostname;
        return Ok(run);
    }
    let hostname = header.host.hostname;
    Ok(RankRun {
        rank,
        targets: header
            .targets
            .into_iter()
            .map(|t| TargetInfo {
                path: format!("{hostname}:{}", t.path),
                ..t
            })
            .collect(),
        hostname,
        index: RankIndex::read(dir)?,
        excluded: None,
    })
}

/// Runs `f` over `items` cut into one contiguous chunk per core; the chunks' answers in order.
fn in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let size = items.len().div_ceil(threads).max(1);
    if threads == 1 || items.len() <= size {
        return vec![f(items)];
    }
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = items.chunks(size).map(|c| s.spawn(move || f(c))).collect();
        handles
            .into_iter()
            // A panic in a reader is a bug: carry it to the caller as one.
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// One point summed over a run of consecutive ranks.
#[derive(Default)]
struct Part {
    sums: Vec<ClassSum>,
    span: Span,
    cpu: CpuTime,
    elapsed_s: f64,
    /// The first rank with an ok result, and the first with any: whose line describes the merged
    /// point (read in full once, at the end).
    first_ok: Option<u32>,
    first: Option<u32>,
    per_rank: Vec<RankPoint>,
    /// Ranks whose rigel did not run for part of the window: their window is no common one.
    paused: Vec<(u32, rigel_results::Paused)>,
}

impl Part {
    fn over(id: u32, runs: &[RankRun]) -> Result<Part, MergeError> {
        let mut part = Part::default();
        let mut line = Vec::new();
        let mut hdr = HdrAdder::default();
        for run in runs {
            let found = match &run.excluded {
                Some(_) => false,
                None => run.index.read_line(id, &mut line)?,
            };
            if !found {
                part.per_rank.push(RankPoint {
                    rank: run.rank,
                    hostname: run.hostname.clone(),
                    ok: false,
                    error: Some(run.excluded.clone().unwrap_or_else(|| "no result".into())),
                    window: None,
                    classes: Vec::new(),
                });
                continue;
            }
            let p: LightPoint =
                serde_json::from_slice(&line).map_err(|e| run.index.invalid(id, e))?;
            rigel_results::check::light(&p).map_err(|e| run.index.impossible(e))?;
            part.per_rank.push(rank_point(run, &p));
            let ok = matches!(p.status, PointStatus::Ok);
            if ok {
                for c in &p.classes {
                    match part.sums.iter_mut().find(|s| s.name() == c.class) {
                        Some(s) => s.add(c, &mut hdr),
                        None => part.sums.push(ClassSum::new(c, &mut hdr)),
                    }
                }
                part.span.add_opt(p.window);
                part.cpu.user_s += p.cpu.user_s;
                part.cpu.system_s += p.cpu.system_s;
                part.elapsed_s = part.elapsed_s.max(p.elapsed_s);
                part.first_ok.get_or_insert(run.rank);
                if let Some(paused) = p.paused {
                    part.paused.push((run.rank, paused));
                }
            }
            part.first.get_or_insert(run.rank);
        }
        Ok(part)
    }

    /// Adds the part of the ranks after these.
    fn join(&mut self, later: Part) {
        for s in later.sums {
            match self.sums.iter_mut().find(|m| m.name() == s.name()) {
                Some(m) => m.join(s),
                None => self.sums.push(s),
            }
        }
        self.span.join(&later.span);
        self.cpu.user_s += later.cpu.user_s;
        self.cpu.system_s += later.cpu.system_s;
        self.elapsed_s = self.elapsed_s.max(later.elapsed_s);
        self.first_ok = self.first_ok.or(later.first_ok);
        self.first = self.first.or(later.first);
        self.per_rank.extend(later.per_rank);
        self.paused.extend(later.paused);
    }
}

/// One point across the ranks; `None` when no rank has it.
fn merge_point(id: u32, runs: &[RankRun], ranks: u32) -> Result<Option<PointResult>, MergeError> {
    let mut parts = in_parallel(runs, |chunk| Part::over(id, chunk)).into_iter();
    let mut all = parts.next().unwrap_or_else(|| Ok(Part::default()))?;
    for part in parts {
        all.join(part?);
    }
    let hosts = all.per_rank.iter().filter(|r| r.ok).count() as u32;
    // No rank finished it without error: a failed point, if any rank tried it at all.
    let Some(base_rank) = all.first_ok.or(all.first) else {
        return Ok(None);
    };
    let Some(mut base) = runs
        .iter()
        .find(|r| r.rank == base_rank)
        .map(|r| r.index.load(id))
        .transpose()?
        .flatten()
    else {
        return Ok(None);
    };
    // Its own figures are replaced by the sums.
    base.classes = Vec::new();
    let overlap_pct = all.span.pct();
    let mut reasons = Vec::new();
    if hosts < ranks {
        reasons.push(format!("{hosts} of {ranks} hosts"));
    }
    if hosts > 1 && overlap_pct < MIN_OVERLAP_PCT {
        reasons.push(format!("windows overlap {overlap_pct:.0}%"));
    }
    // A rank that did not run for part of its window was not loading the storage beside the
    // others then, whatever the windows' clock times say.
    if let Some((rank, paused)) = all.paused.first() {
        reasons.push(format!("rank {rank}: {}", paused.reason(base.elapsed_s)));
    }
    Ok(Some(PointResult {
        classes: all.sums.into_iter().map(ClassSum::finish).collect(),
        cpu: all.cpu,
        elapsed_s: if hosts > 0 {
            all.elapsed_s
        } else {
            base.elapsed_s
        },
        window: all.span.union(),
        partial: (!reasons.is_empty()).then(|| reasons.join(", ")),
        paused: all.paused.first().map(|(_, p)| *p),
        fleet: Some(FleetPoint {
            hosts,
            ranks,
            overlap_pct,
            per_rank: RankRows::Rows(all.per_rank),
        }),
        // Each host's devices are its own: in its run folder, not summed here.
        devices: Vec::new(),
        integrity: None,
        engines: Vec::new(),
        placement: None,
        host: None,
        ..base
    }))
}

fn rank_point(run: &RankRun, p: &LightPoint) -> RankPoint {
    RankPoint {
        rank: run.rank,
        hostname: run.hostname.clone(),
        ok: matches!(p.status, PointStatus::Ok),
        error: match &p.status {
            PointStatus::Ok => None,
            PointStatus::Failed { error } => Some(format!(
                "{} at offset {}: {}",
                error.target, error.offset, error.message
            )),
        },
        window: p.window,
        classes: p
            .classes
            .iter()
            .map(|c| RankClass {
                class: c.class.to_string(),
                ios: c.total.ios,
                iops: c.total.iops,
                mbps: c.total.mbps,
                mean_ns: c.total.latency.mean_ns,
                p99_ns: c.total.latency.p99_ns,
                max_ns: c.total.latency.max_ns,
            })
            .collect(),
    }
}
