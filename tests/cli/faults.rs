//! Faults injected by a FUSE file (tests/support/faultfs.rs) under real runs: an I/O error at an
//! offset (the file read directly, O_DIRECT), a stall longer than `run.io_timeout` and SIGINT during
//! a stall (through a loop device over the file: io_uring serves a FUSE file's reads inline, so a
//! stall there holds the submitting thread itself). They need root and /dev/fuse (`.ci/run` has both)
//! and fail, saying why, without them.

#[path = "../support/faultfs.rs"]
pub mod faultfs;

use super::builder::{results, rigel};
use super::scenario::Scenario;
use super::scenario::Spec;
use faultfs::{Faults, Stall};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A read-only spec on `target`: one class of 4 KiB random reads, a point per load.
fn spec(dir: &Path, target: &Path, loads: &str, run: &str) -> PathBuf {
    let text = format!(
        "[spec]\nname = \"f\"\n\n[[target]]\npath = \"{}\"\n\n[run]\n{run}\n\n\
         [class.io]\nsize = \"4KiB\"\n\n[matrix]\nio = \"{loads}\"\n",
        target.display()
    );
    let path = dir.join("f.toml");
    std::fs::write(&path, text).expect("spec written");
    path
}

/// Sends `sig` (`-INT`, `-TERM`) to the child.
pub(super) fn signal(child: &std::process::Child, sig: &str) {
    let status = std::process::Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

#[test]
#[serial_test::parallel]
fn an_io_error_at_an_offset_fails_the_point_naming_offset_and_errno() {
    let offset = 8 << 20;
    let fs = faultfs::mounted(Faults::new(16 << 20).read_error(offset, libc::EIO));
    let tmp = tempfile::tempdir().expect("tmp");
    let spec = spec(tmp.path(), fs.file(), "4", "duration = \"20s\"");
    let out = tmp.path().join("run");
    let r = rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(&out)
        .run()
        .code(1);
    let error = &results(&out)["points"][0]["status"]["error"];
    assert_eq!(error["offset"], offset, "{error}\n{}", r.stderr);
    assert_eq!(error["errno"], libc::EIO);
    assert_eq!(error["target"], fs.file().display().to_string());
    let said = format!("{}{}", r.stdout, r.stderr);
    assert!(said.contains(&format!("at offset {offset}")), "{said}");
}

#[test]
#[serial_test::serial]
fn a_stall_longer_than_io_timeout_fails_the_point_as_stalled() {
    let stall = Stall {
        after: 50,
        duration: Duration::from_secs(4),
        every: false,
    };
    let fs = faultfs::mounted(Faults::new(16 << 20).stall(stall));
    let dev = fs.loop_device().expect("a loop device over the FUSE file");
    let tmp = tempfile::tempdir().expect("tmp");
    let spec = spec(
        tmp.path(),
        &dev.dev,
        "2",
        "duration = \"10s\"\nio_timeout = \"1s\"",
    );
    let out = tmp.path().join("run");
    let started = Instant::now();
    let r = rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(&out)
        .run()
        .code(1);
    let error = &results(&out)["points"][0]["status"]["error"];
    let message = error["message"].as_str().expect("message");
    assert!(
        message.starts_with("stalled: no completion for 1s at target ")
            && message.contains(&dev.dev.display().to_string()),
        "{message}\n{}",
        r.stderr
    );
    assert_eq!(error["errno"], libc::ETIMEDOUT);
    assert!(fs.stalled() >= 1);
    // Never a hang: the run ends with the point (the process itself once the kernel returns
    // the stalled I/O, 4 s after it was issued), well before the 10 s window.
    assert!(
        started.elapsed() < Duration::from_secs(9),
        "{:?}",
        started.elapsed()
    );
}

#[test]
#[serial_test::serial]
fn sigint_during_a_stall_ends_the_run_within_a_second_keeping_finished_points() {
    let fs = faultfs::mounted(Faults::new(16 << 20));
    let dev = fs.loop_device().expect("a loop device over the FUSE file");
    let tmp = tempfile::tempdir().expect("tmp");
    let spec = spec(tmp.path(), &dev.dev, "1, 2, 3", "duration = \"1s\"");
    let out = tmp.path().join("run");
    let child = rigel().arg("run").arg(&spec).arg("--out").arg(&out).spawn();
    let jsonl = out.join("results.jsonl");
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::read_to_string(&jsonl).map_or(0, |t| t.lines().count()) < 1
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    fs.stall_next(Duration::from_secs(6));
    while fs.stalled() == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(200));
    signal(&child, "-INT");
    let signalled = Instant::now();
    while !out.join("results.json").exists() && signalled.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let ended = signalled.elapsed();
    assert!(
        ended < Duration::from_secs(1),
        "the run ended {ended:?} after SIGINT"
    );
    let doc = results(&out);
    assert_eq!(
        doc["points"][0]["point"]["id"], 1,
        "the finished point is kept"
    );
    assert_eq!(doc["points"][0]["status"]["state"], "ok");
    let done = child.wait_with_output().expect("rigel exits");
    assert_eq!(done.status.code(), Some(130));
}

/// A target whose open() does not return (its server stalls the open for 2.5 s: a run that waited
/// for it would end 2.3 s after the signal, past the second allowed): SIGTERM ends the
/// run within a second, saying so, exit 130. A handled signal does not interrupt such an open, so
/// rigel opens on another thread and leaves it behind; the kernel still holds the process until
/// the FUSE server answers a request it has read (even SIGKILL waits for that), so the run's end
/// is seen in its message, and its exit code once the server answers.
#[test]
#[serial_test::serial]
fn sigterm_during_a_stalled_open_ends_the_run_within_a_second() {
    use std::io::BufRead;
    let stall = Duration::from_millis(2500);
    let fs = faultfs::mounted(Faults::new(16 << 20).open_stall(stall));
    let tmp = tempfile::tempdir().expect("tmp");
    let spec = spec(tmp.path(), fs.file(), "1", "duration = \"1s\"");
    let mut child = rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(tmp.path().join("run"))
        .spawn();
    let stderr = child.stderr.take().expect("piped stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send((Instant::now(), line));
        }
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    while fs.opens() == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(fs.opens() > 0, "rigel never opened the target");
    std::thread::sleep(Duration::from_millis(200));
    signal(&child, "-TERM");
    let signalled = Instant::now();
    let said = rx
        .iter()
        .find(|(_, line)| line.contains("stopped while opening the targets"));
    let (at, _) = said.expect("rigel says it stopped while opening");
    let ended = at.duration_since(signalled);
    assert!(
        ended < Duration::from_secs(1),
        "the run ended {ended:?} after SIGTERM"
    );
    let done = child.wait_with_output().expect("rigel exits");
    assert_eq!(done.status.code(), Some(130));
}

/// A tmpfs of `size` mounted on a fresh directory, unmounted when dropped; None (with the reason
/// where mounting is not allowed.
pub(super) struct Tmpfs {
    pub(super) dir: tempfile::TempDir,
}

impl Tmpfs {
    pub(super) fn mount(size: &str) -> Tmpfs {
        let dir = tempfile::tempdir().expect("tmp");
        let opts = format!("size={size}");
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &opts, "tmpfs"])
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "cannot mount a tmpfs (not root?)");
        Tmpfs { dir }
    }

    pub(super) fn resize(&self, size: &str) {
        let opts = format!("remount,size={size}");
        let status = std::process::Command::new("mount")
            .args(["-o", &opts])
            .arg(self.dir.path())
            .status()
            .expect("mount runs");
        assert!(status.success(), "remount {size}");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}

/// The point ids of `results.jsonl`, every line checked to be whole JSON.
fn finished_ids(run: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(run.join("results.jsonl")).expect("results.jsonl");
    text.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("every line is whole");
            v["point"]["id"].as_u64().expect("an id")
        })
        .collect()
}

/// The run folder on a real, tiny filesystem that fills up mid-run (ENOSPC): exit 1 naming the
/// error, every finished point kept whole; after space is freed `--resume` runs the rest, each
/// point once, and writes the reports.
#[test]
#[serial_test::parallel]
fn a_full_filesystem_mid_run_loses_no_point_and_resume_completes() {
    let fs = Tmpfs::mount("48k");
    let tmp = Scenario::new();
    let target = tmp.path().join("e.bin");
    let text = format!(
        "[spec]\nname = \"e\"\n\n[[target]]\npath = \"{}\"\nsize = \"16MiB\"\n\n\
         [run]\nduration = \"100ms\"\n\n[class.io]\nsize = \"4KiB\"\n\n[matrix]\nio = \"1..=24\"\n",
        target.display()
    );
    let spec = tmp.path().join("e.toml");
    std::fs::write(&spec, text).expect("spec written");
    let run = fs.dir.path().join("run");
    let out = rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(&run)
        .arg("-q")
        .run();
    assert_eq!(out.code, 1, "{}", out.stderr);
    out.stderr_has("No space left on device");
    let kept = finished_ids(&run);
    assert!(
        !kept.is_empty() && kept.len() < 24,
        "the folder filled mid-run: {kept:?}"
    );
    assert_eq!(kept, (1..=kept.len() as u64).collect::<Vec<_>>());
    fs.resize("8m");
    let out = rigel().arg("run").arg("--resume").arg(&run).arg("-q").run();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(finished_ids(&run), (1..=24).collect::<Vec<_>>());
    assert!(run.join("results.json").exists() && run.join("report.md").exists());
}

// ---- journal space (from its own file) ----
// A journaled run whose run folder has no room for the journal: the journal is allocated before
// it is mapped, so the run ends with exit 1 and "No space left on device" naming it (not SIGBUS,
// exit 135, with no message: issue 43), leaves no empty journal behind, and once there is room
// `--resume` finishes the run and `rigel verify` checks it.

#[test]
#[serial_test::parallel]
fn a_run_folder_without_room_for_the_journal_fails_clearly_and_resumes() {
    let tmp = Scenario::new();
    // 64 MiB in 512-byte blocks: a journal of 512 KiB, where the folder has 128 KiB.
    let spec = tmp.spec(
        "journal.toml",
        &Spec::named("journal")
            .target_table(
                tmp.join("t.dat"),
                toml::Table::from_iter([
                    ("size".into(), "64MiB".into()),
                    ("destructive".into(), true.into()),
                ]),
            )
            .set("run.duration", "300ms")
            .set("run.verify", true)
            .set("run.journal", true)
            .set("run.verify_unit", "512B")
            .set("class.oltp.size", "4KiB")
            .set("class.oltp.mix", "write")
            .set("matrix.shape", "point")
            .set("matrix.oltp", "4"),
    );
    let fs = Tmpfs::mount("128k");
    let run = fs.dir.path().join("run");
    let out = rigel()
        .arg("run")
        .arg(&spec)
        .args(["--allow-destructive", "--out"])
        .arg(&run)
        .run();
    assert_eq!(out.code, 1, "{}", out.stderr);
    out.stderr_has("No space left on device")
        .stderr_has(&run.join("journal.map").display().to_string());
    assert!(
        !run.join("journal.map").exists(),
        "an empty journal was left"
    );
    fs.resize("4m");
    rigel()
        .args(["run", "--allow-destructive", "--resume"])
        .arg(&run)
        .run()
        .code(0);
    let len = std::fs::metadata(run.join("journal.map")).map(|m| m.len());
    assert_eq!(len.ok(), Some(4096 + 2 * 2 * (64 << 20) / 512));
    rigel().arg("verify").arg(&run).run().code(0);
}
