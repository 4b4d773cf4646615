//! fio's job files and command line for rigel (`rigel fio job.fio`): fio's jobs become an ordinary
//! spec, which then runs through the same pipeline as `rigel run`. No second engine: this crate
//! only translates; `cli::fio` runs and prints. docs/fio.md lists every option and its rule.

#![forbid(unsafe_code)]

mod class;
mod error;
pub mod jobfile;
mod jobs;
pub mod options;
mod pacing;
mod placement;
mod to_spec;
pub mod units;
mod value;

pub use error::{FioError, Loc};
pub use jobfile::JOB_FILE_BYTES;

use std::path::PathBuf;

/// What `rigel fio` was given.
#[derive(Clone, Debug, Default)]
pub struct Input {
    /// Job files, in order.
    pub files: Vec<PathBuf>,
    /// fio's own options from the command line (`--name=r`, `--rw=randread`, `--runtime=30`).
    pub options: Vec<String>,
    /// `--set option=value`: wins over every job's own setting (a device for a file's filename).
    pub overrides: Vec<String>,
}

/// The jobs as a spec.
#[derive(Clone, Debug)]
pub struct Translation {
    pub name: String,
    pub spec_toml: String,
    /// What differs from fio in this translation, one line each (printed as notes).
    pub notes: Vec<String>,
    /// Some job writes.
    pub writes: bool,
}

/// Reads and translates `input`; `var` looks up environment variables for `${VAR}`.
pub fn translate(
    input: &Input,
    var: &dyn Fn(&str) -> Option<String>,
) -> Result<Translation, FioError> {
    let ncpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    let env = jobfile::Env { ncpus, var };
    let mut sections = jobfile::command_line(&input.options, &env)?;
    for f in &input.files {
        sections.extend(jobfile::read(f, &env)?);
    }
    let overrides = input
        .overrides
        .iter()
        .map(|o| {
            let at = Loc {
                file: "--set".to_owned(),
                line: 0,
            };
            match o.split_once('=') {
                Some((n, v)) => Ok(jobfile::Setting {
                    name: n.trim().to_owned(),
                    value: Some(v.trim().to_owned()),
                    at,
                }),
                None => Err(FioError::Syntax {
                    at,
                    why: format!("`{o}`: --set takes OPTION=VALUE (--set filename=/dev/loop0)"),
                }),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let jobs = jobs::resolve(&sections, &overrides)?;
    let mut classes: Vec<class::Class> = Vec::new();
    let mut notes = Vec::new();
    for job in &jobs {
        let name = unique_name(&job.name, &classes);
        let c = class::translate(job, name)?;
        notes.extend(c.notes.iter().cloned());
        classes.push(c);
    }
    let name = spec_name(input, &jobs[0].name);
    let title = title(input);
    let spec_toml = to_spec::build(&name, &title, &classes, &jobs[0].at)?;
    Ok(Translation {
        name,
        spec_toml,
        notes,
        writes: classes.iter().any(|c| c.writes),
    })
}

/// A class name from a job name: letters, digits, `_` and `-`; a repeated name gets `-2`, `-3`.
fn unique_name(job: &str, taken: &[class::Class]) -> String {
    let mut base: String = job
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if base.is_empty() || !base.starts_with(|c: char| c.is_ascii_alphabetic()) {
        base = format!("job_{base}");
    }
    let mut name = base.clone();
    let mut n = 2;
    while taken.iter().any(|c| c.name == name) {
        name = format!("{base}-{n}");
        n += 1;
    }
    name
}

/// The first job file's stem, else the first job's name: one path component.
fn spec_name(input: &Input, first_job: &str) -> String {
    let raw = input.files.first().and_then(|f| f.file_stem()).map_or_else(
        || first_job.to_owned(),
        |s| s.to_string_lossy().into_owned(),
    );
    let clean: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    match clean.as_str() {
        "" | "." | ".." => "fio".to_owned(),
        _ => clean,
    }
}

fn title(input: &Input) -> String {
    let mut parts: Vec<String> = input.options.clone();
    parts.extend(input.files.iter().map(|f| f.display().to_string()));
    parts.join(" ")
}
