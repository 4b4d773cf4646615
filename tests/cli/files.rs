//! Only what rigel made, only where it may (issue 33): through the real binary, as a hostile local
//! user (`nobody`, through `setpriv`) and an unlucky operator would try it. A forged mark, a stale
//! mark, a symlink swapped in while a test file is made, a device behind a loop device, and links
//! planted where rigel writes its files: each must leave the other party's data as it was.

use super::builder::rigel;
use super::scenario::{Scenario, Spec};
use rigel_testkit::{LoopDevice, is_root};
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A tmpfs folder anyone may write (0777, not sticky), as a shared scratch folder often is.
fn shared_dir() -> Scenario {
    let dir = Scenario::new();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777))
        .expect("chmod 0777");
    dir
}

/// Runs `sh -c script` as `nobody`; panics, saying why, where that cannot be done.
fn as_nobody(script: &str) {
    assert!(
        is_root(),
        "switching to nobody needs root (.ci/run runs as root)"
    );
    let out = Command::new("setpriv")
        .args(["--reuid", "nobody", "--regid", "nogroup", "--clear-groups"])
        .args(["sh", "-c", script])
        .output()
        .expect("setpriv (util-linux) runs");
    assert!(
        out.status.success(),
        "as nobody: {script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Whether a spec's one target is a test file rigel creates or one it consents to write.
enum Target {
    Sized(&'static str),
    Destructive,
}

/// A spec on one target (`mix`: "read" or "write").
fn spec(dir: &Path, target: &Path, kind: Target, mix: &str) -> PathBuf {
    let spec = match kind {
        Target::Sized(size) => Spec::named("f").target(target, &[("size", size)]),
        Target::Destructive => Spec::named("f").destructive_target(target),
    };
    let spec = spec
        .set("run.duration", "100ms")
        .set("class.s.size", "4KiB")
        .set("class.s.mix", mix)
        .set("matrix.s", "1");
    let path = dir.join(format!("{mix}-{}.toml", fastrand::u32(..)));
    std::fs::write(&path, spec.text()).expect("spec written");
    path
}

fn out_dir(base: &Path) -> PathBuf {
    base.join(format!("run-{}", fastrand::u64(..)))
}

/// Root's file with `bytes`, mode 0600: nobody may read or write it.
fn roots_file(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).expect("root's file");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
}

#[test]
#[ignore = "needs setfattr (attr)"]
#[serial_test::parallel]
fn a_forged_sidecar_or_user_xattr_is_no_mark() {
    let shared = shared_dir();
    let victim = shared.path().join("alice.db");
    let data = vec![0x5au8; 1 << 20];
    std::fs::write(&victim, &data).expect("alice's file");
    // nobody cannot write alice.db, but may write the folder: a sidecar naming its inode, and a
    // `user.` xattr on a file of nobody's own (the attribute a user can set).
    let ino = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&victim).unwrap());
    let dev = std::os::unix::fs::MetadataExt::dev(&std::fs::metadata(&victim).unwrap());
    as_nobody(&format!(
        "printf 'rigel 1 filled 1048576 {dev} {ino}\\n' > '{}/.alice.db.rigel' && \
         head -c 1048576 /dev/zero > '{0}/own.bin' && \
         setfattr -n user.rigel.created -v 'rigel 1 filled 1048576' '{0}/own.bin'",
        shared.path().display()
    ));
    let work = tempfile::tempdir().unwrap();
    // A write spec without consent: refused, as any file rigel did not create.
    for target in [&victim, &shared.path().join("own.bin")] {
        let w = spec(work.path(), target, Target::Sized("1MiB"), "write");
        rigel()
            .arg("run")
            .arg(&w)
            .arg("--out")
            .arg(out_dir(work.path()))
            .run()
            .code(1)
            .stderr_has("rigel did not create this file");
    }
    // A read-only run with --clean keeps it.
    let r = spec(work.path(), &victim, Target::Sized("1MiB"), "read");
    rigel()
        .arg("run")
        .arg(&r)
        .arg("--clean")
        .arg("--out")
        .arg(out_dir(work.path()))
        .run()
        .code(0);
    assert_eq!(
        std::fs::read(&victim).expect("alice.db is still there"),
        data
    );
}

#[test]
#[serial_test::parallel]
fn a_copy_over_rigels_file_makes_it_someone_elses() {
    let dir = Scenario::new();
    let work = tempfile::tempdir().unwrap();
    let scratch = dir.path().join("scratch.bin");
    let r = spec(work.path(), &scratch, Target::Sized("1MiB"), "read");
    rigel()
        .arg("run")
        .arg(&r)
        .arg("--out")
        .arg(out_dir(work.path()))
        .run()
        .code(0);
    let ino = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&scratch).unwrap());
    // `cp backup.img scratch.bin`: the same inode (and its xattrs), the backup's bytes.
    let backup = dir.path().join("backup.img");
    let data: Vec<u8> = (0..1u32 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(&backup, &data).unwrap();
    let cp = Command::new("cp").arg(&backup).arg(&scratch).status();
    assert!(cp.is_ok_and(|s| s.success()), "cp (coreutils)");
    assert_eq!(
        std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&scratch).unwrap()),
        ino
    );
    rigel()
        .arg("run")
        .arg(&r)
        .arg("--clean")
        .arg("--out")
        .arg(out_dir(work.path()))
        .run()
        .code(0);
    let w = spec(work.path(), &scratch, Target::Sized("1MiB"), "write");
    rigel()
        .arg("run")
        .arg(&w)
        .arg("--out")
        .arg(out_dir(work.path()))
        .run()
        .code(1)
        .stderr_has("rigel did not create this file");
    assert_eq!(std::fs::read(&scratch).expect("the backup is kept"), data);
}

#[test]
#[serial_test::parallel]
fn rigels_own_file_stays_its_own_after_a_write_run_and_is_cleaned() {
    let dir = Scenario::new();
    let work = tempfile::tempdir().unwrap();
    let scratch = dir.path().join("scratch.bin");
    let w = spec(work.path(), &scratch, Target::Sized("1MiB"), "write");
    for _ in 0..2 {
        rigel()
            .arg("run")
            .arg(&w)
            .arg("--out")
            .arg(out_dir(work.path()))
            .run()
            .code(0);
    }
    rigel()
        .arg("run")
        .arg(&w)
        .arg("--clean")
        .arg("--out")
        .arg(out_dir(work.path()))
        .run()
        .code(0);
    assert!(!scratch.exists(), "--clean removes rigel's own file");
}

/// A helper thread swaps a link to root's file in under the test file's name as soon as rigel
/// has created it, while rigel grows and fills it, for many attempts: root's file must never
/// change.
#[test]
#[serial_test::parallel]
fn a_symlink_swapped_in_during_creation_is_never_written() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let shared = shared_dir();
    let secret_dir = Scenario::new();
    let victim = secret_dir.path().join("root-only");
    let secret = b"root's 0600 data\n".repeat(64);
    roots_file(&victim, &secret);
    let work = tempfile::tempdir().unwrap();
    let target = shared.path().join("t.bin");
    let w = spec(work.path(), &target, Target::Sized("1MiB"), "write");
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let racer = {
        let (stop, target, victim) = (stop.clone(), target.clone(), victim.clone());
        let swaps = swaps.clone();
        let aside = shared.path().join("aside");
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                // What a user of the 0777 folder may do: the moment rigel's new file appears,
                // move it aside and put a link in its place, then take the link away again.
                // The link goes in only after a swap: one planted blindly and left there while
                // a loaded host preempts this thread makes every rigel refuse at creation, and
                // the swap after creation, the attack under test, never happens.
                if std::fs::rename(&target, &aside).is_ok() {
                    swaps.fetch_add(1, Ordering::Relaxed);
                    let _ = symlink(&victim, &target);
                    std::thread::yield_now();
                    let _ = std::fs::remove_file(&target);
                    let _ = std::fs::remove_file(&aside);
                } else {
                    std::thread::yield_now();
                }
            }
        })
    };
    let mut outcomes = std::collections::BTreeMap::new();
    // 40 attempts at least, and on until the racer has swapped rigel's file a few times (a loaded
    // host can let 40 runs pass without one swap landing between creation and use).
    let mut attempts = 0;
    while attempts < 40 || (swaps.load(Ordering::Relaxed) < 3 && attempts < 400) {
        attempts += 1;
        let out = rigel()
            .arg("run")
            .arg(&w)
            .arg("--out")
            .arg(out_dir(work.path()))
            .run();
        *outcomes.entry(out.code).or_insert(0) += 1;
        let now = std::fs::read(&victim).expect("root's file is there");
        assert_eq!(
            now.len(),
            secret.len(),
            "root's file was grown: {}",
            out.stderr
        );
        assert!(now == secret, "root's file was overwritten: {}", out.stderr);
    }
    stop.store(true, Ordering::Relaxed);
    racer.join().expect("the racer");
    let swaps = swaps.load(Ordering::Relaxed);
    assert!(swaps > 0, "the racer never swapped a file ({outcomes:?})");
    eprintln!("exit codes over {attempts} attempts: {outcomes:?}; {swaps} swaps");
}

/// Loop device B over loop device A: A carries whatever is mounted on B, and is refused as
/// backing a loop device even with `--allow-destructive --force`.
#[test]
#[serial_test::parallel]
fn a_device_behind_a_loop_device_is_refused_even_forced() {
    let a = LoopDevice::new(16 << 20);
    let out = Command::new("losetup")
        .args(["-f", "--show", a.dev()])
        .output()
        .expect("losetup");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let b = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    struct Detach(String);
    impl Drop for Detach {
        fn drop(&mut self) {
            let _ = Command::new("losetup").args(["-d", &self.0]).status();
        }
    }
    let _b = Detach(b.clone());
    let work = tempfile::tempdir().unwrap();
    let w = spec(work.path(), a.path(), Target::Destructive, "write");
    let before = a.sectors_written();
    rigel()
        .arg("run")
        .arg(&w)
        .arg("--allow-destructive")
        .arg("--force")
        .arg("--out")
        .arg(out_dir(work.path()))
        .run()
        .code(1)
        .stderr_has(&format!(
            "backs the loop device /dev/{}",
            b.trim_start_matches("/dev/")
        ));
    assert_eq!(
        a.sectors_written(),
        before,
        "nothing was written to {}",
        a.dev()
    );
}

#[test]
#[serial_test::parallel]
fn a_run_folder_with_planted_links_or_of_another_user_is_refused() {
    let shared = shared_dir();
    let secret_dir = Scenario::new();
    let victim = secret_dir.path().join("shadow");
    roots_file(&victim, b"root:secret\n");
    let data = Scenario::new();
    let r = spec(
        data.path(),
        &data.path().join("t.bin"),
        Target::Sized("1MiB"),
        "read",
    );
    // A pre-existing --out with links planted where rigel writes.
    let out = shared.path().join("planted");
    std::fs::create_dir(&out).unwrap();
    for name in ["report.md", "rigel.lock", "results.jsonl", "results.tmp"] {
        symlink(&victim, out.join(name)).unwrap();
    }
    rigel()
        .arg("run")
        .arg(&r)
        .arg("--out")
        .arg(&out)
        .run()
        .code(1)
        .stderr_has("is not empty");
    // --out itself a link.
    let linked = shared.path().join("linked");
    symlink(secret_dir.path(), &linked).unwrap();
    rigel()
        .arg("run")
        .arg(&r)
        .arg("--out")
        .arg(&linked)
        .run()
        .code(1)
        .stderr_has("is a symbolic link");
    // An empty folder nobody made.
    as_nobody(&format!("mkdir '{}/theirs'", shared.path().display()));
    rigel()
        .arg("run")
        .arg(&r)
        .arg("--out")
        .arg(shared.path().join("theirs"))
        .run()
        .code(1)
        .stderr_has("belongs to uid 65534");
    assert_eq!(std::fs::read(&victim).unwrap(), b"root:secret\n");
    assert_eq!(std::fs::read_dir(secret_dir.path()).unwrap().count(), 1);
}

#[test]
#[serial_test::parallel]
fn reports_replace_planted_links_and_templates_are_read_through_none() {
    let secret_dir = Scenario::new();
    let victim = secret_dir.path().join("shadow");
    roots_file(&victim, b"root:TOKEN-1234\n");
    let data = Scenario::new();
    let r = spec(
        data.path(),
        &data.path().join("t.bin"),
        Target::Sized("1MiB"),
        "read",
    );
    let run = data.path().join("run");
    rigel()
        .arg("run")
        .arg(&r)
        .arg("--out")
        .arg(&run)
        .run()
        .code(0);
    // Links where `rigel report` writes, and in hlog/.
    let out = data.path().join("again");
    std::fs::create_dir(&out).unwrap();
    symlink(&victim, out.join("report.md")).unwrap();
    rigel()
        .arg("report")
        .arg(&run)
        .arg("--out")
        .arg(&out)
        .run()
        .code(0);
    assert!(
        !std::fs::symlink_metadata(out.join("report.md"))
            .unwrap()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&victim).unwrap(), b"root:TOKEN-1234\n");
    // --template FILE that is a link to the secret.
    let link = data.path().join("t.md.j2");
    symlink(&victim, &link).unwrap();
    let rendered = data.path().join("rendered");
    let o = rigel()
        .arg("report")
        .arg(&run)
        .arg("--template")
        .arg(&link)
        .arg("--out")
        .arg(&rendered)
        .run();
    assert_ne!(o.code, 0, "{}", o.stderr);
    o.stderr_has("symbolic link");
    assert!(!o.stderr.contains("TOKEN-1234") && !o.stdout.contains("TOKEN-1234"));
    assert!(!rendered.join("t.md").exists());
}

/// ORION's working directory holds other runs' files: links planted under this minute's (and the
/// next minute's) names are neither followed nor replaced; the run's files take `.2` names.
#[test]
#[serial_test::parallel]
fn orion_never_replaces_a_file_in_its_working_directory() {
    let secret_dir = Scenario::new();
    let victim = secret_dir.path().join("shadow");
    roots_file(&victim, b"root:secret\n");
    let d = super::orion::LunDir::new();
    let lun = d.file("data.img", 8 << 20);
    let d = d.with("o", &[&lun]);
    let stamp = |when: &str| {
        let out = Command::new("date")
            .args(["-d", when, "+%Y%m%d_%H%M"])
            .output();
        String::from_utf8_lossy(&out.expect("date (coreutils)").stdout)
            .trim()
            .to_owned()
    };
    let planted: Vec<PathBuf> = [stamp("now"), stamp("+1 min")]
        .iter()
        .map(|s| d.path().join(format!("o_{s}_summary.txt")))
        .collect();
    for p in &planted {
        symlink(&victim, p).unwrap();
    }
    d.orion(&super::orion::one_point("o", "1")).code(0);
    assert_eq!(std::fs::read(&victim).unwrap(), b"root:secret\n");
    for p in &planted {
        assert!(
            std::fs::symlink_metadata(p).unwrap().is_symlink(),
            "{} replaced",
            p.display()
        );
    }
    let outputs = d.outputs();
    assert!(
        outputs.iter().any(|n| n.ends_with(".2_summary.txt")),
        "{outputs:?}"
    );
}

/// A file that is not a spec, given as one (a JSON file holding a token): the error names the
/// place and what is wrong, and quotes none of it. A `.toml` spec's line is still shown.
#[test]
#[serial_test::parallel]
fn a_parse_error_quotes_only_rigels_own_formats() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("creds.json");
    std::fs::write(&json, "{\"token\": \"SECRET-TOKEN-abcdef\"}\n").unwrap();
    for cmd in ["check", "run", "plan"] {
        let out = rigel().arg(cmd).arg(&json).run().code(2);
        out.stderr_has("creds.json:1:1");
        assert!(
            !out.stderr.contains("SECRET") && !out.stdout.contains("SECRET"),
            "{cmd}: {}",
            out.stderr
        );
    }
    let toml = dir.path().join("typo.toml");
    std::fs::write(
        &toml,
        "[[target]]\npath = \"/dev/null\"\nsizee = \"1GiB\"\n",
    )
    .unwrap();
    rigel()
        .arg("check")
        .arg(&toml)
        .run()
        .code(2)
        .stderr_has("sizee");
}
