//! `sqpoll = true`: io_uring's kernel submission thread on page-cache reads (no device needed),
//! its CPU stated and counted in the point's CPU; and the spec errors of its keys.

use super::builder::rigel;
use super::scenario::{Scenario, Spec};

/// 4 KiB buffered random reads of a 16 MiB file for 1 s at 4 outstanding, with `keys` in [run].
fn spec(scene: &Scenario, keys: &[(&str, toml::Value)]) -> Spec {
    let data = scene.file("data.bin", 16 << 20);
    let mut s = Spec::named("sq")
        .target(&data, &[])
        .set("run.duration", "1s")
        .set("run.warmup", "200ms")
        .set("run.direct", false)
        .set("class.small.size", "4KiB")
        .set("class.small.mix", "read")
        .set("matrix.shape", "point")
        .set("matrix.small", "4");
    for (k, v) in keys {
        s = s.set(&format!("run.{k}"), v.clone());
    }
    s
}

/// The run completes on a ring with a submission thread: the engine's options say so, the
/// point's CPU states the thread's share (read from the thread itself, `iou-sqp-TID`) inside the
/// process's CPU, and the end-of-run engine line tells it.
#[test]
#[serial_test::parallel]
fn a_sqpoll_run_completes_and_states_its_submission_threads_cpu() {
    let scene = Scenario::new();
    let s = spec(
        &scene,
        &[("sqpoll", true.into()), ("sq_thread_idle", "10ms".into())],
    );
    let path = scene.spec("sq.toml", &s);
    let plan = rigel().arg("plan").arg(&path).run().code(0);
    assert!(
        plan.stdout.contains(
            "sqpoll (a kernel submission thread per worker, unpinned, asleep after 10ms idle)"
        ),
        "{}",
        plan.stdout
    );
    let run = scene.run(&path, "out", &[]).code(0);
    let doc = run.results();
    let p = &doc["points"][0];
    assert_eq!(
        p["engines"][0]["options"]["sqpoll"], "unpinned, idle 10 ms",
        "{p}"
    );
    let cpu = &p["cpu"];
    let sq = cpu["sq_thread_s"]
        .as_f64()
        .unwrap_or_else(|| panic!("no submission thread CPU: {cpu}"));
    let all = cpu["user_s"].as_f64().unwrap_or(0.0) + cpu["system_s"].as_f64().unwrap_or(0.0);
    // The thread polls the ring through the window: it ran, and inside the process's CPU (its
    // window is the worker's loop, a few ms longer than the coordinator's).
    assert!(
        sq > 0.01 && sq <= all + 0.05,
        "sq thread {sq} s of {all} s: {cpu}"
    );
    let said = format!("{}{}", run.output.stdout, run.output.stderr);
    assert!(
        said.contains("sqpoll: the kernel submission threads used"),
        "{said}"
    );
}

/// A run without sqpoll records no submission thread.
#[test]
#[serial_test::parallel]
fn without_sqpoll_no_submission_thread_is_recorded() {
    let scene = Scenario::new();
    let path = scene.spec("plain.toml", &spec(&scene, &[("duration", "300ms".into())]));
    let doc = scene.run(&path, "out", &[]).code(0).results();
    let p = &doc["points"][0];
    assert!(p["cpu"].get("sq_thread_s").is_none(), "{p}");
    assert!(p["engines"][0]["options"].get("sqpoll").is_none(), "{p}");
}

/// A spec's extra [run] keys.
type Keys<'a> = &'a [(&'a str, toml::Value)];

/// The submission thread's settings without it, and sqpoll on an engine that has no submission
/// thread, are spec errors where written.
#[test]
#[serial_test::parallel]
fn sqpoll_keys_are_refused_where_they_cannot_apply() {
    let scene = Scenario::new();
    let cases: [(Keys, &str, &str); 3] = [
        (
            &[("sq_thread_cpu", 0.into())],
            "`sq_thread_cpu` sets the submission thread of sqpoll, which is off",
            "sq_thread_cpu = 0",
        ),
        (
            &[("sqpoll", true.into()), ("engine", "psync".into())],
            "sqpoll is an io_uring option, and class `small` runs on psync",
            "sqpoll = true",
        ),
        (
            &[("sqpoll", true.into()), ("sq_thread_idle", "2h".into())],
            "`sq_thread_idle` must be between 1ms and 1h",
            "sq_thread_idle = \"2h\"",
        ),
    ];
    for (i, (keys, message, key)) in cases.iter().enumerate() {
        let s = spec(&scene, keys);
        let text = s.text();
        let path = scene.spec(&format!("bad{i}.toml"), &s);
        let out = rigel().arg("check").arg(&path).run().code(2);
        let line = text
            .lines()
            .position(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("{key} in {text}"))
            + 1;
        let col = key.find('=').map_or(1, |e| e + 3);
        let at = format!("bad{i}.toml:{line}:{col}");
        let words = words(&out.stderr);
        assert!(
            words.contains(message) && out.stderr.contains(&at),
            "wanted {message} at {at}:\n{}",
            out.stderr
        );
    }
    let ok = scene.spec("ok.toml", &spec(&scene, &[("sqpoll", true.into())]));
    rigel().arg("check").arg(&ok).run().code(0);
    let refused = rigel()
        .args(["check", "--engine", "psync"])
        .arg(&ok)
        .run()
        .code(2);
    assert!(
        refused
            .stderr
            .contains("the spec asks for sqpoll, an io_uring option"),
        "{}",
        refused.stderr
    );
}

// ---- polled (from its own file) ----
// `polled = true` on this host (no device with poll queues here: the NVMe guest,
// `nvme_vm.rs`, runs it): the refusals `check` gives where the key is written.

/// 4 KiB reads of a 1 MiB file on tmpfs with `polled = true` and `keys` in [run].
fn polled_spec(scene: &Scenario, keys: &[(&str, toml::Value)]) -> Spec {
    let data = scene.file("data.bin", 1 << 20);
    let mut s = Spec::named("polled")
        .target(&data, &[])
        .set("run.duration", "1s")
        .set("run.polled", true)
        .set("class.small.size", "4KiB")
        .set("class.small.mix", "read")
        .set("matrix.shape", "point")
        .set("matrix.small", "1");
    for (k, v) in keys {
        s = s.set(&format!("run.{k}"), v.clone());
    }
    s
}

/// A diagnostic's words, out of its wrapped lines and its margin (`│`): a message reads as
/// one line however the terminal width wrapped it.
pub fn words(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().filter(|w| *w != "│").collect();
    words.join(" ")
}

/// The `polled = true` line and column in `text` (the value's).
fn polled_at(text: &str, file: &str) -> String {
    let line = text
        .lines()
        .position(|l| l.starts_with("polled = true"))
        .expect("polled in the spec")
        + 1;
    format!("{file}:{line}:10")
}

/// Buffered I/O has nothing to poll, and a target with no block device below it (tmpfs) no
/// poll queues: each is refused at `polled`, as `run` refuses it before making a folder.
#[test]
#[serial_test::parallel]
fn polled_is_refused_where_written_without_o_direct_or_poll_queues() {
    let scene = Scenario::new();
    let cases: [(&str, Spec, &str); 2] = [
        (
            "buffered.toml",
            polled_spec(&scene, &[("direct", false.into())]),
            "polled completions need O_DIRECT",
        ),
        (
            "tmpfs.toml",
            polled_spec(&scene, &[]),
            "has no block device below it (its filesystem is in memory or on the network), so \
             nothing to poll",
        ),
    ];
    for (name, s, message) in cases {
        let path = scene.spec(name, &s);
        let at = polled_at(&s.text(), name);
        for cmd in ["check", "plan"] {
            let out = rigel().arg(cmd).arg(&path).run().code(2);
            let words: Vec<&str> = out
                .stderr
                .split_whitespace()
                .filter(|w| *w != "│")
                .collect();
            let words = words.join(" ");
            assert!(
                words.contains(message) && out.stderr.contains(&at),
                "{cmd} {name}: wanted {message} at {at}:\n{}",
                out.stderr
            );
        }
        let run = scene.run(&path, &format!("out-{name}"), &[]).code(2);
        assert!(!run.folder.exists(), "{name}: a run folder was made");
    }
}
