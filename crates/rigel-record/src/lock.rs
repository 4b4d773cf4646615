//! The run folder's lock: one rigel at a time writes a folder. `flock` on `rigel.lock` in the
//! folder, held while the run lasts (the kernel drops it when the process ends, however it ends,
//! or once a killed rigel's I/O ring lets go of its files: that is waited for a moment);
//! the holder's pid is written into the file so that a refusal can name it. The folder is opened
//! once (a fresh run's must be new, or empty and the running user's) and everything in it is
//! reached through that descriptor, never through a link (see `rigel_fs`).

use super::RecordError;
use rigel_fs::lock::{LockKind, lock, try_lock};
use rigel_fs::{Dir, Fresh};
use rustix::fs::OFlags;
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

pub const LOCK_FILE: &str = "rigel.lock";

/// The lock on a run folder, held until dropped.
#[derive(Debug)]
pub struct FolderLock {
    dir: Dir,
    _file: File,
    /// The folder did not exist before: a run that never starts removes it again.
    created: bool,
}

impl FolderLock {
    /// Locks the folder of a fresh run: made now, or one that exists empty and belongs to the
    /// user running rigel (a folder with someone's links planted in it is refused). Says which
    /// rigel holds it, if one does.
    pub fn take(dir: &Path) -> Result<FolderLock, RecordError> {
        match Dir::create_fresh(dir) {
            Ok((folder, fresh)) => Self::lock(folder, fresh == Fresh::Created),
            // Another rigel's run folder: name that rigel rather than the lock file in it.
            // Another rigel's run folder (name that rigel), or one left holding nothing but the
            // lock file of a run that ended before it began.
            Err(rigel_fs::FsError::NotEmpty { .. }) if Self::held(dir) || only_a_lock(dir) => {
                Self::lock(Dir::open_owned(dir)?, false)
            }
            Err(rigel_fs::FsError::NotEmpty { .. }) if dir.join(super::PLAN_FILE).exists() => {
                Err(RecordError::AlreadyARun {
                    dir: dir.to_path_buf(),
                })
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Locks a fresh run folder under a name rigel picked (`runs/NAME-DATE`): `base` if this
    /// rigel makes it now, else `base.2`, `base.3`, … (the first this rigel makes: making the
    /// folder is the claim, so two runs started in the same second never pick one name).
    pub fn take_unique(base: &Path) -> Result<FolderLock, RecordError> {
        let name = base.file_name().unwrap_or_default().to_string_lossy();
        for n in 1u32..10_000 {
            let dir = match n {
                1 => base.to_path_buf(),
                n => base.with_file_name(format!("{name}.{n}")),
            };
            if dir.exists() {
                continue;
            }
            match Dir::create_fresh(&dir) {
                Ok((folder, Fresh::Created)) => return Self::lock(folder, true),
                // Another rigel made it between the look and the making.
                Ok((_, Fresh::Empty)) | Err(rigel_fs::FsError::NotEmpty { .. }) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Self::take(base)
    }

    /// Locks the folder of a run to resume: it must belong to the user running rigel.
    pub fn take_existing(dir: &Path) -> Result<FolderLock, RecordError> {
        Self::lock(Dir::open_owned(dir)?, false)
    }

    /// Whether `dir` holds a lock file another rigel holds now (so that refusing it names that
    /// rigel).
    fn held(dir: &Path) -> bool {
        let Ok(folder) = Dir::open_owned(dir) else {
            return false;
        };
        let Ok(file) = folder.open_file(LOCK_FILE, OFlags::RDONLY) else {
            return false;
        };
        matches!(
            try_lock(&file, &folder.join(LOCK_FILE), LockKind::Shared),
            Ok(Err(_))
        )
    }

    fn lock(folder: Dir, created: bool) -> Result<FolderLock, RecordError> {
        let path = folder.join(LOCK_FILE);
        // O_NOFOLLOW: a link planted as `rigel.lock` is refused, never truncated through.
        let mut file = folder.open_file(LOCK_FILE, OFlags::RDWR | OFlags::CREATE)?;
        // A hard link planted under the name (to a file of root's) is refused too: the pid is
        // written over the file's content.
        let links = file.metadata().map_err(super::io("stat", &path))?.nlink();
        if links != 1 {
            return Err(super::io("use as the lock file", &path)(
                std::io::Error::other(format!(
                    "it has {links} hard links; rigel's lock file has one"
                )),
            ));
        }
        let dir = folder.path().to_path_buf();
        // A holder that has exited (a SIGKILLed rigel whose files the kernel still holds) is
        // waited for a moment; a live one refuses at once.
        match lock(&file, &path, LockKind::Exclusive).map_err(super::io("lock", &path))? {
            Ok(()) => {}
            Err(held) => {
                let holder = held
                    .holder
                    .filter(|&pid| pid != 0)
                    .or_else(|| written_pid(&mut file));
                let exited = if let Some((pid, comm)) =
                    held.open_by.as_ref().filter(|_| held.exited)
                {
                    format!(
                        ", which has exited; the lock is held by process {pid} ({comm}), which \
                         inherited its lock file: stop that process, or wait for it to end"
                    )
                } else if held.exited {
                    format!(
                        ", which exited {} s ago: the kernel still holds its files while it ends \
                         the I/O that rigel left in flight",
                        rigel_fs::lock::EXITED_HOLDER_WAIT.as_secs()
                    )
                } else {
                    String::new()
                };
                return Err(RecordError::Busy {
                    dir: dir.to_path_buf(),
                    holder: holder.map_or_else(String::new, |pid| format!(" (pid {pid}{exited})")),
                });
            }
        }
        let pid = format!("{}\n", std::process::id());
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(pid.as_bytes()))
            .map_err(super::io("write the pid into", &path))?;
        Ok(FolderLock {
            dir: folder,
            _file: file,
            created,
        })
    }

    /// Gives the folder up before anything was written to it: a folder this lock created is
    /// removed again (only while it holds nothing but the lock file).
    pub fn abandon(self) {
        if self.created {
            let _ = self.dir.remove_file(LOCK_FILE);
            let _ = std::fs::remove_dir(self.dir.path());
        }
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The folder's descriptor, for writing beneath it.
    pub fn folder(&self) -> &Dir {
        &self.dir
    }
}

/// Whether `dir` holds exactly one name, `rigel.lock`.
fn only_a_lock(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        let names: Vec<_> = entries.flatten().map(|e| e.file_name()).take(2).collect();
        names.len() == 1 && names[0] == LOCK_FILE
    })
}

fn written_pid(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_a_folder_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = FolderLock::take(dir.path()).unwrap();
        let pid = std::fs::read_to_string(dir.path().join(LOCK_FILE)).unwrap();
        assert_eq!(pid.trim(), std::process::id().to_string());
        let err = FolderLock::take(dir.path()).unwrap_err().to_string();
        // /proc/locks names this very process, which is left out: the pid comes from the file.
        assert!(
            err.contains(&format!("(pid {})", std::process::id())),
            "{err}"
        );
        drop(first);
        FolderLock::take(dir.path()).unwrap();
    }
}
