//! A capture folder: `trace.rtr`, and what `derive` writes beside it (`spec.toml`, `derive.md`).

use crate::derive::{Features, checked_spec};
use crate::format::Trace;
use crate::report::report;
use crate::stats::{TraceStats, measure};
use crate::{BlockDevice, CaptureOptions, TRACE_FILE, TraceError, capture};
use rigel_fs::Dir;
use rigel_fs::limits::TRACE_BYTES;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// The derived spec's name in the folder.
pub const SPEC_FILE: &str = "spec.toml";
/// The derivation's report: the trace's statistics beside the spec's.
pub const REPORT_FILE: &str = "derive.md";

/// Writes `trace` into a new (or empty) folder `dir`; returns the file's path.
pub fn save(dir: &Path, trace: &Trace) -> Result<PathBuf, TraceError> {
    let (folder, _) = Dir::create_fresh(dir)?;
    write(&folder, trace)
}

fn write(folder: &Dir, trace: &Trace) -> Result<PathBuf, TraceError> {
    folder.write_new(TRACE_FILE, &trace.encode()?)?;
    folder.sync()?;
    Ok(folder.join(TRACE_FILE))
}

/// Captures the requests of `dev` (opened with [`BlockDevice::open`]) into a new (or empty) folder `dir` (made before the capture
/// starts, so a folder that cannot be written costs no capture). SIGINT or SIGTERM ends the
/// capture early; what was captured is kept.
pub fn capture_into(
    dev: &BlockDevice,
    opts: &CaptureOptions,
    dir: &Path,
) -> Result<(PathBuf, Trace), TraceError> {
    let (folder, _) = Dir::create_fresh(dir)?;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop)).map_err(|e| TraceError::Io {
            action: "handle signals while capturing",
            path: dev.path.clone(),
            source: e,
        })?;
    }
    let trace = capture(dev, opts, &stop)?;
    Ok((write(&folder, &trace)?, trace))
}

/// Reads the trace of folder `dir` (or the trace file `dir` names).
pub fn load(dir: &Path) -> Result<Trace, TraceError> {
    let bytes = if dir.is_dir() {
        Dir::open_following(dir)?.read_at_most(TRACE_FILE, TRACE_BYTES)?
    } else {
        let parent = dir.parent().filter(|p| !p.as_os_str().is_empty());
        let name = dir
            .file_name()
            .ok_or_else(|| TraceError::Usage(format!("{} names no trace file", dir.display())))?;
        Dir::open_following(parent.unwrap_or(Path::new(".")))?.read_at_most(name, TRACE_BYTES)?
    };
    Trace::read(&mut bytes.as_slice()).map_err(|e| match e {
        TraceError::Format(m) => TraceError::Format(format!("{}: {m}", dir.display())),
        other => other,
    })
}

/// What `derive` wrote.
pub struct Derived {
    pub spec: PathBuf,
    pub report: PathBuf,
    pub stats: TraceStats,
}

/// Derives the spec and its report from the trace in folder `dir`, written beside it.
pub fn derive(dir: &Path) -> Result<Derived, TraceError> {
    let trace = load(dir)?;
    if !trace.records.iter().any(|r| r.is_data()) {
        return Err(TraceError::Usage(format!(
            "{}: the trace holds no read or write: there is nothing to derive a spec from",
            dir.display()
        )));
    }
    let stats = measure(&trace);
    let features = Features::AVAILABLE;
    let text = checked_spec(&trace, &stats, features)?;
    let md = report(&trace, &stats, features);
    let folder = if dir.is_dir() {
        Dir::open_following(dir)?
    } else {
        Dir::open_following(dir.parent().unwrap_or(Path::new(".")))?
    };
    folder.write_atomic(SPEC_FILE, text.as_bytes())?;
    folder.write_atomic(REPORT_FILE, md.as_bytes())?;
    Ok(Derived {
        spec: folder.join(SPEC_FILE),
        report: folder.join(REPORT_FILE),
        stats,
    })
}
