//! One rigel run of a spec written to a folder, and one on a loop device under a trace of the
//! requests the kernel issued to it.

use super::builder::{results, rigel};
use super::scenario::Scenario;
use rigel_testkit::{BlockTrace, LoopDevice, Request};
use serde_json::Value;
use std::path::Path;

/// Writes `spec` (its whole text) into `dir` and runs it with `--allow-destructive` into
/// `dir/run`; returns the run's results.json.
pub fn run_spec(dir: &Path, spec: &str) -> Value {
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
pub fn traced_run(dev: &LoopDevice, spec: &str) -> (Vec<Request>, Value) {
    let tmp = Scenario::new();
    let trace = BlockTrace::start(&dev.numbers().expect("numbers"), 64 << 10);
    let doc = run_spec(tmp.path(), spec);
    (trace.stop(), doc)
}
