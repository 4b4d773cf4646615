//! `[expect]` on what a workload class measures beyond its total: a size of its mix
//! (`@ oltp.size=8KiB` judges that size's own figures, from its own histograms) and its commits
//! (`redo.commit.latency.p99`), judged on a real run through the executor; the per-size and commit
//! rows of results.json and of the Markdown and HTML reports; and `rigel check`'s spanned errors
//! for such keys that cannot hold.

use super::builder::{results, rigel};
use super::scenario::Scenario;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A spec over a 64 MiB file that rigel creates in `dir`: `oltp`, a 70/30 mix of 8 KiB and
/// 64 KiB I/Os, and `redo`, 8 KiB writes at 200 IOPS (poisson, at most 8 out) made durable 4 at
/// a time; `expect` is its `[expect]` body. The rate is well inside what a loaded host serves: a
/// point whose rate is not achieved is not judged (at 500 IOPS with 4 out, a loaded suite left
/// 2 sends due at the window's end).
fn spec(dir: &Path, expect: &str) -> PathBuf {
    let text = format!(
        "[spec]\nname = \"wl\"\n\n[[target]]\npath = \"{}/data.bin\"\nsize = \"64MiB\"\n\n\
         [run]\nduration = \"1s\"\nwarmup = \"100ms\"\n\n\
         [class.oltp]\nsize = \"8KiB:60%, 64KiB:40%\"\nmix = \"70/30\"\n\n\
         [class.redo]\nsize = \"8KiB\"\nmix = \"write\"\nrate = \"200 iops\"\n\
         arrival = \"poisson\"\ndurability = \"fdatasync:4\"\n\n\
         [matrix]\nshape = \"point\"\noltp = \"4\"\nredo = \"8\"\n\n[expect]\n{expect}\n",
        dir.display()
    );
    let path = dir.join("wl.toml");
    std::fs::write(&path, text).expect("spec written");
    path
}

/// `rigel check` and `rigel plan` both refuse the spec at `path` with exit 2, saying `at`
/// (file:line:col) and each of `needles` (the message, the hint).
pub(super) fn refused_where_written(path: &Path, at: &str, needles: &[&str]) {
    for cmd in ["check", "plan"] {
        let out = rigel().arg(cmd).arg(path).run().code(2);
        out.stderr_has(at);
        for n in needles {
            out.stderr_has(n);
        }
    }
}

fn verdict<'a>(doc: &'a Value, key: &str) -> &'a Value {
    doc["verdicts"]
        .as_array()
        .expect("verdicts")
        .iter()
        .find(|v| v["key"] == key)
        .unwrap_or_else(|| panic!("no verdict for {key}: {}", doc["verdicts"]))
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
#[serial_test::parallel]
fn a_size_of_a_mix_and_the_commits_are_judged_on_their_own_figures() {
    let tmp = Scenario::new();
    let path = spec(
        tmp.path(),
        "\"oltp.read.latency.p99 @ oltp.size=8KiB\" = \"< 10s\"\n\
         \"oltp.iops @ oltp.size=64KiB\" = \">= 1\"\n\
         \"redo.commit.latency.p99\" = \"< 10s\"\n\
         \"redo.commit.iops\" = \">= 1\"\n",
    );
    // The redo class's 200 IOPS is well inside what a loaded host serves, but a host that holds
    // rigel itself past the rate's tolerance misses it (send lag p99 69.7 ms beside a build), and
    // a point whose rate was not achieved is rightly not judged (exit 3): the premise failed, not
    // the judging, and the run is made again (at most three times).
    let (run, out) = (0..3)
        .map(|i| {
            let out = tmp.path().join(format!("run-{i}"));
            let run = rigel().arg("run").arg(&path).arg("--out").arg(&out).run();
            (run, out)
        })
        .find(|(run, out)| {
            if run.code != 3 {
                return true;
            }
            let pace = &results(out)["points"][0]["classes"][1]["pace"];
            eprintln!("exit 3, redo's pace: {pace}");
            pace["achieved"] != false
        })
        .expect("redo's rate achieved in one of three runs");
    run.code(0).stdout_has("commits/s");
    let doc = results(&out);
    let oltp = &doc["points"][0]["classes"][0];
    let sizes = oltp["sizes"].as_array().expect("sizes");
    assert_eq!(sizes.len(), 2, "{sizes:?}");
    let (small, large) = (&sizes[0], &sizes[1]);
    assert_eq!(
        (small["size"].as_u64(), large["size"].as_u64()),
        (Some(8192), Some(65536))
    );
    // Each size's rows are its own I/Os: they add up to the class's, counts and rates.
    let ios: u64 = sizes
        .iter()
        .map(|s| s["total"]["ios"].as_u64().expect("ios"))
        .sum();
    assert_eq!(ios, oltp["total"]["ios"].as_u64().expect("class ios"));
    let iops: f64 = sizes.iter().map(|s| f(&s["total"]["iops"])).sum();
    assert!((iops - f(&oltp["total"]["iops"])).abs() < 1e-6 * iops.max(1.0));
    let bytes: u64 = sizes
        .iter()
        .map(|s| s["total"]["bytes"].as_u64().expect("bytes"))
        .sum();
    assert_eq!(bytes, oltp["total"]["bytes"].as_u64().expect("class bytes"));
    assert_eq!(
        small["total"]["bytes"].as_u64(),
        small["total"]["ios"].as_u64().map(|n| n * 8192)
    );
    for s in sizes {
        for d in ["total", "read", "write"] {
            let l = &s[d]["latency"];
            assert!(
                f(&l["p99_ns"]) <= f(&l["max_ns"])
                    && f(&l["max_ns"]) <= f(&oltp[d]["latency"]["max_ns"]),
                "{d} of {}: {l}",
                s["size"]
            );
        }
    }
    // The verdicts read the size's rows, not the class's.
    let v = verdict(&doc, "oltp.read.latency.p99 @ oltp.size=8KiB");
    assert_eq!(
        f(&v["measured"]),
        f(&small["read"]["latency"]["p99_ns"]),
        "{v}"
    );
    let v = verdict(&doc, "oltp.iops @ oltp.size=64KiB");
    assert_eq!(f(&v["measured"]), f(&large["total"]["iops"]), "{v}");
    assert!(f(&v["measured"]) < f(&oltp["total"]["iops"]), "{v}");
    let commit = &doc["points"][0]["classes"][1]["commit"];
    let v = verdict(&doc, "redo.commit.latency.p99");
    assert_eq!(f(&v["measured"]), f(&commit["latency"]["p99_ns"]), "{v}");
    let v = verdict(&doc, "redo.commit.iops");
    assert_eq!(f(&v["measured"]), f(&commit["per_s"]), "{v}");
    // The reports carry a line per size and the commits.
    let md = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(
        md.contains("## Size mixes") && md.contains("## Commits"),
        "{md}"
    );
    assert!(
        md.contains("| oltp | 8 KiB | 60.0% |") && md.contains("| oltp | 64 KiB | 40.0% |"),
        "{md}"
    );
    assert!(md.contains("| redo | fdatasync:4 |"), "{md}");
    let html = std::fs::read_to_string(out.join("report.html")).expect("report.html");
    assert!(html.contains("id=\"size-mixes\"") && html.contains("id=\"commits\""));
}

/// Keys that cannot hold are refused before any I/O, each underlined in its key.
#[test]
#[serial_test::parallel]
fn commit_and_size_keys_that_cannot_hold_are_refused_where_written() {
    let tmp = tempfile::tempdir().expect("a temp dir");
    for (expect, at, message, hint) in [
        (
            "\"oltp.commit.latency.p99\" = \"< 2ms\"",
            "wl.toml:29:2",
            "class `oltp` never commits",
            "durability = \"fdatasync:N\"",
        ),
        (
            "\"redo.commit.mbps\" = \">= 1MiB/s\"",
            "wl.toml:29:2",
            "a commit moves no bytes of its own",
            "redo.commit.iops",
        ),
        (
            "\"oltp.iops @ oltp.size=16KiB\" = \">= 1\"",
            "wl.toml:29:14",
            "no point of the plan has oltp.size=16KiB",
            "oltp's sizes: 8KiB, 64KiB",
        ),
    ] {
        let path = spec(tmp.path(), expect);
        refused_where_written(&path, at, &[message, hint]);
    }
}

/// A sequential class's stream moves on by each size it draws, in steps of the smallest: a mix
/// with a size that is not a multiple of it is refused at the value, for `check` and `plan`.
#[test]
#[serial_test::parallel]
fn a_sequential_mix_of_sizes_not_multiples_of_the_smallest_is_refused_where_written() {
    let tmp = tempfile::tempdir().expect("a temp dir");
    let path = tmp.path().join("seq.toml");
    let text = format!(
        "[[target]]\npath = \"{}/data.bin\"\nsize = \"64MiB\"\n\n\
         [class.scan]\naccess = \"sequential\"\nsize = \"8KiB, 12KiB\"\n\n\
         [matrix]\nshape = \"point\"\nscan = \"1\"\n",
        tmp.path().display()
    );
    std::fs::write(&path, text).expect("spec written");
    refused_where_written(
        &path,
        "seq.toml:7:8",
        &[
            "12KiB is not a multiple of the mix's smallest size, 8KiB",
            "make every size a multiple of it",
        ],
    );
    let ok = std::fs::read_to_string(&path)
        .expect("spec")
        .replace("8KiB, 12KiB", "8KiB:75%, 64KiB:25%");
    std::fs::write(&path, ok).expect("spec written");
    rigel().arg("check").arg(&path).run().code(0);
}
