//! The fallback where io_uring is refused (a real seccomp filter answering `io_uring_setup` with
//! EPERM, as `refused.rs` installs, or the `kernel.io_uring_disabled` sysctl): with the default
//! `engine = "auto"` `rigel run` says so once and runs a loop device on libaio (O_DIRECT) with
//! figures and the engine named per point in results.json, `rigel orion` completes and writes its
//! summary, and `engine = "io_uring"` still refuses as before.

use super::builder::{results, rigel};
use super::orion::{LunDir, one_point};
use super::refused::refused_rigel;
use rigel_testkit::LoopDevice;
use std::path::Path;

/// A spec of 4 KiB random reads at QD 4 on `target` with `engine` (none: the default, auto), for
/// 1 s: beside a loaded suite a loop device's worker went 0.5 s without completing an I/O.
fn device_spec(dir: &Path, target: &str, engine: Option<&str>) -> std::path::PathBuf {
    let path = dir.join("d.toml");
    let engine = engine
        .map(|e| format!("engine = \"{e}\"\n"))
        .unwrap_or_default();
    std::fs::write(
        &path,
        format!(
            "[[target]]\npath = \"{target}\"\n\n[run]\n{engine}duration = \"1s\"\n\
             warmup = \"200ms\"\n\n[class.small]\nsize = \"4KiB\"\nmix = \"read\"\n\n\
             [matrix]\nshape = \"point\"\nsmall = \"4\"\n"
        ),
    )
    .expect("spec written");
    path
}

/// Where io_uring is refused by `run` (rigel's arguments, as `refused_rigel` takes them):
/// `auto` (the default) runs the loop device on libaio, says why once and names the engine per
/// point; an explicit `io_uring` stops with the refusal, as before.
/// How a test runs rigel where io_uring is refused: (cwd, arguments) → (exit code, output).
type Refused<'a> = &'a dyn Fn(&Path, &[&str]) -> (i32, String);

fn falls_back_to_libaio(run: Refused<'_>) {
    let dev = LoopDevice::new(64 << 20);
    let tmp = tempfile::tempdir_in("/dev/shm").expect("a tmpfs temp dir");
    let out = tmp.path().join("auto");
    let spec = device_spec(tmp.path(), dev.dev(), None);
    let (code, text) = run(
        tmp.path(),
        &[
            "run",
            spec.to_str().expect("utf-8"),
            "--out",
            out.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(code, 0, "{text}");
    assert_eq!(
        text.matches("warning: io_uring is refused here").count(),
        1,
        "warned once (the engine line at the end names the fallback too): {text}"
    );
    let doc = results(&out);
    let p = &doc["points"][0];
    assert!(
        p["classes"][0]["total"]["iops"].as_f64().unwrap_or(0.0) > 100.0,
        "{p}"
    );
    let e = &p["engines"][0];
    assert_eq!(
        (&e["name"], &e["requested"]),
        (&"libaio".into(), &"auto".into()),
        "{e}"
    );
    assert!(
        e["fallback"]
            .as_str()
            .is_some_and(|f| f.contains("io_uring is refused")),
        "{e}"
    );
    let spec = device_spec(tmp.path(), dev.dev(), Some("io_uring"));
    let out = tmp.path().join("explicit");
    let (code, text) = run(
        tmp.path(),
        &[
            "run",
            spec.to_str().expect("utf-8"),
            "--out",
            out.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("io_uring is refused here"), "{text}");
    assert!(!out.exists(), "no run folder for a run that cannot start");
}

#[test]
#[serial_test::parallel]
fn under_seccomp_auto_runs_on_libaio_and_an_explicit_io_uring_still_refuses() {
    falls_back_to_libaio(&refused_rigel);
}

#[test]
#[serial_test::parallel]
fn under_seccomp_an_orion_run_completes_on_libaio_and_writes_its_summary() {
    let dev = LoopDevice::new(64 << 20);
    let d = LunDir::new().with("t", &[dev.dev()]);
    let args = [&["orion"][..], &one_point("t", "2")].concat();
    let (code, text) = refused_rigel(d.path(), &args);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("io_uring is refused here"), "{text}");
    let summary = d
        .outputs()
        .into_iter()
        .find(|n| n.ends_with("_summary.txt"))
        .unwrap_or_else(|| panic!("no summary written: {text}"));
    let summary = std::fs::read_to_string(d.path().join(summary)).expect("summary");
    // Figures were measured: the summary's small-I/O line has a rate.
    assert!(summary.contains("Maximum Small IOPS="), "{summary}");
}

/// `kernel.io_uring_disabled` set to 2 for as long as it lives (io_uring refused to every
/// process of the host), its old value put back on drop, a panic included.
struct Disabled(String);

const SYSCTL: &str = "/proc/sys/kernel/io_uring_disabled";

impl Disabled {
    fn set() -> Option<Disabled> {
        let old = std::fs::read_to_string(SYSCTL).ok()?;
        std::fs::write(SYSCTL, "2").expect("kernel.io_uring_disabled set (as root)");
        Some(Disabled(old.trim().to_string()))
    }
}

impl Drop for Disabled {
    fn drop(&mut self) {
        let _ = std::fs::write(SYSCTL, &self.0);
    }
}

/// The same with the sysctl (serial: it refuses io_uring to the whole host while it runs).
#[test]
#[serial_test::serial]
fn with_io_uring_disabled_auto_runs_on_libaio_and_an_explicit_io_uring_still_refuses() {
    let Some(_disabled) = Disabled::set() else {
        eprintln!("this kernel has no kernel.io_uring_disabled: nothing to test");
        return;
    };
    falls_back_to_libaio(&|cwd, args| {
        let out = rigel().cwd(cwd).env("NO_COLOR", "1").args(args).run();
        (out.code, format!("{}{}", out.stdout, out.stderr))
    });
}
