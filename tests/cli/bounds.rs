//! What rigel holds and how long it takes stay bounded by what was measured, not by what a spec or
//! a folder claims: a 5,000-level grid ends on Ctrl-C at once, and the readers refuse sizes and
//! figures that cannot be (issue 33, items 5 and 6).

use super::builder::rigel;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn tmpfs_dir() -> tempfile::TempDir {
    tempfile::tempdir_in("/dev/shm").expect("a tmpfs temp dir")
}

/// Two classes × 5,000 levels of 10 ms points (ORION's basic shape: 9,998 points) on a test file
/// rigel creates.
fn grid_spec(dir: &Path) -> PathBuf {
    let text = format!(
        "[spec]\nname = \"grid\"\n\n[[target]]\npath = \"{}/data.bin\"\nsize = \"16MiB\"\n\n\
         [run]\nduration = \"10ms\"\n\n[class.small]\nsize = \"4KiB\"\n\n\
         [class.large]\nsize = \"64KiB\"\n\n[matrix]\nshape = \"basic\"\nsmall = \"1..5000\"\n\
         large = \"1..5000\"\n",
        dir.display()
    );
    let path = dir.join("grid.toml");
    std::fs::write(&path, text).expect("spec written");
    path
}

/// Ctrl-C on a 5,000-level grid: the run stops at once and its results are written within a
/// second; the ORION grids then cost the points that ran, not 5,000 × 5,000 cells each looked up
/// over every point (103-111 s before). The exit bound is loose for a debug build on a loaded
/// host; the grids' own cost is in benches.
#[test]
#[serial_test::serial]
fn ctrl_c_on_a_5000_level_grid_ends_the_run_at_once() {
    let tmp = tmpfs_dir();
    let out = tmp.path().join("run");
    let child = rigel()
        .arg("run")
        .arg(grid_spec(tmp.path()))
        .arg("--out")
        .arg(&out)
        .spawn();
    let jsonl = out.join("results.jsonl");
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&jsonl).map_or(0, |t| t.lines().count()) < 20
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    super::faults::signal(&child, "-INT");
    let signalled = Instant::now();
    while !out.join("results.json").exists() && signalled.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let written = signalled.elapsed();
    let done = child.wait_with_output().expect("rigel exits");
    let ended = signalled.elapsed();
    assert_eq!(
        done.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(
        written < Duration::from_secs(1),
        "results written {written:?} after SIGINT"
    );
    assert!(
        ended < Duration::from_secs(15),
        "rigel exited {ended:?} after SIGINT"
    );
    let iops = std::fs::read_dir(&out)
        .expect("run folder")
        .filter_map(|e| e.ok())
        .find(|e| e.file_name().to_string_lossy().ends_with("_iops.csv"))
        .expect("the ORION iops grid is written");
    let text = std::fs::read_to_string(iops.path()).expect("iops.csv");
    assert!(text.lines().count() > 5_000, "a row per large level");
}
