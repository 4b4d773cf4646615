//! `rigel verify DIR`: a finished, interrupted or crashed run's volume read back against the
//! journal it kept (`journal = true`), at any later time. It takes the folder's lock (a live run
//! is not verified under its feet), opens the targets read-only (O_DIRECT where they allow it),
//! and writes its account beside the run's (`verify.json`).

use rigel_exec::ExecTarget;
use rigel_exec::verify::{self, check, journal, map::GenMap, report};
use rigel_record::{self as record, FolderLock};
use rigel_results::JournalCheck;
use rigel_target::{self as target, OpenMode, TargetError, Volume};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// Why `rigel verify` could not judge the volume (what it found is a `JournalCheck`).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(transparent)]
    Folder(#[from] record::RecordError),
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error(
        "`{0}` keeps no journal: the run did not set `journal = true` (with `verify`) in [run]"
    )]
    NoJournal(PathBuf),
    #[error("`{path}`: {message}")]
    BadJournal { path: PathBuf, message: String },
    #[error("{given} target(s) given with --target, the run has {planned}")]
    Targets { given: usize, planned: usize },
    #[error("reading the volume back: {0}")]
    Read(std::io::Error),
}

/// Checks the volume of the run in `dir` against its journal; `targets` replace the plan's
/// paths in order (a device renamed since, such as a loop device attached again). The account is
/// written into the folder as `verify.json` and returned.
pub fn verify_dir(
    dir: &Path,
    targets: &[PathBuf],
    stop: &AtomicBool,
) -> Result<JournalCheck, VerifyError> {
    let lock = FolderLock::take_existing(dir)?;
    let (run, _, plan) = record::load_parts(dir)?;
    let path = dir.join(record::JOURNAL_FILE);
    let bytes = record::read_journal(&lock)?.ok_or_else(|| VerifyError::NoJournal(dir.into()))?;
    let bad = |message: String| VerifyError::BadJournal {
        path: path.clone(),
        message,
    };
    // The runner makes the file before the point begins and the executor writes its header
    // before the first write: a file of zeros is a run stopped in between, with nothing to check.
    if bytes.iter().all(|b| *b == 0) {
        let account = JournalCheck::default();
        record::write_check(&lock, &account)?;
        return Ok(account);
    }
    let header = journal::JournalHeader::decode(&bytes).map_err(bad)?;
    let points = record::finished_points(dir)?;
    bound_to_run(&header, &plan, &run, &points).map_err(bad)?;
    let mut entries: Vec<u16> = bytes[journal::HEADER..]
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    // The promised generations follow the entries (a journal of an older rigel has none).
    let promises = if header.promises {
        let at = usize::try_from(header.blocks)
            .unwrap_or(usize::MAX)
            .min(entries.len());
        entries.split_off(at)
    } else {
        Vec::new()
    };
    let paths: Vec<PathBuf> = if targets.is_empty() {
        plan.targets
            .iter()
            .map(|t| PathBuf::from(&t.path))
            .collect()
    } else if targets.len() == plan.targets.len() {
        targets.to_vec()
    } else {
        return Err(VerifyError::Targets {
            given: targets.len(),
            planned: plan.targets.len(),
        });
    };
    let files = paths
        .iter()
        .map(|p| open_read_only(p))
        .collect::<Result<Vec<_>, _>>()?;
    let volume = Volume::new(plan.volume.layout, plan.volume.stripe, &header.target_sizes);
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let exec_targets: Vec<ExecTarget> = files
        .iter()
        .zip(&names)
        .map(|(f, n)| ExecTarget {
            fd: std::os::fd::AsFd::as_fd(f),
            path: n,
        })
        .collect();
    let map = GenMap::recorded(&volume, &header, entries, promises)
        .map_err(bad)?
        .with_after_trim(verify::after_trim(&exec_targets));
    let found =
        check::check(&exec_targets, &map, header.durable, stop).map_err(VerifyError::Read)?;
    let account = report::journal_check(found, &header, &exec_targets);
    record::write_check(&lock, &account)?;
    Ok(account)
}

/// What binds a journal to its run: the sha256 of the plan and of the targets as `run.json`
/// records them (path, kind, size, model), written by the run and compared by `rigel verify`.
pub(crate) fn journal_binding(
    plan: &rigel_plan::RunPlan,
    run: &rigel_results::RunHeader,
) -> journal::Binding {
    let plan = serde_json::to_vec(plan).unwrap_or_default();
    let mut targets = Vec::new();
    for t in &run.targets {
        for field in [t.path.as_bytes(), t.kind.as_bytes(), t.model.as_bytes()] {
            targets.extend_from_slice(field);
            targets.push(0);
        }
        targets.extend_from_slice(&t.size.to_le_bytes());
    }
    journal::Binding {
        plan: target::sha256_hex(&plan),
        targets: target::sha256_hex(&targets),
    }
}

/// The journal must be this run's, as the folder's own files record it: its block size the plan's
/// `verify_unit`, its targets the plan's (no larger than `run.json` saw them), its blocks those
/// sizes' and its run id the one the finished points stamped. A journal that is not (copied from
/// another run, forged, damaged) is an error about the journal, never a verdict about the storage.
fn bound_to_run(
    h: &journal::JournalHeader,
    plan: &rigel_plan::RunPlan,
    run: &rigel_results::RunHeader,
    points: &[rigel_results::PointResult],
) -> Result<(), String> {
    // A journal of an older rigel (version 1) has no binding: its sizes and run id below.
    if let Some(b) = &h.binding {
        let ours = journal_binding(plan, run);
        if b.plan != ours.plan {
            return Err(format!(
                "the journal was written for a plan of sha256 {}, this folder's plan.json is {}: it is another run's journal",
                short(&b.plan),
                short(&ours.plan)
            ));
        }
        if b.targets != ours.targets {
            return Err(format!(
                "the journal was written over other targets (sha256 {}) than this folder's run.json names ({}): it is another run's journal",
                short(&b.targets),
                short(&ours.targets)
            ));
        }
    }
    let Some(unit) = plan.run.verify.as_ref().map(|v| v.unit) else {
        return Err("the run verified nothing (no `verify` in its plan), yet this journal is here: it is not this run's".into());
    };
    if h.unit != unit {
        return Err(format!(
            "the journal counts blocks of {} bytes, the run's plan {unit}: it is not this run's journal (or it is damaged)",
            h.unit
        ));
    }
    if h.target_sizes.len() != plan.targets.len() {
        return Err(format!(
            "the journal covers {} target(s), the run's plan {}: it is not this run's journal",
            h.target_sizes.len(),
            plan.targets.len()
        ));
    }
    for (t, (&size, info)) in h.target_sizes.iter().zip(&run.targets).enumerate() {
        if size > info.size {
            return Err(format!(
                "the journal's target {t} is {size} bytes, larger than the {} bytes `{}` had in this run: it is not this run's journal",
                info.size, info.path
            ));
        }
    }
    let blocks = h
        .target_sizes
        .iter()
        .fold(0u64, |n, s| n.saturating_add(s / unit));
    if blocks != h.blocks
        || blocks.saturating_mul(rigel_plan::MAP_BYTES_PER_BLOCK)
            > rigel_plan::limits::MAX_VERIFY_MAP_BYTES
    {
        return Err(format!(
            "the journal's header says {} blocks, its target sizes make {blocks}: it is damaged",
            h.blocks
        ));
    }
    let stamped = points
        .iter()
        .filter_map(|p| p.integrity.as_ref().map(|i| i.run))
        .find(|&r| r != 0);
    if let Some(id) = stamped.filter(|&id| id != h.run) {
        return Err(format!(
            "the journal is run {}'s, and this folder's results were stamped by run {id}: it is another run's journal",
            h.run
        ));
    }
    Ok(())
}

/// A digest's first 12 hex digits, enough to tell two apart in a message.
fn short(hex: &str) -> &str {
    hex.get(..12).unwrap_or(hex)
}

/// A target opened for reading only: O_DIRECT (past the page cache, to the storage) where the
/// target allows it, else through the page cache.
fn open_read_only(path: &Path) -> Result<std::fs::File, TargetError> {
    let mode = OpenMode {
        write: false,
        direct: true,
        exclusive: false,
    };
    target::open_target(path, mode).or_else(|_| {
        target::open_target(
            path,
            OpenMode {
                direct: false,
                ..mode
            },
        )
    })
}
