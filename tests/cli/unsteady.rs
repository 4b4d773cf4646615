//! A run throttled on purpose halfway through its one point (the blkio read-IOPS limit on a loop
//! device): the run warns that the point was not steady, and the report draws the step.

use super::scenario::Scenario;
use rigel_testkit::LoopDevice;
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
#[serial_test::serial]
fn a_point_throttled_halfway_is_not_steady() {
    let lo = LoopDevice::new(64 << 20);
    let tmp = Scenario::new();
    let spec = tmp.path().join("step.toml");
    let text = format!(
        "[[target]]\npath = \"{}\"\n\n[run]\nduration = \"6s\"\nwarmup = \"0s\"\n\n\
         [class.rd]\nsize = \"4KiB\"\n\n[matrix]\nrd = \"4\"\n",
        lo.dev()
    );
    std::fs::write(&spec, text).expect("spec written");
    let out = tmp.path().join("run");
    let child = Command::new(env!("CARGO_BIN_EXE_rigel"))
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rigel runs");
    // About halfway through the 6-second window: reads limited to 300 IOPS.
    std::thread::sleep(Duration::from_millis(3000));
    lo.throttle_reads(300);
    let done = child.wait_with_output().expect("rigel finishes");
    lo.throttle_reads(0);
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{stderr}");
    // Said once on the terminal: in page 1's words (stdout) or, when page 1 does not say it, in
    // the warning list (stderr).
    let stdout = String::from_utf8_lossy(&done.stdout);
    let said = |t: &str| t.matches("not steady, per-second IOPS max/min").count();
    assert_eq!(said(&stdout) + said(&stderr), 1, "{stdout}\n{stderr}");
    let md = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    // Page 1 says it beside the answers (or once for them all), not in a list pages later.
    let page1 = md.split("<!-- page -->").next().unwrap_or_default();
    assert!(
        page1.contains("Warning (unsteady)") && page1.contains("not steady"),
        "{md}"
    );
    // The time series of the point, with the step: the last second far below the first.
    let svg = std::fs::read_to_string(out.join("chart-seconds-1.svg")).expect("time series");
    assert!(svg.contains("not steady"), "{svg}");
    let doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("results.json")).expect("results.json"),
    )
    .expect("results parse");
    let ivs = doc["points"][0]["classes"][0]["intervals"]
        .as_array()
        .expect("intervals");
    let iops = |i: usize| ivs[i]["iops"].as_f64().unwrap_or(0.0);
    assert!(iops(0) > 3.0 * iops(ivs.len() - 2), "{ivs:?}");
    assert!(iops(ivs.len() - 2) < 400.0, "{ivs:?}");
}
