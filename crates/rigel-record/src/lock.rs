//! The run folder's lock: one rigel at a time writes a folder. `flock` on `rigel.lock` in the
//! folder, held while the run lasts (the kernel drops it when the process ends, however it ends);
//! the holder's pid is written into the file so that a refusal can name it.

use super::RecordError;
use rigel_target::lock::{LockKind, try_lock};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

pub const LOCK_FILE: &str = "rigel.lock";

/// The lock on a run folder, held until dropped.
#[derive(Debug)]
pub struct FolderLock {
    dir: PathBuf,
    _file: File,
    /// The folder did not exist before: a run that never starts removes it again.
    created: bool,
}

impl FolderLock {
    /// Creates `dir` if needed and locks it, or says which rigel holds it.
    pub fn take(dir: &Path) -> Result<FolderLock, RecordError> {
        let created = !dir.exists();
        std::fs::create_dir_all(dir).map_err(super::io("create the run folder", dir))?;
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(super::io("open the lock file", &path))?;
        match try_lock(&file, &path, LockKind::Exclusive).map_err(super::io("lock", &path))? {
            Ok(()) => {}
            Err(held) => {
                let holder = held.holder.or_else(|| written_pid(&mut file));
                return Err(RecordError::Busy {
                    dir: dir.to_path_buf(),
                    holder: holder.map_or_else(String::new, |pid| format!(" (pid {pid})")),
                });
            }
        }
        let pid = format!("{}\n", std::process::id());
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(pid.as_bytes()))
            .map_err(super::io("write the pid into", &path))?;
        Ok(FolderLock {
            dir: dir.to_path_buf(),
            _file: file,
            created,
        })
    }

    /// Gives the folder up before anything was written to it: a folder this lock created is
    /// removed again (only while it holds nothing but the lock file).
    pub fn abandon(self) {
        if self.created {
            let _ = std::fs::remove_file(self.dir.join(LOCK_FILE));
            let _ = std::fs::remove_dir(&self.dir);
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
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
