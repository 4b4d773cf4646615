//! Creating, appending to, finishing and reading a run folder.

use super::error::{PLAN_FILE, POINTS_FILE, RESULTS_FILE, RUN_FILE, RecordError, SPEC_FILE, io};
use super::lock::FolderLock;
use super::points::{self, Torn};
use rigel_fs::Dir;
use rigel_fs::limits::RUN_FILE_BYTES;
use rigel_judge::expect::Verdict;
use rigel_plan::{RunPlan, SCHEMA_VERSION};
pub use rigel_results::RunHeader;
use rigel_results::{PointResult, ResultsDoc};
use rustix::fs::OFlags;
use serde::Serialize;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// An open run folder, appending finished points; it holds the folder's lock.
pub struct RunFolder {
    lock: FolderLock,
    points: File,
    /// Bytes of whole lines in `results.jsonl`: a failed append is cut back to it.
    len: u64,
}

/// A folder reopened to resume: the points it holds and the torn line cut off its end, if any.
pub struct Reopened {
    pub folder: RunFolder,
    /// The latest record of each point, in the order they finished.
    pub points: Vec<PointResult>,
    pub torn: Option<Torn>,
}

impl RunFolder {
    /// Creates `dir` with the resolved spec, the plan and the header. Refuses a folder that already
    /// holds a run, or that another rigel has locked.
    pub fn create(
        dir: &Path,
        spec_toml: &str,
        plan: &RunPlan,
        header: &RunHeader,
    ) -> Result<RunFolder, RecordError> {
        Self::create_locked(FolderLock::take(dir)?, spec_toml, plan, header)
    }

    /// [`RunFolder::create`] in a folder already locked.
    pub fn create_locked(
        lock: FolderLock,
        spec_toml: &str,
        plan: &RunPlan,
        header: &RunHeader,
    ) -> Result<RunFolder, RecordError> {
        let folder = lock.folder();
        if folder.exists(PLAN_FILE) {
            return Err(RecordError::AlreadyARun {
                dir: folder.path().to_path_buf(),
            });
        }
        folder.write_atomic(SPEC_FILE, spec_toml.as_bytes())?;
        write_json(folder, PLAN_FILE, plan)?;
        write_json(folder, RUN_FILE, header)?;
        // O_EXCL | O_NOFOLLOW: a name planted in the folder is refused, never appended through.
        let points = folder.open_file(
            POINTS_FILE,
            OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE | OFlags::EXCL,
        )?;
        folder.sync()?;
        Ok(RunFolder {
            lock,
            points,
            len: 0,
        })
    }

    /// Reopens a locked folder to append the points a resumed run adds. A torn last line of
    /// `results.jsonl` is cut off first (and returned, for the caller to report). An earlier
    /// `results.json` is removed before the first append: from then on it is older than the points
    /// on disk, and a resume killed before it writes a new one must leave a folder that reads from
    /// `results.jsonl` (the newest points), not one that still shows the older document.
    pub fn reopen(lock: FolderLock) -> Result<Reopened, RecordError> {
        let path = lock.dir().join(POINTS_FILE);
        let points = lock
            .folder()
            .open_file(POINTS_FILE, OFlags::RDWR | OFlags::APPEND | OFlags::CREATE)?;
        let lines = points::read_lines(std::io::BufReader::with_capacity(1 << 20, &points))
            .map_err(|e| match e {
                points::ReadError::Io(e) => io("read", &path)(e),
                points::ReadError::Line(e) => RecordError::Invalid {
                    path: path.clone(),
                    message: e.to_string(),
                },
            })?;
        if lines.torn.is_some() {
            points
                .set_len(lines.valid_len)
                .and_then(|()| points.sync_all())
                .map_err(io("cut the torn last line of", &path))?;
        }
        // A results.json older than the points: a resume cut off before it writes a new one must
        // not leave a report reading the older one.
        if lock.folder().exists(RESULTS_FILE) {
            lock.folder().remove_file(RESULTS_FILE)?;
            lock.folder().sync()?;
        }
        Ok(Reopened {
            folder: RunFolder {
                lock,
                points,
                len: lines.valid_len,
            },
            points: points::latest(lines.points),
            torn: lines.torn,
        })
    }

    pub fn dir(&self) -> &Path {
        self.lock.dir()
    }

    pub(crate) fn lock(&self) -> &FolderLock {
        &self.lock
    }

    /// Appends one finished point and makes it durable before returning.
    pub fn append(&mut self, point: &PointResult) -> Result<(), RecordError> {
        let path = self.dir().join(POINTS_FILE);
        let mut line = serde_json::to_string(point).map_err(|e| RecordError::Invalid {
            path: path.clone(),
            message: e.to_string(),
        })?;
        line.push('\n');
        let written = self
            .points
            .write_all(line.as_bytes())
            .and_then(|()| self.points.sync_data());
        if let Err(e) = written {
            // Leave no half line behind (a full disk): the next append or resume starts clean.
            let _ = self.points.set_len(self.len);
            return Err(io("append to", &path)(e));
        }
        self.len += line.len() as u64;
        Ok(())
    }

    /// Writes `results.json` (atomically: a temporary file renamed over it).
    pub fn finish(&self, doc: &ResultsDoc) -> Result<PathBuf, RecordError> {
        write_json(self.lock.folder(), RESULTS_FILE, &ResultsFile::new(doc))?;
        Ok(self.dir().join(RESULTS_FILE))
    }
}

/// `results.json` as written: the results document, and the `[expect]` verdicts judged on it
/// (recomputed from the document whenever it is read; kept so that CI and other tools need not).
#[derive(Serialize)]
pub struct ResultsFile<'a> {
    #[serde(flatten)]
    pub doc: &'a ResultsDoc,
    pub verdicts: Vec<Verdict>,
}

impl<'a> ResultsFile<'a> {
    pub fn new(doc: &'a ResultsDoc) -> ResultsFile<'a> {
        ResultsFile {
            doc,
            verdicts: rigel_judge::expect::evaluate(doc),
        }
    }
}

/// Reads a run folder: `results.json` when present, else the header, the plan and the points
/// finished so far (an interrupted run; `finished` is then empty). A torn last line is ignored.
pub fn load(dir: &Path) -> Result<ResultsDoc, RecordError> {
    let results = dir.join(RESULTS_FILE);
    if results.exists() {
        let doc: ResultsDoc = read_json(&results)?;
        check_schema(&results, doc.schema_version())?;
        return possible(&results, rigel_results::check::doc(&doc)).map(|()| doc);
    }
    if !dir.join(PLAN_FILE).exists() || !dir.join(RUN_FILE).exists() {
        return Err(RecordError::NotARun {
            dir: dir.to_path_buf(),
        });
    }
    let header: RunHeader = read_json(&dir.join(RUN_FILE))?;
    check_schema(&dir.join(RUN_FILE), header.schema_version)?;
    let plan: RunPlan = read_json(&dir.join(PLAN_FILE))?;
    let spec_path = dir.join(SPEC_FILE);
    let spec_toml = rigel_fs::read_no_follow(&spec_path, RUN_FILE_BYTES)?;
    let points = finished_points(dir)?;
    plan_holds(dir, &plan, &points)?;
    Ok(ResultsDoc::new(
        header,
        spec_toml,
        plan,
        points,
        String::new(),
    ))
}

/// The points of `results.jsonl` are the plan's (`plan.json`): a point the plan does not hold, or
/// holds otherwise, is refused naming both files.
pub fn plan_holds(dir: &Path, plan: &RunPlan, points: &[PointResult]) -> Result<(), RecordError> {
    rigel_results::check::against_plan(plan, points).map_err(|e| RecordError::Invalid {
        path: dir.join(POINTS_FILE),
        message: format!("{e} (against `{}`)", dir.join(PLAN_FILE).display()),
    })
}

/// A document's impossible figure as an error naming its file.
fn possible(
    path: &Path,
    checked: Result<(), rigel_results::check::Impossible>,
) -> Result<(), RecordError> {
    checked.map_err(|e| RecordError::Invalid {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// The latest record of each point in `results.jsonl`, in the order they finished; a torn
/// (unterminated or unparsable) last line from a crash is skipped.
pub fn finished_points(dir: &Path) -> Result<Vec<PointResult>, RecordError> {
    let path = dir.join(POINTS_FILE);
    let file = match rigel_fs::open_no_follow(&path) {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::NOENT.raw_os_error()) => {
            return Ok(Vec::new());
        }
        Err(e) => return Err(e.into()),
    };
    let lines = points::read_lines(std::io::BufReader::with_capacity(1 << 20, file)).map_err(
        |e| match e {
            points::ReadError::Io(e) => io("read", &path)(e),
            points::ReadError::Line(e) => RecordError::Invalid {
                path: path.clone(),
                message: e.to_string(),
            },
        },
    )?;
    Ok(points::latest(lines.points))
}

/// Reads the header, spec and plan of a folder to resume it.
pub fn load_parts(dir: &Path) -> Result<(RunHeader, String, RunPlan), RecordError> {
    if !dir.join(PLAN_FILE).exists() || !dir.join(RUN_FILE).exists() {
        return Err(RecordError::NotARun {
            dir: dir.to_path_buf(),
        });
    }
    let header: RunHeader = read_json(&dir.join(RUN_FILE))?;
    check_schema(&dir.join(RUN_FILE), header.schema_version)?;
    let spec_path = dir.join(SPEC_FILE);
    let spec = rigel_fs::read_no_follow(&spec_path, RUN_FILE_BYTES)?;
    Ok((header, spec, read_json(&dir.join(PLAN_FILE))?))
}

fn check_schema(path: &Path, found: u32) -> Result<(), RecordError> {
    // Versions count from 1: a 0 is no rigel's file (a forged or hand-made one).
    if found == 0 {
        return Err(RecordError::Invalid {
            path: path.to_path_buf(),
            message: "schema_version 0: rigel's versions start at 1".into(),
        });
    }
    if found > SCHEMA_VERSION {
        return Err(RecordError::NewerSchema {
            path: path.to_path_buf(),
            found,
        });
    }
    Ok(())
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, RecordError> {
    let text = rigel_fs::read_no_follow(path, RUN_FILE_BYTES)?;
    serde_json::from_str(&text).map_err(|e| RecordError::Invalid {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

fn write_json<T: Serialize>(folder: &Dir, name: &str, value: &T) -> Result<(), RecordError> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| RecordError::Invalid {
        path: folder.join(name),
        message: e.to_string(),
    })?;
    text.push('\n');
    Ok(folder.write_atomic(name, text.as_bytes())?)
}

/// Writes `doc` as `dir/results.json` (atomically, streamed: a fleet's document is large): a
/// fleet's folder, by its merge. Written beneath the folder's descriptor through no link; its
/// owner is not checked (on NFS with root squash a root rank's folder belongs to `nobody`).
pub fn write_results(dir: &Path, doc: &ResultsDoc) -> Result<PathBuf, RecordError> {
    let folder = Dir::open(dir)?;
    let path = folder.join(RESULTS_FILE);
    folder.write_atomic_with(RESULTS_FILE, |out| {
        serde_json::to_writer_pretty(&mut *out, doc).map_err(std::io::Error::other)?;
        out.write_all(b"\n")
    })?;
    Ok(path)
}
