//! A test's scene, set once instead of in each test file: a temp folder on tmpfs, the targets in
//! it (files, loop devices), a spec built from parts as TOML data (never `format!`-ed text, so a
//! path with a quote or a value with a newline stays one value), the run, and the folder it wrote
//! read back.

use super::builder::{Output, results, rigel};
use super::faults::faultfs::{self, Faults};
use rigel_testkit::LoopDevice;
use rigel_testkit::{BlockTrace, Request};
use std::path::{Path, PathBuf};
use std::time::Duration;
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

    /// Writes `spec` as `spec.toml`, runs it into `run` and asserts it exited 0: a test's one run.
    #[track_caller]
    pub fn run_spec(&self, spec: &Spec) -> Run {
        let path = self.spec("spec.toml", spec);
        self.run(&path, "run", &[]).code(0)
    }

    /// [`Scenario::run_spec`], in a scene of its own, of 4 KiB reads (class `rd`, no warmup)
    /// through a loop device over a FUSE file with `faults` (tests/support/faultfs.rs: a service time, a burst bucket), the
    /// spec finished by `more` (the loads, the points' length, a `[drain]`). What the burst and
    /// drain tests read back: the results, what the terminal said, when the bucket ran dry.
    #[track_caller]
    pub fn reads_over_faultfs(faults: Faults, more: impl FnOnce(Spec) -> Spec) -> FaultRun {
        let scene = Scenario::new();
        let fs = faultfs::mounted(faults);
        let dev = fs.loop_device().expect("a loop device over the FUSE file");
        let spec = Spec::default()
            .target(&dev.dev, &[])
            .set("run.warmup", "0s")
            .set("class.rd.size", "4KiB");
        let run = scene.run_spec(&more(spec));
        let said = run.said();
        eprintln!(
            "{said}\n(at most {} I/Os at once in the file)",
            fs.peak_parallel()
        );
        FaultRun {
            doc: run.results(),
            said,
            dry: fs.bucket_dry_after(),
            folder: run.folder,
            _scene: scene,
        }
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

    /// What the terminal said: stdout (page 1's words in the closing summary), then stderr (the
    /// warning list); a warning is said once, in one or the other.
    pub fn said(&self) -> String {
        format!("{}\n{}", self.output.stdout, self.output.stderr)
    }
}

/// A [`Scenario::reads_over_faultfs`] run, its FUSE file unmounted; its folder kept while it lives.
pub struct FaultRun {
    pub doc: serde_json::Value,
    /// [`Run::said`].
    pub said: String,
    /// When the file's burst bucket ran dry, after its first I/O (`None`: it never did).
    pub dry: Option<Duration>,
    pub folder: PathBuf,
    _scene: Scenario,
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
