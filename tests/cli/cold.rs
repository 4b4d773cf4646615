//! A first buffered run after rigel made its test file: the fill went around the page cache
//! (O_DIRECT), so point 1 reads cold while later points find the cache warm. Without a warmup the
//! run says so; a run with a warmup, or on a file kept from an earlier run, does not.

use super::builder::rigel;
use std::path::Path;

fn buffered(dir: &Path, file: &str, warmup: &str, run: u32) -> super::Output {
    let spec = dir.join(format!("{file}.toml"));
    std::fs::write(
        &spec,
        format!(
            "[[target]]\npath = \"{}\"\nsize = \"8MiB\"\n\n[run]\ndirect = false\n\
             duration = \"300ms\"\nwarmup = \"{warmup}\"\n\n[class.small]\nsize = \"4KiB\"\n\n\
             [matrix]\nsmall = \"1, 2\"\n",
            dir.join(file).display()
        ),
    )
    .expect("spec written");
    let out = dir.join(format!("run-{run}"));
    let r = rigel().arg("run").arg(&spec).arg("--out").arg(&out).run();
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    r
}

#[test]
#[serial_test::parallel]
fn a_first_buffered_run_on_a_file_just_filled_is_warned_cold_unless_warmed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cold = "buffered point 1 starts cold";
    let first = buffered(tmp.path(), "a.bin", "0s", 1);
    assert!(first.stderr.contains(cold), "{}", first.stderr);
    assert!(
        first.stderr.contains("a.bin just filled with O_DIRECT"),
        "{}",
        first.stderr
    );
    // The same file again: read by the first run, kept, not filled again.
    let again = buffered(tmp.path(), "a.bin", "0s", 2);
    assert!(!again.stderr.contains(cold), "{}", again.stderr);
    // A fresh file with a warmup: the warmup reads it into the cache.
    let warmed = buffered(tmp.path(), "b.bin", "500ms", 3);
    assert!(!warmed.stderr.contains(cold), "{}", warmed.stderr);
}
