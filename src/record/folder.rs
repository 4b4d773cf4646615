//! Creating, appending to, finishing and reading a run folder.

use crate::plan::{RunPlan, SCHEMA_VERSION};
use crate::stats::{HostInfo, PointResult, ResultsDoc, TargetInfo};
use serde::{Deserialize, Serialize};
use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

pub const SPEC_FILE: &str = "spec.toml";
pub const PLAN_FILE: &str = "plan.json";
pub const RUN_FILE: &str = "run.json";
pub const POINTS_FILE: &str = "results.jsonl";
pub const RESULTS_FILE: &str = "results.json";

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot {action} `{path}`: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{path}` is not a valid rigel file: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error(
        "`{path}` was written by a newer rigel (schema {found}; this rigel reads up to {SCHEMA_VERSION}): upgrade rigel to read it"
    )]
    NewerSchema { path: PathBuf, found: u32 },
    #[error("`{dir}` is not a rigel run folder (no {PLAN_FILE} or {RUN_FILE})")]
    NotARun { dir: PathBuf },
    #[error("`{dir}` already holds a run; pick another --out, or finish it with --resume")]
    AlreadyARun { dir: PathBuf },
}

fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> RecordError + 'a {
    move |source| RecordError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// What a run knows when it starts: everything in `results.json` except the points.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunHeader {
    pub schema_version: u32,
    pub rigel_version: String,
    pub command: Vec<String>,
    pub started: String,
    pub host: HostInfo,
    pub targets: Vec<TargetInfo>,
}

/// An open run folder, appending finished points.
pub struct RunFolder {
    dir: PathBuf,
    points: File,
}

impl RunFolder {
    /// Creates `dir` with the resolved spec, the plan and the header. Refuses a folder that already
    /// holds a run.
    pub fn create(
        dir: &Path,
        spec_toml: &str,
        plan: &RunPlan,
        header: &RunHeader,
    ) -> Result<RunFolder, RecordError> {
        if dir.join(PLAN_FILE).exists() {
            return Err(RecordError::AlreadyARun {
                dir: dir.to_path_buf(),
            });
        }
        fs::create_dir_all(dir).map_err(io("create the run folder", dir))?;
        write_atomic(&dir.join(SPEC_FILE), spec_toml.as_bytes())?;
        write_json(&dir.join(PLAN_FILE), plan)?;
        write_json(&dir.join(RUN_FILE), header)?;
        Self::open_points(dir)
    }

    /// Reopens a folder to append the points a resumed run adds.
    pub fn reopen(dir: &Path) -> Result<RunFolder, RecordError> {
        Self::open_points(dir)
    }

    fn open_points(dir: &Path) -> Result<RunFolder, RecordError> {
        let path = dir.join(POINTS_FILE);
        let points = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io("open", &path))?;
        Ok(RunFolder {
            dir: dir.to_path_buf(),
            points,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends one finished point and makes it durable before returning.
    pub fn append(&mut self, point: &PointResult) -> Result<(), RecordError> {
        let path = self.dir.join(POINTS_FILE);
        let mut line = serde_json::to_string(point).map_err(|e| RecordError::Invalid {
            path: path.clone(),
            message: e.to_string(),
        })?;
        line.push('\n');
        self.points
            .write_all(line.as_bytes())
            .map_err(io("append to", &path))?;
        self.points.sync_data().map_err(io("fsync", &path))
    }

    /// Writes `results.json` (atomically: a temporary file renamed over it).
    pub fn finish(&self, doc: &ResultsDoc) -> Result<PathBuf, RecordError> {
        let path = self.dir.join(RESULTS_FILE);
        write_json(&path, doc)?;
        Ok(path)
    }
}

/// Reads a run folder: `results.json` when present, else the header, the plan and the points
/// finished so far (an interrupted run; `finished` is then empty). A torn last line is ignored.
pub fn load(dir: &Path) -> Result<ResultsDoc, RecordError> {
    let results = dir.join(RESULTS_FILE);
    if results.exists() {
        let doc: ResultsDoc = read_json(&results)?;
        return check_schema(&results, doc.schema_version).map(|_| doc);
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
    let spec_toml = fs::read_to_string(&spec_path).map_err(io("read", &spec_path))?;
    Ok(assemble(
        header,
        spec_toml,
        plan,
        finished_points(dir)?,
        String::new(),
    ))
}

/// Builds the whole document from its parts.
pub fn assemble(
    header: RunHeader,
    spec_toml: String,
    plan: RunPlan,
    points: Vec<PointResult>,
    finished: String,
) -> ResultsDoc {
    ResultsDoc {
        schema_version: header.schema_version,
        rigel_version: header.rigel_version,
        command: header.command,
        started: header.started,
        finished,
        host: header.host,
        targets: header.targets,
        spec_toml,
        plan,
        points,
        fleet: None,
    }
}

/// The points in `results.jsonl`, in the order they finished; a torn (unterminated or unparsable)
/// last line from a crash is skipped.
pub fn finished_points(dir: &Path) -> Result<Vec<PointResult>, RecordError> {
    let path = dir.join(POINTS_FILE);
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io("open", &path)(e)),
    };
    let lines: Vec<String> = BufReader::new(file)
        .lines()
        .collect::<Result<_, _>>()
        .map_err(io("read", &path))?;
    let mut points = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_str::<PointResult>(line) {
            Ok(p) => points.push(p),
            Err(_) if i + 1 == lines.len() => break,
            Err(e) => {
                return Err(RecordError::Invalid {
                    path,
                    message: format!("line {}: {e}", i + 1),
                });
            }
        }
    }
    Ok(points)
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
    let spec = fs::read_to_string(&spec_path).map_err(io("read", &spec_path))?;
    Ok((header, spec, read_json(&dir.join(PLAN_FILE))?))
}

fn check_schema(path: &Path, found: u32) -> Result<(), RecordError> {
    if found > SCHEMA_VERSION {
        return Err(RecordError::NewerSchema {
            path: path.to_path_buf(),
            found,
        });
    }
    Ok(())
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, RecordError> {
    let text = fs::read_to_string(path).map_err(io("read", path))?;
    serde_json::from_str(&text).map_err(|e| RecordError::Invalid {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), RecordError> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| RecordError::Invalid {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    text.push('\n');
    write_atomic(path, text.as_bytes())
}

/// Writes through a temporary file, fsyncs it and renames it over `path`.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), RecordError> {
    let tmp = path.with_extension("tmp");
    let mut f = File::create(&tmp).map_err(io("create", &tmp))?;
    f.write_all(bytes).map_err(io("write", &tmp))?;
    f.sync_all().map_err(io("fsync", &tmp))?;
    fs::rename(&tmp, path).map_err(io("rename into place", path))
}

/// Writes `doc` as `dir/results.json` (atomically, streamed: a fleet's document is large): a
/// folder made by a fleet's merge.
pub fn write_results(dir: &Path, doc: &ResultsDoc) -> Result<PathBuf, RecordError> {
    let path = dir.join(RESULTS_FILE);
    let tmp = path.with_extension("tmp");
    let file = File::create(&tmp).map_err(io("create", &tmp))?;
    let mut out = std::io::BufWriter::new(file);
    serde_json::to_writer_pretty(&mut out, doc).map_err(|e| RecordError::Invalid {
        path: path.clone(),
        message: e.to_string(),
    })?;
    out.write_all(b"\n").map_err(io("write", &tmp))?;
    let file = out
        .into_inner()
        .map_err(|e| io("write", &tmp)(e.into_error()))?;
    file.sync_all().map_err(io("fsync", &tmp))?;
    fs::rename(&tmp, &path).map_err(io("rename into place", &path))?;
    Ok(path)
}
