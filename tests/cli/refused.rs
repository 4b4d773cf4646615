//! Where io_uring is refused (here: a real seccomp filter that answers `io_uring_setup` with
//! EPERM, as the default profiles of Docker 25+ and containerd 2.x do, or the
//! `kernel.io_uring_disabled` sysctl): with `engine = "io_uring"` `rigel run` says why and how to
//! fix it, makes no run folder and suggests no `--resume`, and `rigel check` warns the same; with
//! the default `engine = "auto"` it says so once and runs on libaio (O_DIRECT) instead, with
//! figures, the engine named in results.json, and `rigel orion` writes its summary.
//! The filter is installed by python3 (ctypes: prctl NO_NEW_PRIVS, then PR_SET_SECCOMP) before it
//! executes rigel, so rigel itself runs unchanged under it.

use super::builder::{repo, results, rigel};
use super::orion::LunDir;
use rigel_testkit::LoopDevice;
use std::path::Path;
use std::process::Command;

/// Installs a seccomp filter failing io_uring_setup (425 on every architecture) with EPERM, then
/// executes argv[1:].
const SECCOMP: &str = r#"
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
def ins(code, jt, jf, k):
    return struct.pack("HBBI", code, jt, jf, k)
prog = b"".join([
    ins(0x20, 0, 0, 0),                  # A = seccomp_data.nr
    ins(0x15, 0, 1, 425),                # if A == io_uring_setup
    ins(0x06, 0, 0, 0x00050000 | 1),     #   return ERRNO(EPERM)
    ins(0x06, 0, 0, 0x7fff0000),         # return ALLOW
])
buf = ctypes.create_string_buffer(prog)
fprog = struct.pack("HxxxxxxQ", len(prog) // 8, ctypes.addressof(buf))
fbuf = ctypes.create_string_buffer(fprog)
assert libc.prctl(38, 1, 0, 0, 0) == 0, "no_new_privs"
assert libc.prctl(22, 2, ctypes.addressof(fbuf), 0, 0) == 0, os.strerror(ctypes.get_errno())
os.execv(sys.argv[1], sys.argv[1:])
"#;

/// `rigel ARGS` under the filter: (exit code, stdout + stderr).
fn refused_rigel(cwd: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new("python3")
        .arg("-c")
        .arg(SECCOMP)
        .arg(env!("CARGO_BIN_EXE_rigel"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .output()
        .expect("python3 runs (the test installs its seccomp filter with it)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

fn spec(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("t.toml");
    std::fs::write(
        &path,
        format!(
            "[spec]\nname = \"t\"\n\n[[target]]\npath = \"{}/data.bin\"\nsize = \"4MiB\"\n\n\
             [class.small]\nsize = \"4KiB\"\n\n[run]\nengine = \"io_uring\"\nduration = \"1s\"\n\n\
             [matrix]\nshape = \"point\"\nsmall = \"1\"\n",
            dir.display()
        ),
    )
    .expect("spec written");
    path
}

/// A spec of 4 KiB random reads at QD 4 on `target` with `engine` (none: the default, auto).
fn device_spec(dir: &Path, target: &str, engine: Option<&str>) -> std::path::PathBuf {
    let path = dir.join("d.toml");
    let engine = engine
        .map(|e| format!("engine = \"{e}\"\n"))
        .unwrap_or_default();
    std::fs::write(
        &path,
        format!(
            "[[target]]\npath = \"{target}\"\n\n[run]\n{engine}duration = \"500ms\"\n\
             warmup = \"100ms\"\n\n[class.small]\nsize = \"4KiB\"\nmix = \"read\"\n\n\
             [matrix]\nshape = \"point\"\nsmall = \"4\"\n"
        ),
    )
    .expect("spec written");
    path
}

/// Where io_uring is refused by `run` (rigel's arguments, as `refused_rigel` takes them):
/// `auto` (the default) runs the loop device on libaio, says why once and names the engine per
/// point; an explicit `io_uring` stops with the refusal, as before.
fn falls_back_to_libaio(run: &dyn Fn(&Path, &[&str]) -> (i32, String)) {
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
        text.matches("io_uring is refused here").count(),
        1,
        "said once: {text}"
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
    let args = [
        "orion",
        "-run",
        "advanced",
        "-testname",
        "t",
        "-matrix",
        "point",
        "-num_small",
        "2",
        "-num_large",
        "0",
        "-duration",
        "1",
        "-cache_size",
        "0",
    ];
    let (code, text) = refused_rigel(d.path(), &args);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("io_uring is refused here"), "{text}");
    let summary = d
        .outputs()
        .into_iter()
        .find(|n| n.ends_with("_summary.txt"))
        .unwrap_or_else(|| panic!("no summary written: {text}"));
    let summary = std::fs::read_to_string(d.path().join(summary)).expect("summary");
    assert!(
        summary.contains("libaio"),
        "the engine in the summary's notes: {summary}"
    );
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

#[test]
#[serial_test::parallel]
fn a_refused_io_uring_is_explained_and_no_resume_is_suggested() {
    let tmp = tempfile::tempdir().expect("tmp");
    let spec = spec(tmp.path());
    let spec = spec.to_str().expect("utf-8 path");
    let out = tmp.path().join("out");
    let (code, text) = refused_rigel(
        tmp.path(),
        &["run", spec, "--out", out.to_str().expect("utf-8")],
    );
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("io_uring is refused here"), "{text}");
    assert!(text.contains("seccomp"), "{text}");
    assert!(
        text.contains("io_uring_setup"),
        "the fix names the calls: {text}"
    );
    assert!(!text.contains("--resume"), "a resume cannot help: {text}");
    assert!(!out.exists(), "no run folder for a run that cannot start");
    assert!(
        !tmp.path().join("data.bin").exists(),
        "no test file made for a run that cannot start"
    );
    // check and plan, which do no I/O, say the same.
    for cmd in ["check", "plan"] {
        let (code, text) = refused_rigel(&repo(), &[cmd, spec]);
        assert_eq!(code, 0, "{cmd}: {text}");
        assert!(
            text.contains("warning: `rigel run` cannot run here: io_uring is refused"),
            "{cmd}: {text}"
        );
        assert!(text.contains("seccomp"), "{cmd}: {text}");
    }
}
