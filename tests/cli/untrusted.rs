//! Files rigel did not just write are untrusted input: a FIFO planted where rigel reads a file
//! (a trace, an import, results, a journal, a template) is refused at once with an error naming
//! it, never waited on.

use super::builder::{Output, Rigel, rigel};
use super::scenario::{Scenario, Spec};
use std::path::Path;
use std::time::{Duration, Instant};

/// Runs `r`, which must end within a few seconds (a FIFO opened for reading blocks forever).
#[track_caller]
fn at_once(r: Rigel) -> Output {
    let mut child = r.spawn();
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("rigel blocked on a FIFO for 20 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("output");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn mkfifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(ok.success(), "mkfifo {}", path.display());
}

#[track_caller]
fn refused(r: Rigel) {
    let out = at_once(r);
    assert_ne!(out.code, 0, "{}", out.stderr);
    out.stderr_has("not a regular file");
}

#[test]
#[serial_test::parallel]
fn a_fifo_where_rigel_reads_a_file_is_refused_at_once() {
    let tmp = Scenario::new();
    // An import.
    let fifo = tmp.join("job.iolog");
    mkfifo(&fifo);
    refused(
        rigel()
            .args(["capture", "--import"])
            .arg(&fifo)
            .arg("--out")
            .arg(tmp.join("imported")),
    );
    // A trace folder's trace.rtr, for derive and replay.
    let cap = tmp.join("cap");
    std::fs::create_dir(&cap).expect("folder");
    mkfifo(&cap.join("trace.rtr"));
    refused(rigel().arg("derive").arg(&cap));
    refused(
        rigel()
            .arg("replay")
            .arg(&cap)
            .arg("--target")
            .arg(tmp.join("t.dat"))
            .args(["--size", "1MiB"]),
    );
    // A run folder's results.json, for report and compare.
    let run = tmp.join("run");
    std::fs::create_dir(&run).expect("folder");
    mkfifo(&run.join("results.json"));
    refused(rigel().arg("report").arg(&run));
    refused(rigel().arg("compare").arg(&run).arg(&run));
}

#[test]
#[serial_test::parallel]
fn a_fifo_journal_or_template_is_refused_at_once() {
    let tmp = Scenario::new();
    let target = tmp.file("t.dat", 4 << 20);
    let spec = tmp.spec(
        "j.toml",
        &Spec::named("j")
            .destructive_target(&target)
            .set("run.duration", "200ms")
            .set("run.verify", true)
            .set("run.journal", true)
            .set("class.w.size", "4KiB")
            .set("class.w.mix", "write")
            .set("matrix.shape", "point")
            .set("matrix.w", "1"),
    );
    let run = tmp.run(&spec, "out", &["--allow-destructive"]).code(0);
    let templates = tmp.join("templates");
    std::fs::create_dir(&templates).expect("folder");
    mkfifo(&templates.join("index.md.j2"));
    let out = at_once(
        rigel()
            .arg("report")
            .arg(&run.folder)
            .arg("--template")
            .arg(&templates)
            .arg("--out")
            .arg(tmp.join("rendered")),
    );
    assert_ne!(out.code, 0, "{}", out.stderr);
    out.stderr_has("not a regular file");
    std::fs::remove_file(run.folder.join("journal.map")).expect("journal removed");
    mkfifo(&run.folder.join("journal.map"));
    let out = at_once(rigel().arg("verify").arg(&run.folder));
    assert!(out.code != 0 && out.code != 6, "{}", out.stderr);
    out.stderr_has("not a regular file");
}

/// A journaled, verified run on its own file; returns the run folder.
fn journaled(tmp: &Scenario, name: &str) -> std::path::PathBuf {
    let target = tmp.file(&format!("{name}.dat"), 4 << 20);
    let spec = tmp.spec(
        &format!("{name}.toml"),
        &Spec::named(name)
            .destructive_target(&target)
            .set("run.duration", "300ms")
            .set("run.verify", true)
            .set("run.journal", true)
            .set("class.w.size", "4KiB")
            .set("class.w.mix", "write")
            .set("matrix.shape", "point")
            .set("matrix.w", "4"),
    );
    tmp.run(&spec, name, &["--allow-destructive"])
        .code(0)
        .folder
}

/// `rigel verify` with a journal that is not its run's: never exit 6 (a verdict of lost data),
/// never a panic, always an error naming the journal.
#[track_caller]
fn not_this_runs(dir: &Path, why: &str) {
    let out = at_once(rigel().arg("verify").arg(dir));
    assert!(
        out.code != 0 && out.code != 6 && out.code != 101,
        "{why}: exit {}\n{}\n{}",
        out.code,
        out.stdout,
        out.stderr
    );
    out.stderr_has("journal.map");
}

#[test]
#[serial_test::parallel]
fn a_journal_of_another_run_or_forged_is_an_error_about_the_journal() {
    let tmp = Scenario::new();
    let a = journaled(&tmp, "a");
    let b = journaled(&tmp, "b");
    let own = std::fs::read(a.join("journal.map")).expect("a's journal");
    rigel().arg("verify").arg(&a).run().code(0);
    std::fs::copy(b.join("journal.map"), a.join("journal.map")).expect("b's journal over a's");
    not_this_runs(&a, "another run's journal");
    // The block size (bytes 32-39): forged, then 0.
    for unit in [3072u64, 0] {
        let mut forged = own.clone();
        forged[32..40].copy_from_slice(&unit.to_le_bytes());
        std::fs::write(a.join("journal.map"), &forged).expect("forged journal");
        not_this_runs(&a, &format!("a block size of {unit}"));
    }
    std::fs::write(a.join("journal.map"), &own).expect("a's own journal back");
    rigel().arg("verify").arg(&a).run().code(0);
}

/// One run given twice on a side of `rigel compare` is refused (it is not two runs); a results
/// file claiming schema_version 0 is no rigel's.
#[test]
#[serial_test::parallel]
fn a_run_given_twice_or_a_schema_of_0_is_refused() {
    let tmp = Scenario::new();
    let target = tmp.file("t.dat", 4 << 20);
    let spec = tmp.spec(
        "r.toml",
        &Spec::named("r")
            .target(&target, &[])
            .set("run.duration", "200ms")
            .set("class.r.size", "4KiB")
            .set("matrix.shape", "point")
            .set("matrix.r", "1"),
    );
    let a = tmp.run(&spec, "a", &[]).code(0).folder;
    let b = tmp.run(&spec, "b", &[]).code(0).folder;
    let out = rigel()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .arg("--base")
        .arg(&a)
        .run();
    assert_ne!(out.code, 0, "{}", out.stdout);
    out.stderr_has("given twice");
    let results = b.join("results.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&results).expect("results")).expect("JSON");
    doc["schema_version"] = 0.into();
    std::fs::write(&results, doc.to_string()).expect("rewritten");
    let out = rigel().arg("compare").arg(&a).arg(&b).run();
    assert_ne!(out.code, 0, "{}", out.stdout);
    out.stderr_has("schema_version 0");
}

/// A run killed before its first point was recorded has no stamped run id to hold a journal to:
/// another run's journal of the same sizes and block size is still refused, by the plan and the
/// targets its header names (issue 43: it gave exit 6, "lost writes").
#[test]
#[serial_test::parallel]
fn a_journal_names_its_runs_plan_and_targets() {
    let tmp = Scenario::new();
    let a = journaled(&tmp, "a");
    let b = journaled(&tmp, "b");
    // `a` as a run killed before its first point was written down.
    std::fs::write(a.join("results.jsonl"), "").expect("results.jsonl emptied");
    std::fs::remove_file(a.join("results.json")).expect("results.json removed");
    std::fs::copy(b.join("journal.map"), a.join("journal.map")).expect("b's journal over a's");
    not_this_runs(&a, "another run's journal, nothing stamped");
    let out = rigel().arg("verify").arg(&a).run();
    out.stderr_has("another run's journal");
}

/// A spec reached through a symlink (named on the command line, or as a parent by `extends`)
/// whose target is a token: the error names the place, and quotes none of the linked file.
#[test]
#[serial_test::parallel]
fn an_error_about_a_linked_spec_quotes_none_of_it() {
    let tmp = Scenario::new();
    let secret = tmp.join("token.txt");
    std::fs::write(&secret, "SECRET-TOKEN-abc123\n").expect("the token");
    let link = tmp.join("spec.toml");
    std::os::unix::fs::symlink(&secret, &link).expect("the link");
    let child = tmp.join("child.toml");
    std::fs::write(&child, "[spec]\nname = \"c\"\nextends = \"spec.toml\"\n").expect("child");
    for spec in [&link, &child] {
        let out = rigel().arg("check").arg(spec).run().code(2);
        out.stderr_has("spec.toml:1:");
        assert!(!out.stderr.contains("SECRET"), "{}", out.stderr);
    }
}
