//! A journaled run whose run folder has no room for the journal: the journal is allocated before
//! it is mapped, so the run ends with exit 1 and "No space left on device" naming it (not SIGBUS,
//! exit 135, with no message: issue 43), leaves no empty journal behind, and once there is room
//! `--resume` finishes the run and `rigel verify` checks it.

use super::builder::rigel;
use super::faults::Tmpfs;
use super::scenario::{Scenario, Spec};

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
