//! Two rigels at once: two runs of one spec started in the same second each get a folder of their
//! own (`NAME-DATE`, `NAME-DATE.2`), two readers of one block device both run and are told they
//! share it, and a writer of a device another rigel reads is refused, naming that rigel.

use super::builder::rigel;
use super::scenario::Spec;
use rigel_testkit::LoopDevice;
use std::path::Path;
use std::time::Duration;

/// A spec named `twin` of 4 KiB random reads (or writes) on `target` for `duration`.
fn spec(dir: &Path, file: &str, target: &str, duration: &str, write: bool) -> std::path::PathBuf {
    let spec = Spec::named("twin");
    let spec = if write {
        spec.destructive_target(target).set("class.io.mix", "write")
    } else {
        spec.target(target, &[])
    };
    let spec = spec
        .set("class.io.size", "4KiB")
        .set("run.duration", duration)
        .set("matrix.shape", "point")
        .set("matrix.io", "1");
    let path = dir.join(file);
    std::fs::write(&path, spec.text()).expect("spec written");
    path
}

#[test]
#[serial_test::parallel]
fn two_runs_of_one_spec_in_one_second_get_two_folders_and_are_told_they_share_the_target() {
    let lo = LoopDevice::new(16 << 20);
    let tmp = tempfile::tempdir().expect("tmp");
    let spec = spec(tmp.path(), "twin.toml", lo.dev(), "1500ms", false);
    // Started together they fall in one second almost always; a pair that straddles a second
    // boundary is started again (three pairs at most).
    for attempt in 1..=3 {
        let cwd = tmp.path().join(format!("try-{attempt}"));
        std::fs::create_dir(&cwd).expect("cwd");
        let start = || {
            let (spec, cwd) = (spec.clone(), cwd.clone());
            std::thread::spawn(move || rigel().arg("run").arg(spec).cwd(cwd).run())
        };
        let (a, b) = (start(), start());
        let (a, b) = (a.join().expect("run a"), b.join().expect("run b"));
        assert_eq!(a.code, 0, "{}{}", a.stdout, a.stderr);
        assert_eq!(b.code, 0, "{}{}", b.stdout, b.stderr);
        let mut names: Vec<String> = std::fs::read_dir(cwd.join("runs"))
            .expect("runs/")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names.len(), 2, "{names:?}");
        for n in &names {
            assert!(
                cwd.join("runs").join(n).join("results.json").exists(),
                "{n} holds a finished run"
            );
        }
        // Both read the device at once: the later one to open it (or both) says so.
        let shared = "uses this target at the same time";
        assert!(
            a.stderr.contains(shared) || b.stderr.contains(shared),
            "{}\n{}",
            a.stderr,
            b.stderr
        );
        if names[1] == format!("{}.2", names[0]) {
            return;
        }
        assert_ne!(
            names[0].rsplit('-').next(),
            names[1].rsplit('-').next(),
            "the same second, yet not NAME-DATE.2: {names:?}"
        );
    }
    panic!("three pairs of runs started together never fell in one second");
}

#[test]
#[serial_test::parallel]
fn a_writer_of_a_device_another_rigel_reads_is_refused_naming_it() {
    let lo = LoopDevice::new(16 << 20);
    let tmp = tempfile::tempdir().expect("tmp");
    let reader = spec(tmp.path(), "r.toml", lo.dev(), "4s", false);
    let writer = spec(tmp.path(), "w.toml", lo.dev(), "200ms", true);
    let mut first = rigel()
        .arg("run")
        .arg(&reader)
        .arg("--out")
        .arg(tmp.path().join("r"))
        .spawn();
    let pid = first.id();
    // The reader holds its lock from the moment its targets are open, before it writes its plan.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !tmp.path().join("r").join("plan.json").exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the reader never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let written = lo.sectors_written();
    let r = rigel()
        .arg("run")
        .arg(&writer)
        .arg("--allow-destructive")
        .arg("--out")
        .arg(tmp.path().join("w"))
        .run();
    let status = first.wait().expect("the reader ends");
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains(&format!("in use by another rigel (pid {pid})")),
        "{}",
        r.stderr
    );
    assert!(status.success(), "the reader ran to its end");
    assert_eq!(
        lo.sectors_written(),
        written,
        "the refused writer wrote nothing"
    );
}
