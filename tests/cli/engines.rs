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
