//! `cargo xtask fixtures`: the checked-in results documents that the report tests render. The model
//! fixtures come from the report tests' own builder (one copy of it, included from the crate's
//! tests), the real ones from short runs of rigel itself.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The report tests' queueing-model fixture builder, used here as it is there.
#[allow(dead_code)]
#[path = "../../crates/rigel-report/src/tests/fixture.rs"]
mod model_builder;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("encoding {stem}: {source}")]
    Json {
        stem: String,
        source: serde_json::Error,
    },
    #[error("`{command}` failed ({status})")]
    Command {
        command: String,
        status: std::process::ExitStatus,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_owned(),
        source,
    }
}

/// The repository's root: xtask's manifest sits one folder below it.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ has a parent")
        .to_owned()
}

fn fixtures_dir() -> PathBuf {
    repo().join("tests/fixtures")
}

/// Rewrites `tests/fixtures/results-<stem>.json` for every scenario of the model.
pub fn model() -> Result<(), Error> {
    let dir = fixtures_dir();
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    for (stem, scenario) in model_builder::scenarios() {
        let doc = model_builder::build(&scenario);
        let text = serde_json::to_string_pretty(&doc).map_err(|source| Error::Json {
            stem: stem.into(),
            source,
        })? + "\n";
        let dest = dir.join(format!("results-{stem}.json"));
        std::fs::write(&dest, text).map_err(io(&dest))?;
        println!("wrote {}", dest.display());
    }
    Ok(())
}

/// Runs every `tests/fixtures/specs/*.toml` for real (scratch files on /dev/shm) and keeps its
/// `results.json` as `tests/fixtures/results-real-<spec>.json`.
pub fn real() -> Result<(), Error> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let build = || {
        let mut c = Command::new(&cargo);
        c.current_dir(repo())
            .args(["run", "--quiet", "-p", "rigel", "--bin", "rigel", "--"]);
        c
    };
    let specs = fixtures_dir().join("specs");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&specs)
        .map_err(io(&specs))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    names.sort();
    for spec in names {
        let scratch = Path::new("/dev/shm");
        let tmp = tempfile::tempdir_in(scratch).map_err(io(scratch))?;
        let out = tmp.path().join("run");
        let mut run = build();
        run.arg("run")
            .arg(&spec)
            .arg("--set")
            .arg(format!("dir={}", tmp.path().display()))
            .arg("--out")
            .arg(&out);
        let status = run.status().map_err(io(Path::new("cargo")))?;
        if !status.success() {
            return Err(Error::Command {
                command: format!("rigel run {}", spec.display()),
                status,
            });
        }
        let stem = spec
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let results = out.join("results.json");
        let text = std::fs::read_to_string(&results).map_err(io(&results))?;
        let dest = fixtures_dir().join(format!("results-real-{stem}.json"));
        std::fs::write(&dest, text).map_err(io(&dest))?;
        println!("wrote {}", dest.display());
    }
    Ok(())
}
