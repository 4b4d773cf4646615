//! What was not measured is said: sparse files on a real filesystem (ext4 on a loop device over
//! tmpfs), whose holes read as zeros without the device reading anything. `rigel orion` names
//! the holes before the run and the device's own read count after it; `rigel check` and
//! `rigel plan` know the holes, and a file on tmpfs has no device below it, without any I/O.

use super::builder::rigel;
use super::orion::{LunDir, one_point};
use super::scenario::Scenario;
use rigel_testkit::{LoopDevice, is_root};
use std::path::Path;
use std::process::Command;

/// ext4 made on a loop device and mounted on a temp dir; unmounted on drop, before the device.
struct Ext4 {
    dir: tempfile::TempDir,
    _dev: LoopDevice,
}

impl Ext4 {
    fn new(size: u64) -> Ext4 {
        assert!(is_root(), "mounting needs root (.ci/run runs as root)");
        let dev = LoopDevice::new(size);
        let mkfs = Command::new("mkfs.ext4")
            .args(["-q", "-F", dev.dev()])
            .status()
            .expect("mkfs.ext4 (e2fsprogs)");
        assert!(mkfs.success(), "mkfs.ext4 failed");
        let dir = tempfile::tempdir().expect("a mount point");
        let mount = Command::new("mount")
            .arg(dev.dev())
            .arg(dir.path())
            .status()
            .expect("mount");
        assert!(mount.success(), "cannot mount {}", dev.dev());
        Ext4 { dir, _dev: dev }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Ext4 {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// `truncate -s SIZE` of each name under `dir`; their paths.
fn truncated(dir: &Path, names: &[&str], size: u64) -> Vec<String> {
    names
        .iter()
        .map(|n| {
            let p = dir.join(n);
            std::fs::File::create(&p)
                .and_then(|f| f.set_len(size))
                .expect("a sparse file");
            p.display().to_string()
        })
        .collect()
}

/// Not timing-sensitive: the counts are the device's own and rigel's, whatever the host's load.
#[test]
#[serial_test::parallel]
fn orion_over_sparse_files_names_the_holes_and_the_devices_read_count() {
    let fs = Ext4::new(128 << 20);
    let files = truncated(fs.path(), &["a.img", "b.img"], 2 << 30);
    let refs: Vec<&str> = files.iter().map(String::as_str).collect();
    let d = LunDir::new().with("orion", &refs);
    // `-num_disks 1` sizes simple's grid as for one disk (small 1 to 5, large 1 to 2): every point
    // still reads both files.
    let out = d
        .orion(&[
            "-run",
            "simple",
            "-num_disks",
            "1",
            "-duration",
            "1",
            "-cache_size",
            "0",
        ])
        .code(0);
    for f in &files {
        assert!(
            out.stderr.contains(&format!(
                "warning: {f}: 2 GiB in 1 hole (0 B – 2 GiB) of its 2 GiB hold no data"
            )),
            "{}",
            out.stderr
        );
    }
    // Every point's reads were holes: the device completed none (or a stray few of ext4's own)
    // for the hundreds of thousands rigel issued, and one warning says so with both counts.
    let (dev, issued) = device_counts(&out.stderr);
    assert!(issued > 10_000.0 && dev < issued * 0.01, "{}", out.stderr);
}

/// From `the device (loopN) completed R reads (…) … while rigel issued N reads`: R and N.
fn device_counts(stderr: &str) -> (f64, f64) {
    let line = stderr
        .lines()
        .find(|l| l.contains("of rigel's read rate reached it"))
        .unwrap_or_else(|| panic!("no device warning:\n{stderr}"));
    assert!(
        line.contains("the device (loop")
            && line.contains("served from page cache, holes or a cache above the device"),
        "{line}"
    );
    let count = |after: &str| -> f64 {
        let rest = &line[line.find(after).expect(after) + after.len()..];
        let n: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == ',')
            .collect();
        n.replace(',', "").parse().expect("a count")
    };
    (count(") completed "), count("while rigel issued "))
}

#[test]
#[serial_test::parallel]
fn one_point_over_a_sparse_file_gives_the_device_and_rigel_counts() {
    let fs = Ext4::new(128 << 20);
    let files = truncated(fs.path(), &["s.img"], 1 << 30);
    let d = LunDir::new().with("orion", &[&files[0]]);
    let out = d.orion(&one_point("orion", "4")).code(0);
    let (dev, issued) = device_counts(&out.stderr);
    assert!(issued > 1000.0 && dev < issued * 0.1, "{}", out.stderr);
}

#[test]
#[serial_test::parallel]
fn check_and_plan_warn_of_holes_and_a_target_without_a_device() {
    let tmp = Scenario::new();
    let f = truncated(tmp.path(), &["t.img"], 64 << 20).remove(0);
    let spec = tmp.path().join("t.toml");
    std::fs::write(
        &spec,
        format!(
            "[[target]]\npath = \"{f}\"\n[run]\nduration = \"1s\"\n\n\
             [class.small]\nsize = \"4KiB\"\nmix = \"read\"\n\n[matrix]\nsmall = \"1\"\n"
        ),
    )
    .expect("spec written");
    for cmd in ["check", "plan"] {
        let out = rigel().arg(cmd).arg(&spec).run().code(0);
        out.stderr_has(&format!(
            "warning: {f}: 64 MiB in 1 hole (0 B – 64 MiB) of its 64 MiB hold no data"
        ));
        out.stderr_has(&format!("warning: {f}: no block device below it"));
    }
}

// ---- cold (from its own file) ----
// A first buffered run after rigel made its test file: the fill went around the page cache
// (O_DIRECT), so point 1 reads cold while later points find the cache warm. Without a warmup the
// run says so; a run with a warmup, or on a file kept from an earlier run, does not.

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
