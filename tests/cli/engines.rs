//! The engines the truth tests run under besides the default: each test written for io_uring
//! (Little's law, the device's counters, durable and grouped writes, size mixes, verification,
//! the journal) runs again with `engine = "psync"` and `engine = "libaio"` in its spec's `[run]`,
//! and must hold the same way: the engines differ in how I/O reaches the kernel, never in what
//! the figures mean.

/// `spec` with `engine = "<engine>"` at the top of its `[run]` table (`None`: unchanged, the
/// default engine). Panics when the spec has no `[run]` table (a test's mistake).
pub fn on_engine(spec: &str, engine: Option<&str>) -> String {
    let Some(engine) = engine else {
        return spec.to_string();
    };
    assert!(spec.contains("[run]\n"), "no [run] table in {spec}");
    spec.replacen("[run]\n", &format!("[run]\nengine = \"{engine}\"\n"), 1)
}

/// Rewrites the spec file at `path` to run on `engine` ([`on_engine`]).
pub fn set_engine(path: &std::path::Path, engine: Option<&str>) {
    let text = std::fs::read_to_string(path).expect("spec read");
    std::fs::write(path, on_engine(&text, engine)).expect("spec written");
}

/// The engine each of `doc`'s points ran its classes on, checked to be `engine` for every class.
pub fn ran_on(doc: &serde_json::Value, engine: &str) {
    for p in doc["points"].as_array().expect("points") {
        let engines = p["engines"]
            .as_array()
            .expect("the engines recorded per point");
        assert!(!engines.is_empty(), "no engine recorded: {p}");
        for e in engines {
            assert_eq!(e["name"], engine, "{e}");
        }
    }
}

/// A psync class deeper than the engine's threads (one per I/O in flight, 256 per worker) is
/// refused by `check` and `plan` where its engine is written, with the fix, not when the run
/// starts; the same depth over two workers fits; `--engine psync` is held to the same rule.
#[test]
#[serial_test::parallel]
fn a_psync_class_deeper_than_its_threads_is_refused_at_plan_time() {
    use super::builder::rigel;
    use super::scenario::{Scenario, Spec};
    let tmp = Scenario::new();
    let file = tmp.file("t.dat", 1 << 20);
    let deep = |engine: Option<&str>, workers: i64| {
        let spec = Spec::named("deep")
            .target(&file, &[])
            .set("run.duration", "1s")
            .set("run.workers", workers)
            .set("class.deep.size", "4KiB")
            .set("matrix.deep", "300");
        match engine {
            Some(e) => spec.set("class.deep.engine", e),
            None => spec,
        }
    };
    let spec = tmp.spec("deep.toml", &deep(Some("psync"), 1));
    for cmd in ["check", "plan"] {
        let out = rigel().arg(cmd).arg(&spec).run().code(2);
        out.stderr_has("deep.toml:")
            .stderr_has("300 I/Os in flight on one worker")
            .stderr_has("at most 256")
            .stderr_has("use the libaio or io_uring engine");
        let at = out
            .stderr
            .lines()
            .find(|l| l.contains("deep.toml:"))
            .expect("a located line");
        // file:line:col, at the class's `engine` key.
        let loc: Vec<&str> = at
            .rsplit("deep.toml:")
            .next()
            .unwrap_or("")
            .split(':')
            .collect();
        assert!(
            loc.len() >= 2 && loc[0].trim().parse::<u32>().is_ok(),
            "{at}"
        );
    }
    // Over two workers each holds 150: the engine starts them.
    let two = tmp.spec("two.toml", &deep(Some("psync"), 2));
    rigel().arg("check").arg(&two).run().code(0);
    // io_uring and libaio have no such cap.
    let ring = tmp.spec("ring.toml", &deep(None, 1));
    rigel().arg("check").arg(&ring).run().code(0);
    rigel()
        .args(["check", "--engine", "psync"])
        .arg(&ring)
        .run()
        .code(2)
        .stderr_has("--engine psync")
        .stderr_has("at most 256");
}
