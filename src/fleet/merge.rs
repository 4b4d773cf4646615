//! The exact merge of a fleet folder: per point and class, the ranks' IOPS and MB/s summed and
//! their HDR histograms added; the per-rank figures kept; a point lacking a rank, or whose ranks'
//! windows overlap less than 95%, marked partial. It streams one point at a time across the rank
//! files (an index of line offsets first), so its memory does not grow with their contents.

use super::plan_diff::comparable;
use super::{FleetError, rank_dir, rank_of, read_ranks};
use crate::record::{self, POINTS_FILE, RecordError, RunHeader};
use crate::report::{self, ReportError, ReportOptions};
use crate::stats::{
    ClassSum, CpuTime, FleetHost, FleetInfo, FleetPoint, PointResult, PointStatus, RankClass,
    RankPoint, ResultsDoc, TargetInfo, WallWindow,
};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Below this overlap of the ranks' windows (percent) a point is partial.
pub const MIN_OVERLAP_PCT: f64 = 95.0;

#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error(transparent)]
    Fleet(#[from] FleetError),
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error("`{dir}` holds no rank folders (rank-0000/, rank-0001/, …): is it a fleet folder?")]
    NoRanks { dir: PathBuf },
}

/// One rank's folder as the merge reads it.
struct RankRun {
    rank: u32,
    hostname: String,
    points_file: PathBuf,
    /// Byte offset of each point's last line in `results.jsonl`.
    index: HashMap<u32, u64>,
    excluded: Option<String>,
    ok_points: usize,
}

#[derive(serde::Deserialize)]
struct IdOnly {
    point: IdPoint,
}
#[derive(serde::Deserialize)]
struct IdPoint {
    id: u32,
}

/// Merges the rank folders of `fleet` into the fleet's results document and writes it as
/// `fleet/results.json`.
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
    let ranks = read_ranks(fleet)
        .unwrap_or(0)
        .max(found.last().map_or(0, |r| r + 1));
    let (header, spec_toml, plan) = record::load_parts(&rank_dir(fleet, first))?;
    let reference = comparable(&plan);
    let mut runs: Vec<RankRun> = Vec::new();
    let mut targets: Vec<TargetInfo> = Vec::new();
    let mut hosts: Vec<FleetHost> = Vec::new();
    for rank in 0..ranks {
        let dir = rank_dir(fleet, rank);
        let run = if found.binary_search(&rank).is_ok() {
            open_rank(rank, &dir, &reference, &mut targets)?
        } else {
            RankRun {
                rank,
                hostname: String::new(),
                points_file: dir.join(POINTS_FILE),
                index: HashMap::new(),
                excluded: Some("no run folder (the rank never started)".into()),
                ok_points: 0,
            }
        };
        runs.push(run);
    }
    let mut points = Vec::new();
    for planned in &plan.points {
        if let Some(p) = merge_point(planned.id, &mut runs, ranks)? {
            points.push(p);
        }
    }
    for r in &runs {
        hosts.push(FleetHost {
            rank: r.rank,
            hostname: r.hostname.clone(),
            dir: format!("rank-{:04}", r.rank),
            points: r.ok_points,
            excluded: r.excluded.clone(),
        });
    }
    let finished = if points.len() == plan.points.len() {
        crate::runner::now()
    } else {
        String::new()
    };
    let mut doc = record::assemble(
        fleet_header(header, &hosts, targets),
        spec_toml,
        plan,
        points,
        finished,
    );
    doc.fleet = Some(FleetInfo { ranks, hosts });
    record::write_results(fleet, &doc)?;
    Ok(doc)
}

/// [`merge`], then the built-in reports into the fleet folder (a report that fails does not undo
/// the merged results).
pub fn merge_and_render(
    fleet: &Path,
) -> Result<(ResultsDoc, Result<Vec<PathBuf>, ReportError>), MergeError> {
    let doc = merge(fleet)?;
    let files = report::render(&doc, &ReportOptions::new(fleet));
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

/// Reads a rank's header and plan, checks the plan against the reference and indexes its points.
fn open_rank(
    rank: u32,
    dir: &Path,
    reference: &serde_json::Value,
    targets: &mut Vec<TargetInfo>,
) -> Result<RankRun, MergeError> {
    let points_file = dir.join(POINTS_FILE);
    let (header, _, plan) = match record::load_parts(dir) {
        Ok(parts) => parts,
        Err(e) => {
            return Ok(RankRun {
                rank,
                hostname: String::new(),
                points_file,
                index: HashMap::new(),
                excluded: Some(e.to_string()),
                ok_points: 0,
            });
        }
    };
    let excluded = super::first_difference(&comparable(&plan), reference)
        .map(|d| format!("its plan differs from the first rank's at {d}"));
    if excluded.is_none() {
        targets.extend(header.targets.iter().map(|t| TargetInfo {
            path: format!("{}:{}", header.host.hostname, t.path),
            ..t.clone()
        }));
    }
    let index = if excluded.is_none() {
        index_points(&points_file)?
    } else {
        HashMap::new()
    };
    Ok(RankRun {
        rank,
        hostname: header.host.hostname,
        points_file,
        index,
        excluded,
        ok_points: 0,
    })
}

/// The offset of each point's last complete line (a later line for a point redone by a fleet's
/// resume replaces the earlier one; a torn last line is skipped).
fn index_points(path: &Path) -> Result<HashMap<u32, u64>, MergeError> {
    let mut index = HashMap::new();
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(index),
        Err(source) => return Err(read_error(path, source)),
    };
    let mut reader = BufReader::new(file);
    let mut line = String::new();
    let mut offset = 0u64;
    loop {
        line.clear();
        let n = reader
            .read_line(&mut line)
            .map_err(|e| read_error(path, e))?;
        if n == 0 {
            break;
        }
        if line.ends_with('\n')
            && let Ok(p) = serde_json::from_str::<IdOnly>(&line)
        {
            index.insert(p.point.id, offset);
        }
        offset += n as u64;
    }
    Ok(index)
}

fn read_error(path: &Path, source: std::io::Error) -> MergeError {
    MergeError::Record(RecordError::Io {
        action: "read",
        path: path.to_path_buf(),
        source,
    })
}

fn read_point(run: &RankRun, id: u32) -> Result<Option<PointResult>, MergeError> {
    let Some(&offset) = run.index.get(&id) else {
        return Ok(None);
    };
    let path = &run.points_file;
    let mut file = File::open(path).map_err(|e| read_error(path, e))?;
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| read_error(path, e))?;
    let mut line = String::new();
    BufReader::new(file)
        .read_line(&mut line)
        .map_err(|e| read_error(path, e))?;
    serde_json::from_str(&line).map(Some).map_err(|e| {
        MergeError::Record(RecordError::Invalid {
            path: path.clone(),
            message: format!("point {id}: {e}"),
        })
    })
}

/// One point across the ranks; `None` when no rank has it.
fn merge_point(
    id: u32,
    runs: &mut [RankRun],
    ranks: u32,
) -> Result<Option<PointResult>, MergeError> {
    let mut base: Option<PointResult> = None;
    let mut sums: Vec<ClassSum> = Vec::new();
    let mut per_rank = Vec::with_capacity(runs.len());
    let mut windows: Vec<WallWindow> = Vec::new();
    let mut cpu = CpuTime::default();
    let mut failure: Option<PointStatus> = None;
    let mut elapsed_s = 0.0f64;
    for run in runs.iter_mut() {
        let got = if run.excluded.is_some() {
            None
        } else {
            read_point(run, id)?
        };
        let Some(p) = got else {
            per_rank.push(RankPoint {
                rank: run.rank,
                hostname: run.hostname.clone(),
                ok: false,
                error: Some(run.excluded.clone().unwrap_or_else(|| "no result".into())),
                window: None,
                classes: Vec::new(),
            });
            continue;
        };
        let ok = matches!(p.status, PointStatus::Ok);
        per_rank.push(rank_point(run, &p));
        if !ok {
            failure.get_or_insert(p.status.clone());
            continue;
        }
        run.ok_points += 1;
        for c in &p.classes {
            match sums.iter_mut().find(|s| s.name() == c.class) {
                Some(s) => s.add(c),
                None => sums.push(ClassSum::new(c)),
            }
        }
        windows.extend(p.window);
        cpu.user_s += p.cpu.user_s;
        cpu.system_s += p.cpu.system_s;
        elapsed_s = elapsed_s.max(p.elapsed_s);
        if base.is_none() {
            base = Some(p);
        }
    }
    let hosts = per_rank.iter().filter(|r| r.ok).count() as u32;
    let base = match base {
        Some(b) => b,
        None => {
            // No rank finished it without error: a failed point, if any rank tried it at all.
            let Some(status) = failure else {
                return Ok(None);
            };
            let mut p = failed_point(id, runs)?;
            p.status = status;
            p
        }
    };
    let overlap_pct = overlap_pct(&windows);
    let mut reasons = Vec::new();
    if hosts < ranks {
        reasons.push(format!("{hosts} of {ranks} hosts"));
    }
    if hosts > 1 && overlap_pct < MIN_OVERLAP_PCT {
        reasons.push(format!("windows overlap {overlap_pct:.0}%"));
    }
    let window = (!windows.is_empty()).then(|| WallWindow {
        start_ns: windows.iter().map(|w| w.start_ns).min().unwrap_or(0),
        end_ns: windows.iter().map(|w| w.end_ns).max().unwrap_or(0),
    });
    Ok(Some(PointResult {
        classes: sums.into_iter().map(ClassSum::finish).collect(),
        cpu,
        elapsed_s: if hosts > 0 { elapsed_s } else { base.elapsed_s },
        window,
        partial: (!reasons.is_empty()).then(|| reasons.join(", ")),
        fleet: Some(FleetPoint {
            hosts,
            ranks,
            overlap_pct,
            per_rank,
        }),
        ..base
    }))
}

/// The first failed result of point `id`, as the base of a point no rank finished.
fn failed_point(id: u32, runs: &[RankRun]) -> Result<PointResult, MergeError> {
    for run in runs.iter().filter(|r| r.excluded.is_none()) {
        if let Some(p) = read_point(run, id)? {
            return Ok(p);
        }
    }
    Err(MergeError::Record(RecordError::Invalid {
        path: PathBuf::new(),
        message: format!("point {id} vanished while merging"),
    }))
}

fn rank_point(run: &RankRun, p: &PointResult) -> RankPoint {
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
                class: c.class.clone(),
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

/// The windows' common part over their union, percent (100 for one window or none).
pub fn overlap_pct(windows: &[WallWindow]) -> f64 {
    let (Some(first), Some(last)) = (
        windows.iter().map(|w| w.start_ns).min(),
        windows.iter().map(|w| w.end_ns).max(),
    ) else {
        return 100.0;
    };
    let latest_start = windows.iter().map(|w| w.start_ns).max().unwrap_or(first);
    let earliest_end = windows.iter().map(|w| w.end_ns).min().unwrap_or(last);
    let union = last.saturating_sub(first);
    if union == 0 {
        return 100.0;
    }
    earliest_end.saturating_sub(latest_start) as f64 / union as f64 * 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_is_the_common_part_over_the_union() {
        let w = |s, e| WallWindow {
            start_ns: s,
            end_ns: e,
        };
        assert_eq!(overlap_pct(&[w(0, 100), w(0, 100)]), 100.0);
        assert_eq!(overlap_pct(&[w(0, 100), w(10, 110)]), 90.0 / 110.0 * 100.0);
        assert_eq!(overlap_pct(&[w(0, 100), w(200, 300)]), 0.0);
        assert_eq!(overlap_pct(&[]), 100.0);
    }
}
