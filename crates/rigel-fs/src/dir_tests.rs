//! Tests of the descriptor-relative folder I/O: writes and reads beneath a folder never follow a
//! link.

use super::*;
use crate::{read_beneath, read_no_follow};
use std::os::unix::fs::symlink;

#[test]
fn atomic_writes_replace_a_planted_link_and_never_follow_it() {
    let tmp = tempfile::tempdir().unwrap();
    let victim = tmp.path().join("victim");
    std::fs::write(&victim, b"keep").unwrap();
    let (dir, fresh) = Dir::create_fresh(&tmp.path().join("run")).unwrap();
    assert_eq!(fresh, Fresh::Created);
    symlink(&victim, dir.join("report.md")).unwrap();
    dir.write_atomic("report.md", b"new").unwrap();
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
    assert_eq!(std::fs::read(dir.join("report.md")).unwrap(), b"new");
    assert!(
        !std::fs::symlink_metadata(dir.join("report.md"))
            .unwrap()
            .is_symlink()
    );
    // No temporary name is left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn opening_through_a_link_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, _) = Dir::create_fresh(&tmp.path().join("run")).unwrap();
    std::fs::write(tmp.path().join("victim"), b"keep").unwrap();
    symlink(tmp.path().join("victim"), dir.join("rigel.lock")).unwrap();
    let err = dir
        .open_file("rigel.lock", OFlags::RDWR | OFlags::CREATE)
        .unwrap_err();
    assert!(matches!(err, FsError::Symlink { .. }), "{err}");
    let err = dir.create_new("rigel.lock").unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc_eexist()), "{err}");
    // A linked sub-folder is not entered either.
    symlink(tmp.path(), dir.join("hlog")).unwrap();
    assert!(dir.write_atomic("hlog/a.hlog", b"x").is_err());
    assert!(!tmp.path().join("a.hlog").exists());
    assert_eq!(std::fs::read(tmp.path().join("victim")).unwrap(), b"keep");
}

fn libc_eexist() -> i32 {
    rustix::io::Errno::EXIST.raw_os_error()
}

#[test]
fn a_folder_to_fill_must_be_new_or_empty_and_not_a_link() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    assert_eq!(Dir::create_fresh(&out).unwrap().1, Fresh::Empty);
    std::fs::write(out.join("planted"), b"").unwrap();
    let err = Dir::create_fresh(&out).unwrap_err();
    assert!(
        matches!(err, FsError::NotEmpty { ref first, .. } if first == "planted"),
        "{err}"
    );
    symlink(tmp.path(), tmp.path().join("link")).unwrap();
    let err = Dir::create_fresh(&tmp.path().join("link")).unwrap_err();
    assert!(matches!(err, FsError::Symlink { .. }), "{err}");
}

#[test]
fn nested_names_stay_beneath_the_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, _) = Dir::create_fresh(&tmp.path().join("run")).unwrap();
    dir.write_atomic("a/b/c.txt", b"x").unwrap();
    assert_eq!(dir.read("a/b/c.txt").unwrap(), b"x");
    assert!(dir.exists("a/b/c.txt"));
    assert!(dir.write_atomic("../escape", b"x").is_err());
    assert!(dir.write_atomic("/etc/escape", b"x").is_err());
    assert!(!tmp.path().join("escape").exists());
}

#[test]
fn reading_refuses_links() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("secret"), b"token").unwrap();
    std::fs::create_dir(tmp.path().join("t")).unwrap();
    std::fs::write(tmp.path().join("t/ok.md"), b"{{ x }}").unwrap();
    symlink(tmp.path().join("secret"), tmp.path().join("t/bad.md")).unwrap();
    symlink(tmp.path().join("secret"), tmp.path().join("link")).unwrap();
    let t = tmp.path().join("t");
    assert_eq!(
        read_beneath(&t, Path::new("ok.md"), 100).unwrap(),
        "{{ x }}"
    );
    assert!(read_beneath(&t, Path::new("bad.md"), 100).is_err());
    assert!(read_beneath(&t, Path::new("../secret"), 100).is_err());
    assert!(read_no_follow(&tmp.path().join("link"), 100).is_err());
    assert_eq!(
        read_no_follow(&tmp.path().join("secret"), 100).unwrap(),
        "token"
    );
    assert!(read_no_follow(&tmp.path().join("secret"), 3).is_err());
}
