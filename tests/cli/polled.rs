//! `polled = true` on this host (no device with poll queues here: the NVMe guest,
//! `nvme_vm.rs`, runs it): the refusals `check` gives where the key is written.

use super::builder::rigel;
use super::scenario::{Scenario, Spec};

/// 4 KiB reads of a 1 MiB file on tmpfs with `polled = true` and `keys` in [run].
fn spec(scene: &Scenario, keys: &[(&str, toml::Value)]) -> Spec {
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
            spec(&scene, &[("direct", false.into())]),
            "polled completions need O_DIRECT",
        ),
        (
            "tmpfs.toml",
            spec(&scene, &[]),
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
