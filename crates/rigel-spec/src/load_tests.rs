//! Loading specs from disk: only regular files of bounded size, each file of an `extends` graph
//! once, parents found by path or by library name.

use super::{SpecInput, load};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

const CLASS: &str = "[class.small]\nsize = \"8KiB\"\n[matrix]\nsmall = \"1\"\n";

/// Loads on another thread, so a load that blocks fails the test instead of hanging it.
fn load_within(path: &Path, secs: u64) -> Result<String, String> {
    let (tx, rx) = mpsc::channel();
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let r = load(SpecInput::File(&path), &[], 2)
            .map(|l| l.resolved_toml)
            .map_err(|d| d.short());
        let _ = tx.send(r);
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .expect("loading a spec must not block")
}

#[test]
fn a_fifo_is_refused_at_once_as_spec_and_as_parent() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.toml");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let err = load_within(&fifo, 5).unwrap_err();
    assert!(err.contains("it is a FIFO, not a regular file"), "{err}");

    let child = dir.path().join("child.toml");
    std::fs::write(&child, "[spec]\nextends = \"pipe.toml\"\n").unwrap();
    let err = load_within(&child, 5).unwrap_err();
    assert!(
        err.contains("child.toml:2:"),
        "points at the extends: {err}"
    );
    assert!(err.contains("FIFO"), "{err}");
}

#[test]
fn a_device_or_a_huge_file_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let child = dir.path().join("child.toml");
    std::fs::write(&child, "[spec]\nextends = \"/dev/zero\"\n").unwrap();
    let err = load_within(&child, 5).unwrap_err();
    assert!(err.contains("character device"), "{err}");

    let big = dir.path().join("big.toml");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(super::source::MAX_SPEC_BYTES + 1).unwrap();
    let err = load_within(&big, 5).unwrap_err();
    assert!(err.contains("more than a spec may (16 MiB)"), "{err}");
}

/// A diamond of `levels` levels: each level's two specs extend both specs of the next one.
fn diamond(dir: &Path, levels: usize) -> std::path::PathBuf {
    for i in 0..levels {
        for side in ["a", "b"] {
            let text = if i + 1 == levels {
                format!("[run]\nseed = {i}\n")
            } else {
                format!(
                    "[spec]\nextends = [\"a{}.toml\", \"b{}.toml\"]\n",
                    i + 1,
                    i + 1
                )
            };
            std::fs::write(dir.join(format!("{side}{i}.toml")), text).unwrap();
        }
    }
    let top = dir.join("top.toml");
    std::fs::write(
        &top,
        format!("[spec]\nextends = [\"a0.toml\", \"b0.toml\"]\n[[target]]\npath = \"x\"\n{CLASS}"),
    )
    .unwrap();
    top
}

#[test]
fn each_file_of_a_diamond_is_loaded_once() {
    let dir = tempfile::tempdir().unwrap();
    let levels = 24; // 2^24 loads if each path through the graph loaded its files again
    let top = diamond(dir.path(), levels);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(load(SpecInput::File(&top), &[], 2).map(|l| l.sources));
    });
    let sources = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("a diamond loads in linear time")
        .expect("the diamond is a valid spec");
    let files = (0..)
        .map_while(|i| sources.try_get(super::SourceId(i)))
        .filter(|s| s.path.is_some())
        .count();
    assert_eq!(files, 2 * levels + 1, "each file read once");
}

#[test]
fn extends_by_library_name_and_relative_paths_inside_the_builtins() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("mine.toml");
    // `base` is the built-in partial base (RIGEL_PATH is not set in unit tests).
    std::fs::write(&spec, format!("[spec]\nextends = \"base\"\n{CLASS}")).unwrap();
    let resolved = load_within(&spec, 5).unwrap();
    assert!(resolved.contains("builtin:base"), "{resolved}");
    assert!(resolved.contains("mine.toml"), "{resolved}");

    // A built-in that extends `base.toml` relative to itself.
    let loaded = load(SpecInput::Arg(Path::new("oltp-70-30")), &[], 2).unwrap();
    assert!(
        loaded
            .resolved_toml
            .starts_with("# The resolved spec: extends, ${vars} and --set applied. It came from:\n#   builtin:oltp-70-30\n#   builtin:base\n"),
        "{}",
        loaded.resolved_toml
    );
    assert_eq!(loaded.spec.name, "oltp-70-30");
}

#[test]
fn a_missing_parent_name_lists_the_places_searched() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("mine.toml");
    std::fs::write(&spec, "[spec]\nextends = \"acme/nosuch\"\n").unwrap();
    let err = load(SpecInput::File(&spec), &[], 2).unwrap_err();
    let text = err.render(false);
    assert!(text.contains("no spec named `acme/nosuch`"), "{text}");
    assert!(text.contains("the built-in specs"), "{text}");
}
