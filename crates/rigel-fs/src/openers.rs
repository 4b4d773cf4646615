//! Which live processes have a file open: for a lock whose taker has exited, the process that
//! still holds it (a flock belongs to the open file, so a child that inherited the descriptor
//! keeps the lock of a rigel that has exited), so that the message names it instead of blaming
//! a rigel that is gone.

use std::fs::File;
use std::os::unix::fs::MetadataExt;

/// The first live process but this one (lowest pid) with a descriptor on `file`'s inode, and its
/// command (`/proc/PID/comm`); None when there is none, or /proc cannot say.
pub fn live_opener(file: &File) -> Option<(u32, String)> {
    let meta = file.metadata().ok()?;
    let me = std::process::id();
    let mut pids: Vec<u32> = std::fs::read_dir("/proc")
        .ok()?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter(|&pid| pid != me && !crate::lock::exited(pid))
        .collect();
    pids.sort_unstable();
    pids.into_iter().find_map(|pid| {
        let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
        let opens = fds.filter_map(Result::ok).any(|fd| {
            // The descriptor's own file (the magic link is followed: the stat is the open file's).
            std::fs::metadata(fd.path())
                .is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
        });
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        opens.then(|| (pid, comm.trim_end().to_owned()))
    })
}
