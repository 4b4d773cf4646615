//! Which live process holds a flock through a file it has open: for a lock whose taker has
//! exited, the process that still holds it (a flock belongs to the open file, so a child that
//! inherited the descriptor keeps the lock of a rigel that has exited), so that the message names
//! it instead of blaming a rigel that is gone. Only a descriptor whose `fdinfo` lists the lock
//! counts: a process that merely has the file open (a test harness's loop device, udev) does not
//! hold it.

use std::fs::File;
use std::os::unix::fs::MetadataExt;

/// The first live process but this one (lowest pid, `live` deciding) with a descriptor on
/// `file`'s inode that holds the FLOCK `/proc/locks` names by `key` (`MAJ:MIN:INO`), and its
/// command (`/proc/PID/comm`); None when there is none, or /proc cannot say.
pub(crate) fn lock_holder(
    file: &File,
    key: &str,
    live: impl Fn(u32) -> bool,
) -> Option<(u32, String)> {
    let meta = file.metadata().ok()?;
    let me = std::process::id();
    let mut pids: Vec<u32> = std::fs::read_dir("/proc")
        .ok()?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter(|&pid| pid != me && live(pid))
        .collect();
    pids.sort_unstable();
    pids.into_iter().find_map(|pid| {
        let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
        let holds = fds.filter_map(Result::ok).any(|fd| {
            // The descriptor's own file (the magic link is followed: the stat is the open
            // file's), then whether this open file holds the lock (fdinfo's `lock:` lines).
            std::fs::metadata(fd.path())
                .is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
                && std::fs::read_to_string(format!(
                    "/proc/{pid}/fdinfo/{}",
                    fd.file_name().to_string_lossy()
                ))
                .is_ok_and(|info| {
                    info.lines()
                        .any(|l| l.starts_with("lock:") && l.contains("FLOCK") && l.contains(key))
                })
        });
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        holds.then(|| (pid, comm.trim_end().to_owned()))
    })
}
