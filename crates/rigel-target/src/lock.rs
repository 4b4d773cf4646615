//! Advisory locks (`flock`) that keep two rigels apart: on a run folder's lock file, and on a
//! target (a test file or a block device) while it is created, filled, written or read: readers
//! share it, a writer has it alone. A lock that is held is refused at once (never waited for),
//! naming the holder's pid as `/proc/locks` reports it; a reader sharing a target with another
//! is told so (see [`others_holding`]).

use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Another process holds the lock: who, when the kernel tells.
#[derive(Debug, thiserror::Error)]
#[error(
    "{path}: in use by another rigel{} (creating, filling or writing it, or reading it while this \
     run writes it); wait for it to end, or stop it",
    holder_text(*.holder)
)]
pub struct Held {
    pub path: PathBuf,
    pub holder: Option<u32>,
}

fn holder_text(holder: Option<u32>) -> String {
    holder.map_or_else(String::new, |pid| format!(" (pid {pid})"))
}

/// Shared (several readers) or exclusive (one creator, filler or writer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockKind {
    Shared,
    Exclusive,
}

/// Takes (or converts) the lock on `file` without waiting. `Ok(Err(held))` when another process
/// holds a conflicting one; `Err` for any other failure of the call.
pub fn try_lock(file: &File, path: &Path, kind: LockKind) -> io::Result<Result<(), Held>> {
    use rustix::fs::{FlockOperation, flock};
    let op = match kind {
        LockKind::Shared => FlockOperation::NonBlockingLockShared,
        LockKind::Exclusive => FlockOperation::NonBlockingLockExclusive,
    };
    match flock(file.as_fd(), op) {
        Ok(()) => Ok(Ok(())),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(Err(Held {
            path: path.to_path_buf(),
            holder: holder_of(file),
        })),
        Err(e) => Err(e.into()),
    }
}

/// The pid of a process holding a flock on `file`'s inode, from `/proc/locks` (for flock locks it
/// names the process that took the lock).
pub fn holder_of(file: &File) -> Option<u32> {
    let meta = file.metadata().ok()?;
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    let me = std::process::id();
    find_holder(&locks, meta.dev(), meta.ino()).filter(|&pid| pid != me)
}

/// Other processes holding a flock on `file`'s inode (readers sharing a target), from
/// `/proc/locks`; this process left out.
pub fn others_holding(file: &File) -> Vec<u32> {
    let Ok(meta) = file.metadata() else {
        return Vec::new();
    };
    let locks = std::fs::read_to_string("/proc/locks").unwrap_or_default();
    let me = std::process::id();
    let mut pids = holders(&locks, meta.dev(), meta.ino());
    pids.retain(|&p| p != me);
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// The first FLOCK holder of the inode `ino` on device `dev` in `/proc/locks` text, whose lines
/// read `1: FLOCK  ADVISORY  WRITE 1234 fe:00:5342739 0 EOF` (major and minor in hex).
fn find_holder(locks: &str, dev: u64, ino: u64) -> Option<u32> {
    holders(locks, dev, ino).into_iter().next()
}

/// Every FLOCK holder of the inode, in `/proc/locks` order.
fn holders(locks: &str, dev: u64, ino: u64) -> Vec<u32> {
    let want = format!(
        "{:02x}:{:02x}:{ino}",
        rustix::fs::major(dev),
        rustix::fs::minor(dev)
    );
    locks
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // A blocked waiter's line starts with "->": skip it, it holds nothing.
            if fields.get(1) != Some(&"FLOCK") || fields.get(5) != Some(&want.as_str()) {
                return None;
            }
            fields.get(4)?.parse().ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_holder_by_device_and_inode() {
        let locks = "1: POSIX  ADVISORY  WRITE 11 fe:00:77 0 EOF\n\
                     2: FLOCK  ADVISORY  WRITE 4242 fe:00:77 0 EOF\n\
                     2: -> FLOCK  ADVISORY  WRITE 99 fe:00:77 0 EOF\n";
        let dev = rustix::fs::makedev(0xfe, 0);
        assert_eq!(find_holder(locks, dev, 77), Some(4242));
        assert_eq!(find_holder(locks, dev, 78), None);
        let shared = "1: FLOCK  ADVISORY  READ 11 fe:00:77 0 EOF\n\
                      2: FLOCK  ADVISORY  READ 12 fe:00:77 0 EOF\n";
        assert_eq!(holders(shared, dev, 77), vec![11, 12]);
    }

    #[test]
    fn a_second_open_file_is_refused_and_the_holder_named() {
        // flock locks belong to the open file description: two opens conflict even in one process,
        // and /proc/locks names this process (which holder_of leaves out, as it is not "another").
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let a = File::create(&path).unwrap();
        let b = File::open(&path).unwrap();
        try_lock(&a, &path, LockKind::Exclusive).unwrap().unwrap();
        let held = try_lock(&b, &path, LockKind::Shared).unwrap().unwrap_err();
        assert_eq!(held.path, path);
        let locks = std::fs::read_to_string("/proc/locks").unwrap();
        let meta = a.metadata().unwrap();
        assert_eq!(
            find_holder(&locks, meta.dev(), meta.ino()),
            Some(std::process::id())
        );
        drop(a);
        try_lock(&b, &path, LockKind::Shared).unwrap().unwrap();
    }
}
