//! What a point costs beyond its measured window, through the real binary on tmpfs: the gap
//! between one point's window and the next (ring, buffers, threads, the start barrier, the drain,
//! the durable record). Issue 14 bounds it at 10 ms; this test allows ten times that, which a
//! loaded shared machine does not break, and `benches/run.sh` measures the real figure.

use super::builder::rigel;
use super::scenario::Scenario;
use serde_json::Value;

const POINTS: usize = 50;
const WINDOW_MS: f64 = 50.0;
/// Ten times the 10 ms bound.
const LIMIT_MS: f64 = 100.0;

#[test]
#[serial_test::parallel]
fn a_point_costs_little_beyond_its_window() {
    let tmp = Scenario::new();
    let dir = tmp.path();
    let spec = dir.join("overhead.toml");
    std::fs::write(
        &spec,
        format!(
            r#"[spec]
name = "overhead"

[[target]]
path = "{}/data.bin"
size = "16MiB"

[run]
duration = "50ms"
warmup = "0s"

[class.small]
size = "4KiB"
mix = "read"

[matrix]
shape = "row"
small = "1..={POINTS}"
"#,
            dir.display()
        ),
    )
    .expect("spec written");
    let out_dir = dir.join("run");
    rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(&out_dir)
        .run()
        .code(0);
    let text = std::fs::read_to_string(out_dir.join("results.json")).expect("results.json");
    let doc: Value = serde_json::from_str(&text).expect("results.json parses");
    let points = doc["points"].as_array().expect("points");
    assert_eq!(points.len(), POINTS);
    let window = |p: &Value, k: &str| p["window"][k].as_u64().expect("window") as f64 / 1e6;
    let first = window(&points[0], "start_ns");
    let last = window(&points[POINTS - 1], "start_ns");
    // Every point's window, then what it costs before the next window starts.
    let per_point = (last - first) / (POINTS - 1) as f64;
    let overhead = per_point - WINDOW_MS;
    eprintln!("per-point overhead: {overhead:.1} ms (window {WINDOW_MS} ms)");
    assert!(
        overhead <= LIMIT_MS,
        "each point took {per_point:.1} ms for a {WINDOW_MS} ms window: {overhead:.1} ms of \
         overhead, more than {LIMIT_MS} ms"
    );
    assert!(overhead >= 0.0, "windows overlap: {overhead:.1} ms");
}
