//! A test's scene, set once instead of in each test file: a temp folder on tmpfs, the targets in
//! it (files, loop devices), a spec built from parts as TOML data (never `format!`-ed text, so a
//! path with a quote or a value with a newline stays one value), the run, and the folder it wrote
//! read back.

use super::builder::{Output, results, rigel};
use rigel_testkit::LoopDevice;
use rigel_testkit::{BlockTrace, Request};
use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// A temp folder on `/dev/shm`: O_DIRECT works there, nothing reaches the root disk, and it is
/// removed when the scenario drops.
pub struct Scenario {
    dir: tempfile::TempDir,
}

impl Scenario {
    pub fn new() -> Scenario {
        let dir = tempfile::tempdir_in("/dev/shm").expect("a tmpfs temp dir");
        Scenario { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `name` inside the folder.
    pub fn join(&self, name: impl AsRef<Path>) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A file target of `len` zero bytes, written (no hole: every block is backed).
    pub fn file(&self, name: &str, len: usize) -> PathBuf {
        let path = self.join(name);
        std::fs::write(&path, vec![0; len]).expect("target file written");
        path
    }

    /// A loop device of `size` bytes over a file in `/dev/shm`, detached when it drops.
    pub fn loop_device(&self, size: u64) -> LoopDevice {
        LoopDevice::new(size)
    }

    /// Writes `spec` as `name` in the folder and returns its path.
    pub fn spec(&self, name: &str, spec: &Spec) -> PathBuf {
        let path = self.join(name);
        std::fs::write(&path, spec.text()).expect("spec written");
        path
    }

    /// `rigel run SPEC --out FOLDER/out` plus `args`; the folder is read back from the run.
    pub fn run(&self, spec: &Path, out: &str, args: &[&str]) -> Run {
        let folder = self.join(out);
        let output = rigel()
            .arg("run")
            .arg(spec)
            .arg("--out")
            .arg(&folder)
            .args(args)
            .run();
        Run { output, folder }
    }
}

/// A finished `rigel run`: its output and the run folder it was asked to write.
pub struct Run {
    pub output: Output,
    pub folder: PathBuf,
}

impl Run {
    /// Asserts the exit code (showing both streams when it differs).
    #[track_caller]
    pub fn code(self, expected: i32) -> Run {
        Run {
            output: self.output.code(expected),
            folder: self.folder,
        }
    }

    /// The folder's `results.json`, parsed.
    #[track_caller]
    pub fn results(&self) -> serde_json::Value {
        results(&self.folder)
    }
}

/// A spec as TOML data: tables and keys set by path, written out by the `toml` crate.
#[derive(Clone, Default)]
pub struct Spec {
    table: Table,
}

impl Spec {
    /// A spec whose `[spec] name` is `name` (the run folder's name starts with it).
    pub fn named(name: &str) -> Spec {
        Spec::default().set("spec.name", name)
    }

    /// Sets `path` (dotted: `"run.duration"`, `"class.small.size"`) to `value`, making the tables
    /// on the way. A key that itself holds a dot (`[expect] "small.iops"`) is set with [`Spec::at`].
    pub fn set(self, path: &str, value: impl Into<Value>) -> Spec {
        let keys: Vec<&str> = path.split('.').collect();
        self.at(&keys, value)
    }

    /// Sets the key at the end of `keys` (each one a table name, the last one the key).
    pub fn at(mut self, keys: &[&str], value: impl Into<Value>) -> Spec {
        let (last, tables) = keys.split_last().expect("a key");
        let mut table = &mut self.table;
        for name in tables {
            table = table
                .entry(name.to_string())
                .or_insert_with(|| Value::Table(Table::new()))
                .as_table_mut()
                .unwrap_or_else(|| panic!("{name} is a table in this spec"));
        }
        table.insert(last.to_string(), value.into());
        self
    }

    /// Adds a `[[target]]` at `path` with more string `keys` (`("size", "16MiB")`).
    pub fn target(self, path: impl AsRef<Path>, keys: &[(&str, &str)]) -> Spec {
        let mut target = Table::new();
        for (key, value) in keys {
            target.insert(key.to_string(), (*value).into());
        }
        self.target_table(path, target)
    }

    /// Adds a `[[target]]` at `path` that the spec consents to write (`destructive = true`).
    pub fn destructive_target(self, path: impl AsRef<Path>) -> Spec {
        self.target_table(
            path,
            Table::from_iter([("destructive".into(), true.into())]),
        )
    }

    /// Adds a `[[target]]` at `path` with `keys` of any type.
    pub fn target_table(mut self, path: impl AsRef<Path>, keys: Table) -> Spec {
        let path = path.as_ref().to_str().expect("a UTF-8 target path");
        let mut target = Table::new();
        target.insert("path".into(), path.into());
        target.extend(keys);
        self.table
            .entry("target")
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .expect("target is an array of tables")
            .push(Value::Table(target));
        self
    }

    /// The spec's text, as a file holds it.
    pub fn text(&self) -> String {
        toml::to_string(&self.table).expect("a spec serialises")
    }
}

// ---- traced (from its own file) ----
// One rigel run of a spec written to a folder, and one on a loop device under a trace of the
// requests the kernel issued to it.

/// Writes `spec` (its whole text) into `dir` and runs it with `--allow-destructive` into
/// `dir/run`; returns the run's results.json.
pub fn run_spec(dir: &Path, spec: &str) -> serde_json::Value {
    let path = dir.join("spec.toml");
    std::fs::write(&path, spec).expect("spec written");
    let out = dir.join("run");
    rigel()
        .arg("run")
        .arg(&path)
        .arg("--allow-destructive")
        .arg("--out")
        .arg(&out)
        .run()
        .code(0);
    results(&out)
}

/// Runs `spec` as [`run_spec`] does, tracing `dev`'s issued requests; returns them and the
/// run's results.json.
pub fn traced_run(dev: &LoopDevice, spec: &str) -> (Vec<Request>, serde_json::Value) {
    let tmp = Scenario::new();
    let trace = BlockTrace::start(&dev.numbers().expect("numbers"), 64 << 10);
    let doc = run_spec(tmp.path(), spec);
    (trace.stop(), doc)
}
