//! Written data shaped by the spec, checked on the bytes on the storage: a class with
//! `compress = "3:1"` overwrites a file that zstd (its default level) compresses 2.7 to 3.3:1, and
//! one with `dedupe = "2:1"` leaves 1.9 to 2.1 times as many 4 KiB units as distinct ones. The
//! default data is incompressible at any window: under 1.05:1 with `zstd -3`, `zstd --long=27`,
//! `lz4` and `gzip`, and no 4 KiB unit twice. Each run records what its writes carried
//! (`write_data` in results.json) and its report's method section says it.

use super::scenario::Scenario;
use super::scenario::run_spec;
use std::collections::HashSet;
use std::process::Command;

const FILE: u64 = 32 << 20;

/// Overwrites a file rigel creates with sequential 128 KiB writes shaped by `keys`, long enough
/// to cover it several times; returns its bytes, after checking that the run recorded `kind` of
/// data with `said` in its report's words.
fn written(keys: &str, kind: &str, said: &str) -> Vec<u8> {
    let tmp = Scenario::new();
    let file = tmp.path().join("data.bin");
    let spec = format!(
        "[[target]]\npath = \"{}\"\nsize = \"{FILE}\"\n\n[run]\nduration = \"3s\"\n\n\
         [class.w]\nsize = \"128KiB\"\naccess = \"sequential\"\nmix = \"write\"\n{keys}\n\n\
         [matrix]\nshape = \"point\"\nw = \"1\"\n",
        file.display()
    );
    let doc = run_spec(tmp.path(), &spec);
    let bytes = doc["points"][0]["classes"][0]["write"]["bytes"]
        .as_u64()
        .expect("bytes written");
    // The window alone wrote the file over twice: nothing of its random fill is left.
    assert!(bytes >= 2 * FILE, "only {bytes} bytes written");
    assert_eq!(
        doc["write_data"][0]["class"], "w",
        "{:#}",
        doc["write_data"]
    );
    assert_eq!(
        doc["write_data"][0]["kind"], kind,
        "{:#}",
        doc["write_data"]
    );
    let report = std::fs::read_to_string(tmp.path().join("run/report.md")).expect("report.md");
    let method = report
        .split("## What was tested")
        .nth(1)
        .expect("a method section");
    assert!(
        method.contains(&format!("- **Write data:** w: {said}")),
        "{method}"
    );
    std::fs::read(&file).expect("the file")
}

/// zstd's ratio on `data` at its default level (3), by the zstd command.
fn zstd_ratio(data: &[u8]) -> f64 {
    ratio(data, "zstd", &["-3", "-c", "-q"])
}

/// The ratio a compressor command (writing to stdout) gets on `data`.
fn ratio(data: &[u8], tool: &str, args: &[&str]) -> f64 {
    let tmp = tempfile::NamedTempFile::new_in("/dev/shm").expect("a temp file");
    std::fs::write(tmp.path(), data).expect("written");
    let out = Command::new(tool)
        .args(args)
        .arg(tmp.path())
        .output()
        .unwrap_or_else(|e| panic!("{tool} runs (.ci/run installs it): {e}"));
    assert!(out.status.success(), "{tool} failed");
    data.len() as f64 / out.stdout.len() as f64
}

#[test]
#[serial_test::parallel]
fn default_data_is_incompressible_at_any_window_and_unique_per_unit() {
    let data = written(
        "",
        "fresh",
        "fresh random bytes in every 4 KiB unit written",
    );
    for (tool, args) in [
        ("zstd", &["-3", "-c", "-q"][..]),
        ("zstd", &["-3", "--long=27", "-c", "-q"][..]),
        ("lz4", &["-c", "-q"][..]),
        ("gzip", &["-c"][..]),
    ] {
        let r = ratio(&data, tool, args);
        assert!(r < 1.05, "{tool} {args:?}: {r:.3}:1");
    }
    let units = data.chunks(4096).count();
    let distinct: HashSet<&[u8]> = data.chunks(4096).collect();
    assert_eq!(distinct.len(), units, "4 KiB units repeated");
}

#[test]
#[ignore = "needs zstd"]
#[serial_test::parallel]
fn compress_3_to_1_writes_data_zstd_compresses_3_to_1() {
    let data = written(
        "compress = \"3:1\"",
        "shaped",
        "shaped 4 KiB units: compress 3:1",
    );
    let ratio = zstd_ratio(&data);
    assert!((2.7..=3.3).contains(&ratio), "zstd -3 ratio {ratio:.3}");
}

#[test]
#[serial_test::parallel]
fn dedupe_2_to_1_leaves_half_the_units_distinct() {
    let data = written(
        "dedupe = \"2:1\"",
        "shaped",
        "shaped 4 KiB units: compress 1:1, dedupe 2:1",
    );
    let units = data.chunks(4096).count();
    let distinct: HashSet<&[u8]> = data.chunks(4096).collect();
    let ratio = units as f64 / distinct.len() as f64;
    assert!(
        (1.9..=2.1).contains(&ratio),
        "{units} units, {} distinct: {ratio:.3}",
        distinct.len()
    );
}
