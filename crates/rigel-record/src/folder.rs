//! Creating, appending to and finishing a run folder (reading one back is `read`).

use super::error::{PLAN_FILE, POINTS_FILE, RESULTS_FILE, RUN_FILE, RecordError, SPEC_FILE, io};
use super::lock::FolderLock;
use super::points::{self, Torn};
use rigel_fs::Dir;
use rigel_plan::RunPlan;
pub use rigel_results::RunHeader;
use rigel_results::stats::{ValidityConfig, Warning, volume_findings};
use rigel_results::view::ResultsView;
use rigel_results::{Answer, PointResult, ResultsDoc};
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
            .map_err(|e| points::read_error(&path, e))?;
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

    /// Writes `results.json` (atomically: a temporary file renamed over it), with the verdicts and
    /// answers the runner judged on `doc` (the folder keeps them; judging is not the record's
    /// business).
    pub fn finish<V: Serialize>(
        &self,
        doc: &ResultsDoc,
        verdicts: &[V],
        answers: &[Answer],
    ) -> Result<PathBuf, RecordError> {
        write_json(
            self.lock.folder(),
            RESULTS_FILE,
            &ResultsFile::new(doc, verdicts, answers),
        )?;
        Ok(self.dir().join(RESULTS_FILE))
    }
}

/// `results.json` as written: the results document, the `[expect]` verdicts and the answers
/// judged on it (recomputed from the document whenever it is read; kept so that CI and other
/// tools need not). They come judged (by the runner, or the report's JSON format): the record only
/// writes them, so it depends on no judge.
///
/// `findings` are what the volume did rather than what the device can do (a rate cap), typed with
/// their evidence (recomputed from the document too; absent when there are none).
#[derive(Serialize)]
pub struct ResultsFile<'a, V> {
    #[serde(flatten)]
    pub doc: &'a ResultsDoc,
    pub verdicts: &'a [V],
    /// The spec's answers (`[answers]`, or those its classes imply), each with its point.
    pub answers: &'a [Answer],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Warning>,
}

impl<'a, V> ResultsFile<'a, V> {
    pub fn new(doc: &'a ResultsDoc, verdicts: &'a [V], answers: &'a [Answer]) -> Self {
        let view = ResultsView::new(doc);
        let findings = volume_findings(&view, &ValidityConfig::default());
        ResultsFile {
            doc,
            verdicts,
            answers,
            findings,
        }
    }
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
