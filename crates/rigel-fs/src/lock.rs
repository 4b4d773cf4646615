//! Advisory locks (`flock`) that keep two rigels apart: on a run folder's lock file, and on a
//! target (a test file or a block device) while it is created, filled, written or read: readers
//! share it, a writer has it alone. A lock held by a live process is refused at once (never
//! waited for), naming the holder's pid as `/proc/locks` reports it; a reader sharing a target
//! with another is told so (see [`others_holding`]). A lock whose holder has exited is waited for
//! a moment, saying so (see [`lock`]).

use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long [`lock`] waits for a lock whose holder has exited. A flock goes with the last
/// reference to the open file, and a SIGKILLed rigel's io_uring keeps one until the kernel has
/// torn the ring down, after the process is gone: about 2 s was seen, longer while the device
/// still owes the ring the I/O it had in flight.
pub const EXITED_HOLDER_WAIT: Duration = Duration::from_secs(5);

/// How often the lock is tried again meanwhile.
const POLL: Duration = Duration::from_millis(20);

/// Another process holds the lock: who, when the kernel tells.
#[derive(Debug, thiserror::Error)]
#[error("{}", held_text(self))]
pub struct Held {
    pub path: PathBuf,
    /// The holder's pid (0: one this pid namespace cannot see, gone or elsewhere).
    pub holder: Option<u32>,
    /// The holder has exited (or is a zombie): only the kernel's references to the file are left,
    /// or a live process's that inherited the file from it (`open_by`).
    pub exited: bool,
    /// When the holder has exited: a live process with the file open (pid, command), which
    /// holds the lock now (a child that inherited the descriptor).
    pub open_by: Option<(u32, String)>,
}

fn held_text(held: &Held) -> String {
    let path = held.path.display();
    if let Some((pid, comm)) = held.open_by.as_ref().filter(|_| held.exited) {
        return format!(
            "{path}: the lock is held by process {pid} ({comm}), which has the file open: it \
             inherited it from the rigel{} that took the lock and has exited; stop that process, \
             or wait for it to end",
            holder_text(held.holder)
        );
    }
    if held.exited {
        return format!(
            "{path}: still held {} s after the rigel holding it{} exited: the kernel has not yet \
             released its files (I/O it left in flight on a slow or stalled device); try again \
             when that I/O has ended",
            EXITED_HOLDER_WAIT.as_secs(),
            holder_text(held.holder)
        );
    }
    format!(
        "{path}: in use by another rigel{} (creating, filling or writing it, or reading it while \
         this run writes it); wait for it to end, or stop it",
        holder_text(held.holder)
    )
}

fn holder_text(holder: Option<u32>) -> String {
    match holder {
        Some(0) | None => String::new(),
        Some(pid) => format!(" (pid {pid})"),
    }
}

/// Shared (several readers) or exclusive (one creator, filler or writer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockKind {
    Shared,
    Exclusive,
}

/// Takes (or converts) the lock on `file`: at once, or after waiting (see [`ExitedWait`]) while
/// its only holders have exited and the kernel still holds their file. `Ok(Err(held))` when
/// another process holds a conflicting one (a live one: refused at once); `Err` for any other
/// failure of the call.
pub fn lock(file: &File, path: &Path, kind: LockKind) -> io::Result<Result<(), Held>> {
    let mut wait = ExitedWait::new();
    loop {
        match try_lock(file, path, kind)? {
            Ok(()) => return Ok(Ok(())),
            Err(held) if wait.again(&held) => {}
            Err(held) => return Ok(Err(held)),
        }
    }
}

/// The wait for a lock (or a block device's O_EXCL claim) whose holders have all exited: at most
/// [`EXITED_HOLDER_WAIT`] in all, said once on stderr. A live holder is never waited for.
#[derive(Debug)]
pub struct ExitedWait {
    started: Instant,
    told: bool,
}

impl ExitedWait {
    pub fn new() -> ExitedWait {
        ExitedWait {
            started: Instant::now(),
            told: false,
        }
    }

    /// Whether to try again after a refusal by `held`: true (after a short sleep) while its
    /// holders have exited and the wait has time left.
    pub fn again(&mut self, held: &Held) -> bool {
        if !held.exited {
            return false;
        }
        self.wait(|| match &held.open_by {
            Some((pid, comm)) => format!(
                "note: {}: waiting (at most {} s) for process {pid} ({comm}) to let go of it: it \
                 has the file open, and with it the lock of the rigel{} that took it and has exited",
                held.path.display(),
                EXITED_HOLDER_WAIT.as_secs(),
                holder_text(held.holder)
            ),
            None => format!(
                "note: {}: waiting (at most {} s) for a rigel that has exited{} to let go of it: \
                 the kernel still holds its files while it ends the I/O that rigel left in flight",
                held.path.display(),
                EXITED_HOLDER_WAIT.as_secs(),
                holder_text(held.holder)
            ),
        })
    }

    /// As [`Self::again`], for a block device's O_EXCL claim (EBUSY) that no process is seen to
    /// hold: neither mounted nor stacked (the write guard looked) nor under anyone's flock. The
    /// kernel drops a closing file's flock before it releases the device, and the release waits
    /// for I/O still in flight at the device: a SIGKILLed rigel's claim outlives its lock by
    /// that long.
    pub fn again_for_claim(&mut self, path: &Path) -> bool {
        self.wait(|| {
            format!(
                "note: {}: waiting (at most {} s) for the kernel to release an exclusive claim on \
                 it that no process holds (a file being closed while its I/O ends)",
                path.display(),
                EXITED_HOLDER_WAIT.as_secs(),
            )
        })
    }

    /// Sleeps a poll's time and returns true while the wait has time left, telling `what` once.
    fn wait(&mut self, what: impl FnOnce() -> String) -> bool {
        if self.started.elapsed() >= EXITED_HOLDER_WAIT {
            return false;
        }
        if !self.told {
            // Never silent: a run that does not start at once says what it waits for.
            eprintln!("{}", what());
            self.told = true;
        }
        std::thread::sleep(POLL);
        true
    }
}

impl Default for ExitedWait {
    fn default() -> Self {
        Self::new()
    }
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
        Err(rustix::io::Errno::WOULDBLOCK) => {
            let held = holding(file, path);
            // No holder listed: the lock may have gone between the two looks; tried once more.
            if held.holder.is_none() && flock(file.as_fd(), op).is_ok() {
                return Ok(Ok(()));
            }
            Ok(Err(held))
        }
        Err(e) => Err(e.into()),
    }
}

/// Who holds a flock on `file`'s inode, for a refusal: a live holder first (one is enough to
/// refuse at once), else one that has exited. No holder known (none listed, or only this
/// process): not `exited`, so never waited for.
pub fn holding(file: &File, path: &Path) -> Held {
    let others = others_holding(file);
    let live = others.iter().copied().find(|&pid| !exited(pid));
    let exited = live.is_none() && !others.is_empty();
    Held {
        path: path.to_path_buf(),
        holder: live.or_else(|| others.first().copied()),
        exited,
        open_by: if exited {
            file.metadata().ok().and_then(|m| {
                crate::openers::lock_holder(file, &lock_key(m.dev(), m.ino()), |pid| {
                    !self::exited(pid)
                })
            })
        } else {
            None
        },
    }
}

/// Whether process `pid` has exited: gone from /proc, a zombie, or 0 (`/proc/locks` shows a
/// holder this pid namespace cannot see as 0, and one that has exited and been reaped is never
/// seen again).
pub fn exited(pid: u32) -> bool {
    if pid == 0 {
        return true;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // `PID (COMM) STATE ...`: COMM may hold spaces and parentheses, STATE follows the last ')'.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state == "Z" || state == "X"),
        Err(e) => e.kind() == io::ErrorKind::NotFound,
    }
}

/// Other processes holding a flock on `file`'s inode (readers sharing a target, or the holder
/// of a lock refused), from `/proc/locks` (for flock locks it names the process that took the
/// lock), in pid order; this process left out.
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

/// How `/proc/locks` (and `fdinfo`) name the inode `ino` on device `dev`: `MAJ:MIN:INO`, major
/// and minor in hex.
fn lock_key(dev: u64, ino: u64) -> String {
    format!(
        "{:02x}:{:02x}:{ino}",
        rustix::fs::major(dev),
        rustix::fs::minor(dev)
    )
}

/// Every FLOCK holder of the inode `ino` on device `dev` in `/proc/locks` text, in its order; its
/// lines read `1: FLOCK  ADVISORY  WRITE 1234 fe:00:5342739 0 EOF` (major and minor in hex).
fn holders(locks: &str, dev: u64, ino: u64) -> Vec<u32> {
    let want = lock_key(dev, ino);
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
        assert_eq!(holders(locks, dev, 77), vec![4242]);
        assert_eq!(holders(locks, dev, 78), Vec::<u32>::new());
        let shared = "1: FLOCK  ADVISORY  READ 11 fe:00:77 0 EOF\n\
                      2: FLOCK  ADVISORY  READ 12 fe:00:77 0 EOF\n";
        assert_eq!(holders(shared, dev, 77), vec![11, 12]);
    }

    #[test]
    fn a_second_open_file_is_refused_and_the_holder_named() {
        // flock locks belong to the open file description: two opens conflict even in one process,
        // and /proc/locks names this process (which others_holding leaves out, as it is not "another").
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
            holders(&locks, meta.dev(), meta.ino()),
            vec![std::process::id()]
        );
        drop(a);
        try_lock(&b, &path, LockKind::Shared).unwrap().unwrap();
    }

    /// `sh` opens `path` as fd 9, leaves a `sleep` holding the open file (as a killed rigel's
    /// ring holds its target), and becomes `flock(1)`, which locks it and exits at once: the
    /// lock's recorded holder (this test's child) is then a zombie, or gone once reaped.
    fn lock_left_by_an_exited_holder(path: &Path, held_for: &str) -> std::process::Child {
        let script = format!("exec 9<>\"$0\"; sleep {held_for} & exec flock -x 9");
        let child = std::process::Command::new("sh")
            .args(["-c", &script])
            .arg(path)
            .spawn()
            .expect("sh runs");
        let file = File::open(path).unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while !(holding(&file, path).holder == Some(child.id()) && exited(child.id())) {
            assert!(Instant::now() < deadline, "flock never locked and exited");
            std::thread::sleep(Duration::from_millis(10));
        }
        child
    }

    #[test]
    fn a_lock_whose_holder_is_a_zombie_or_gone_is_waited_for_until_the_kernel_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("target");
        std::fs::write(&path, b"").unwrap();
        for reaped in [false, true] {
            let mut child = lock_left_by_an_exited_holder(&path, "1.5");
            let pid = child.id();
            if reaped {
                child.wait().unwrap();
            }
            let file = File::open(&path).unwrap();
            let held = try_lock(&file, &path, LockKind::Exclusive)
                .unwrap()
                .unwrap_err();
            assert!(held.exited, "reaped {reaped}: {held:?}");
            // A reaped pid may show as 0 (a pid namespace that cannot see it any more).
            assert!(
                held.holder == Some(pid) || held.holder == Some(0),
                "{held:?}"
            );
            let started = Instant::now();
            lock(&file, &path, LockKind::Exclusive).unwrap().unwrap();
            // Let in once the sleep holding the file ended (well within the bounded wait).
            assert!(
                started.elapsed() < EXITED_HOLDER_WAIT,
                "{:?}",
                started.elapsed()
            );
            drop(file);
            let _ = child.wait();
        }
    }

    #[test]
    fn a_lock_kept_by_a_live_child_of_an_exited_holder_names_the_child() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("target");
        std::fs::write(&path, b"").unwrap();
        let mut child = lock_left_by_an_exited_holder(&path, "5");
        let file = File::open(&path).unwrap();
        // The background `sleep` may still be the shell's fork, between fork and exec (its name
        // `sh`, its /proc entry changing under the reader), when flock has already exited: asked
        // again until it is the sleep, for at most 3 s.
        let deadline = Instant::now() + Duration::from_secs(3);
        let held = loop {
            let held = try_lock(&file, &path, LockKind::Exclusive)
                .unwrap()
                .unwrap_err();
            let named = held.open_by.as_ref().is_some_and(|(_, c)| c == "sleep");
            if named || Instant::now() > deadline {
                break held;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let (pid, comm) = held
            .open_by
            .clone()
            .expect("the sleep that has the file open");
        let text = held.to_string();
        let _ = std::process::Command::new("kill")
            .arg(pid.to_string())
            .status();
        let _ = child.wait();
        assert_eq!(comm, "sleep", "{held:?}");
        assert!(
            text.contains(&format!("held by process {pid} (sleep)")) && !text.contains("kernel"),
            "{text}"
        );
    }

    #[test]
    fn a_live_holder_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("target");
        std::fs::write(&path, b"").unwrap();
        // flock(1) holds the lock while its command runs (a `cat` that ends with its input): the
        // holder is alive.
        let mut child = std::process::Command::new("flock")
            .args(["-x"])
            .arg(&path)
            .arg("cat")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("flock runs");
        let file = File::open(&path).unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while holding(&file, &path).holder != Some(child.id()) {
            assert!(Instant::now() < deadline, "flock never locked");
            std::thread::sleep(Duration::from_millis(10));
        }
        let started = Instant::now();
        let held = lock(&file, &path, LockKind::Shared).unwrap().unwrap_err();
        let took = started.elapsed();
        drop(child.stdin.take());
        child.wait().unwrap();
        assert_eq!(held.holder, Some(child.id()));
        assert!(!held.exited);
        // Not waited for: the bounded wait is for exited holders only.
        assert!(took < EXITED_HOLDER_WAIT / 2, "{took:?}");
        assert!(
            held.to_string()
                .contains(&format!("in use by another rigel (pid {})", child.id()))
        );
    }

    #[test]
    fn this_process_and_pid_0_are_read_right() {
        assert!(!exited(std::process::id()));
        assert!(exited(0));
    }
}
