//! The summary's answers from real runs (issue 42): a log writer that commits each write
//! (`postgres-wal`'s shape: 8 KiB writes, each followed by an fdatasync) on a loop device is
//! headlined by its commit latency (write + flush), taken at its highest load, not by the write
//! alone at its quietest point.

use super::builder::rigel;
use super::scenario::{Scenario, Spec};
use serde_json::Value;

#[test]
#[serial_test::parallel]
fn a_committing_log_writer_headlines_its_commit_latency_under_its_highest_load() {
    let tmp = Scenario::new();
    let dev = tmp.loop_device(64 << 20);
    let spec = Spec::named("wal")
        .destructive_target(dev.dev())
        .set("run.duration", "1s")
        .set("run.warmup", "0s")
        .set("class.wal.size", "8KiB")
        .set("class.wal.access", "sequential")
        .set("class.wal.per_stream", 1)
        .set("class.wal.mix", "write")
        .set("class.wal.durability", "fdatasync:1")
        .set("matrix.wal", "1, 4");
    let spec = tmp.spec("wal.toml", &spec);
    let run = tmp.run(&spec, "run", &["--allow-destructive"]).code(0);
    let doc = run.results();
    let report = std::fs::read_to_string(run.folder.join("report.md")).expect("report.md");
    let from = report.find("## Verdict").expect("a summary");
    let summary = &report[from..from + report[from..].find("<!-- page -->").expect("page end")];
    let line = summary
        .lines()
        .find(|l| l.contains("Commit p99 (write + flush)"))
        .unwrap_or_else(|| panic!("no commit latency in the summary:\n{summary}"));
    assert!(line.contains("wal=4"), "not at the highest load: {line}");
    assert!(!summary.contains("Redo write p99"), "{summary}");
    // What it reports is the commit, which waits for the write and then the flush.
    let at4 = doc["points"]
        .as_array()
        .expect("points")
        .iter()
        .find(|p| p["point"]["classes"][0]["load"] == 4)
        .expect("the point at wal=4");
    let class = &at4["classes"][0];
    let commit = class["commit"]["latency"]["p99_ns"]
        .as_u64()
        .expect("commit p99");
    let write = class["total"]["latency"]["p99_ns"]
        .as_u64()
        .expect("write p99");
    assert!(
        commit >= write,
        "commit p99 {commit} below the write's {write}"
    );
}

/// `[answers]` is read as `[expect]` is: each mistake in one pass, at its file:line:col, with a
/// hint, and `rigel plan` exits 2.
#[test]
#[serial_test::parallel]
fn an_answers_mistakes_are_spanned_with_a_hint_and_exit_2() {
    let tmp = Scenario::new();
    let target = tmp.file("t.bin", 1 << 20);
    let spec = Spec::named("bad-answers")
        .target(&target, &[])
        .set("class.oltp.size", "8KiB")
        .set("matrix.oltp", "1, 2")
        .at(&["answers", "oltp IOPS", "figure"], "oltp.iosp")
        .at(&["answers", "oltp IOPS", "at"], "hottest")
        .at(&["answers", "oltp IOPS", "per"], "oltpp.size")
        .at(&["answers", "lat", "figure"], "oltp.read.latency.p99")
        .at(
            &["answers", "lat", "where"],
            "oltp.read.latency.p99 <= 1 parsec",
        );
    let path = tmp.spec("bad.toml", &spec);
    let out = super::builder::rigel().arg("plan").arg(&path).run().code(2);
    let text = std::fs::read_to_string(&path).unwrap();
    let line_of = |needle: &str| {
        1 + text
            .lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle} in\n{text}"))
    };
    for (needle, message, hint) in [
        ("oltp.iosp", "unknown metric `iosp`", "did you mean `iops`?"),
        ("hottest", "unknown `at` \"hottest\"", "highest load"),
        ("oltpp.size", "no class `oltpp`", "did you mean `oltp`?"),
        ("parsec", "parsec", ""),
    ] {
        let at = format!("bad.toml:{}:", line_of(needle));
        out.stderr_has(&at).stderr_has(message).stderr_has(hint);
    }
}

// ---- compare answers (from its own file) ----
// `rigel compare` over two runs with nothing in common (issue 42): it says so and exits 2 instead
// of "no regression … over 0 matched points".

#[test]
#[serial_test::parallel]
fn two_runs_with_nothing_in_common_say_so_and_exit_2() {
    let tmp = tempfile::tempdir_in("/dev/shm").expect("a tmpfs temp dir");
    let base: Value =
        serde_json::from_str(rigel_testkit::fixtures::BASIC).expect("the fixture parses");
    let mut other = base.clone();
    other["points"] = Value::Array(Vec::new());
    other["plan"]["answers"] = serde_json::json!([
        {"name": "something else", "figure": "small.iops", "at": "best"}
    ]);
    let (a, b) = (tmp.path().join("a.json"), tmp.path().join("b.json"));
    std::fs::write(&a, base.to_string()).unwrap();
    std::fs::write(&b, other.to_string()).unwrap();
    let out = rigel().arg("compare").arg(&a).arg(&b).run().code(2);
    out.stdout_has("nothing in common");
    out.stderr_has("nothing was compared");
    // A run against itself has its answers in common: compared, exit 0.
    rigel()
        .arg("compare")
        .arg(&a)
        .arg(&a)
        .run()
        .code(0)
        .stdout_has("Max IOPS");
}
