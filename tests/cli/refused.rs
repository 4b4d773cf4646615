//! Where io_uring is refused (here: a real seccomp filter that answers `io_uring_setup` with
//! EPERM, as the default profiles of Docker 25+ and containerd 2.x do), `rigel run` with
//! `engine = "io_uring"` says why and how to fix it, makes no run folder and suggests no
//! `--resume`; `rigel check` and `plan` warn the same, and say what `auto` falls back to.
//! The filter is installed by python3 (ctypes: prctl NO_NEW_PRIVS, then PR_SET_SECCOMP) before it
//! executes rigel, so rigel itself runs unchanged under it.

use super::builder::repo;
use super::scenario::Spec;
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
pub fn refused_rigel(cwd: &Path, args: &[&str]) -> (i32, String) {
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
    let spec = Spec::named("t")
        .target(dir.join("data.bin"), &[("size", "4MiB")])
        .set("class.small.size", "4KiB")
        .set("run.duration", "1s")
        .set("matrix.shape", "point")
        .set("matrix.small", "1");
    let path = dir.join("t.toml");
    std::fs::write(&path, spec.text()).expect("spec written");
    path
}

#[test]
#[ignore = "needs python3 (it installs the seccomp filter)"]
#[serial_test::parallel]
fn a_refused_io_uring_is_explained_and_no_resume_is_suggested() {
    let tmp = tempfile::tempdir().expect("tmp");
    let spec = spec(tmp.path());
    let spec = spec.to_str().expect("utf-8 path");
    let out = tmp.path().join("out");
    let (code, text) = refused_rigel(
        tmp.path(),
        &[
            "run",
            spec,
            "--engine",
            "io_uring",
            "--out",
            out.to_str().expect("utf-8"),
        ],
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
    // check and plan, which do no I/O, say the same of io_uring named, and what auto gets.
    for cmd in ["check", "plan"] {
        let (code, text) = refused_rigel(&repo(), &[cmd, spec, "--engine", "io_uring"]);
        assert_eq!(code, 0, "{cmd}: {text}");
        assert!(
            text.contains("warning: `rigel run` cannot run here: io_uring is refused"),
            "{cmd}: {text}"
        );
        assert!(text.contains("seccomp"), "{cmd}: {text}");
        let (code, text) = refused_rigel(&repo(), &[cmd, spec]);
        assert_eq!(code, 0, "{cmd}: {text}");
        assert!(
            text.contains("engine: auto → libaio here (io_uring is refused here"),
            "{cmd}: {text}"
        );
        assert!(!text.contains("cannot run here"), "{cmd}: {text}");
    }
}
