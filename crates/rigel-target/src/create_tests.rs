//! Tests of creating, growing, filling and cleaning rigel's own target files.

use super::*;
use std::fs::OpenOptions;

/// What `ensure_file` did, its descriptor dropped.
fn ensure(path: &Path, size: u64, cb: &mut OnProgress) -> Result<Preparation, TargetError> {
    ensure_file(path, size, cb).map(|(p, _)| p)
}

/// Whether the file at `path` carries rigel's mark, finished.
fn ours(path: &Path) -> bool {
    created_by_rigel(&File::open(path).unwrap(), path).unwrap()
}

fn no_progress() -> impl FnMut(&FillProgress) -> ControlFlow<()> {
    |_| ControlFlow::Continue(())
}

/// Share of 4 KiB blocks holding any non-zero byte.
fn nonzero_blocks(path: &Path) -> (usize, usize) {
    let data = fs::read(path).unwrap();
    let nonzero = data.chunks(4096).filter(|b| b.iter().any(|&x| x != 0));
    (nonzero.count(), data.len().div_ceil(4096))
}

fn create_and_fill_in(base: &str) {
    let dir = tempfile::tempdir_in(base).unwrap();
    let path = dir.path().join("data.bin");
    let size = 2 * FILL_CHUNK as u64 + 8192 + 100; // chunks, a partial chunk and a short tail
    let mut calls = Vec::new();
    let mut cb = |p: &FillProgress| {
        calls.push((p.done, p.total));
        ControlFlow::Continue(())
    };
    assert_eq!(ensure(&path, size, &mut cb).unwrap(), Preparation::Created);
    assert_eq!(fs::metadata(&path).unwrap().len(), size);
    assert_eq!(nonzero_blocks(&path), (2051, 2051));
    assert_eq!(calls.last(), Some(&(size, size)));
    assert_eq!(calls.len(), 3);
    assert!(ours(&path));
    // Random, not a repeated pattern: the two chunks differ.
    let data = fs::read(&path).unwrap();
    assert_ne!(data[..FILL_CHUNK], data[FILL_CHUNK..2 * FILL_CHUNK]);

    // Reuse does not refill.
    let before = fs::read(&path).unwrap();
    let mut count = 0;
    let mut cb = |_: &FillProgress| {
        count += 1;
        ControlFlow::Continue(())
    };
    assert_eq!(ensure(&path, size, &mut cb).unwrap(), Preparation::Reused);
    assert_eq!(count, 0);
    assert_eq!(fs::read(&path).unwrap(), before);

    // A smaller declaration reuses too; a larger one grows rigel's own file, keeping its head.
    assert_eq!(
        ensure(&path, 4096, &mut no_progress()).unwrap(),
        Preparation::Reused
    );
    let bigger = size + FILL_CHUNK as u64;
    let prep = ensure(&path, bigger, &mut no_progress()).unwrap();
    assert_eq!(prep, Preparation::Completed);
    let after = fs::read(&path).unwrap();
    assert_eq!(after.len() as u64, bigger);
    assert_eq!(after[..2 * FILL_CHUNK], before[..2 * FILL_CHUNK]);
    let (nz, total) = nonzero_blocks(&path);
    assert_eq!(nz, total);

    assert_eq!(clean([path.as_path()]).unwrap(), vec![path.clone()]);
    assert!(!path.exists());
}

#[test]
fn creates_fills_reuses_and_cleans_on_tmp() {
    create_and_fill_in("/tmp");
}

#[test]
fn creates_fills_reuses_and_cleans_on_shm() {
    assert!(
        Path::new("/dev/shm").is_dir(),
        "this test needs a tmpfs at /dev/shm"
    );
    create_and_fill_in("/dev/shm");
}

#[test]
fn an_interrupted_fill_is_redone_next_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data.bin");
    let size = 3 * FILL_CHUNK as u64;
    let mut stop = |p: &FillProgress| {
        if p.done >= FILL_CHUNK as u64 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let err = ensure(&path, size, &mut stop).unwrap_err();
    assert!(matches!(err, TargetError::Interrupted { .. }), "{err}");
    assert!(!ours(&path));
    let prep = ensure(&path, size, &mut no_progress()).unwrap();
    assert_eq!(prep, Preparation::Completed);
    let (nz, total) = nonzero_blocks(&path);
    assert_eq!(nz, total);
    assert!(ours(&path));
}

#[test]
fn no_test_file_is_created_among_devices() {
    let err = ensure(
        Path::new("/dev/rigel-no-such-disk"),
        4096,
        &mut no_progress(),
    );
    assert!(matches!(err, Err(TargetError::NoDevice { .. })), "{err:?}");
    assert!(!Path::new("/dev/rigel-no-such-disk").exists());
}

#[test]
fn a_file_that_cannot_be_preallocated_is_not_left_behind() {
    let dir = tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .unwrap();
    let path = dir.path().join("huge.bin");
    let err = ensure(&path, 1 << 60, &mut no_progress()).unwrap_err();
    assert!(err.to_string().contains("huge.bin"), "{err}");
    assert!(!path.exists());
}

/// Another rigel has just created the file (and holds its lock) but not yet marked it, at
/// size 0 or already preallocated: refused naming that rigel, not taken for a foreign file
/// (too small, or read while it is filled). flock locks belong to the open file description,
/// so a second open in this process stands for the second rigel.
#[test]
fn a_file_being_created_by_another_rigel_is_refused_as_locked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data.bin");
    for len in [0, 16384] {
        let creator = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        creator.set_len(len).unwrap();
        lock_target(&creator, &path, LockKind::Exclusive).unwrap();
        let err = ensure(&path, 16384, &mut no_progress()).unwrap_err();
        assert!(matches!(err, TargetError::Locked(_)), "size {len}: {err}");
        assert!(err.to_string().contains("in use by another rigel"), "{err}");
        drop(creator);
    }
    // Once the creator is gone, an unmarked file is a foreign one again.
    let prep = ensure(&path, 16384, &mut no_progress()).unwrap();
    assert_eq!(prep, Preparation::Foreign);
}

#[test]
fn foreign_files_are_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("users.db");
    fs::write(&path, vec![0u8; 8192]).unwrap();
    let err = ensure(&path, 16384, &mut no_progress()).unwrap_err();
    assert!(
        matches!(err, TargetError::TooSmall { actual: 8192, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("users.db"));
    let prep = ensure(&path, 8192, &mut no_progress()).unwrap();
    assert_eq!(prep, Preparation::Foreign);
    assert_eq!(fs::read(&path).unwrap(), vec![0u8; 8192]);
    assert!(clean([path.as_path()]).unwrap().is_empty());
    assert!(path.exists());
}
