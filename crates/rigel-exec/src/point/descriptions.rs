//! Each worker's own open file description of every target, as t/io_uring opens its files per
//! thread and fio per job: workers sharing one description write the same cache lines of it on
//! every I/O (a buffered read stores its end in the description's readahead state,
//! `f_ra.prev_pos`; an I/O through an unregistered descriptor takes and drops a reference on it).

use crate::ExecTarget;
use rustix::fs::{Mode, OFlags, fcntl_getfl, open};
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};

/// The descriptors one worker issues its I/O through, one per target.
pub(crate) struct WorkerFds {
    /// The descriptions opened for this worker (closed when the point ends: a ring that still
    /// holds one, registered or in flight, keeps its own reference).
    _owned: Vec<OwnedFd>,
    pub(crate) fds: Vec<RawFd>,
}

/// The descriptors of `workers` workers: the first uses the targets' own descriptors, each other
/// one a new description of every target with the same flags. A target that cannot be opened
/// again (no /proc, a file system refusing a second open) is shared as before: slower when
/// several workers read it, never wrong.
pub(crate) fn per_worker(targets: &[ExecTarget<'_>], workers: usize) -> Vec<WorkerFds> {
    (0..workers)
        .map(|w| {
            let mut owned = Vec::new();
            let mut fds = Vec::with_capacity(targets.len());
            for t in targets {
                let own = if w > 0 { reopen(t.fd).ok() } else { None };
                match own {
                    Some(fd) => {
                        fds.push(fd.as_raw_fd());
                        owned.push(fd);
                    }
                    None => fds.push(t.fd.as_raw_fd()),
                }
            }
            WorkerFds { _owned: owned, fds }
        })
        .collect()
}

/// A new open file description of what `fd` refers to, with its status flags (access mode,
/// O_DIRECT, O_NOATIME…): /proc's link to the descriptor opens the very file, even one renamed
/// or unlinked since.
fn reopen(fd: BorrowedFd<'_>) -> rustix::io::Result<OwnedFd> {
    let flags = fcntl_getfl(fd)? | OFlags::CLOEXEC;
    open(
        format!("/proc/self/fd/{}", fd.as_raw_fd()),
        flags,
        Mode::empty(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::{File, OpenOptions};
    use std::io::Write;
    use std::os::fd::AsFd;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};

    #[test]
    #[serial_test::parallel]
    fn each_worker_after_the_first_gets_a_description_of_the_same_file_and_flags() {
        let dir = tempfile::tempdir_in("/dev/shm").expect("tempdir on tmpfs");
        let path = dir.path().join("t");
        File::create(&path)
            .and_then(|mut f| f.write_all(&[7; 4096]))
            .expect("write");
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(&path)
            .expect("open O_DIRECT");
        let targets = [ExecTarget {
            fd: file.as_fd(),
            path: "t",
        }];
        let fds = per_worker(&targets, 3);
        assert_eq!(fds[0].fds, vec![file.as_raw_fd()]);
        let raws: Vec<RawFd> = fds.iter().map(|w| w.fds[0]).collect();
        assert!(raws[1] != raws[0] && raws[2] != raws[1], "{raws:?}");
        let ino = file.metadata().expect("stat").ino();
        for w in &fds[1..] {
            // SAFETY: the descriptor is owned by `w` and outlives this borrow.
            let fd = unsafe { BorrowedFd::borrow_raw(w.fds[0]) };
            assert_eq!(rustix::fs::fstat(fd).expect("fstat").st_ino, ino);
            let flags = fcntl_getfl(fd).expect("getfl");
            assert!(flags.contains(OFlags::DIRECT), "{flags:?}");
            assert!(
                !flags.intersects(OFlags::RDWR | OFlags::WRONLY),
                "{flags:?}"
            );
        }
        // Unlinked: the description still opens through /proc.
        std::fs::remove_file(&path).expect("unlink");
        assert_ne!(per_worker(&targets, 2)[1].fds[0], file.as_raw_fd());
    }
}
