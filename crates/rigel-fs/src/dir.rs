//! A folder held open by its descriptor, and every file operation rigel does beneath it: nothing
//! is resolved through a symlink (the final name of the folder itself included), new files are
//! made with `O_EXCL`, and atomic writes rename a unique temporary name into place.

use super::FsError;
use rustix::fs::{AtFlags, Mode, OFlags};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

/// A folder opened once; files are reached relative to it.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

/// How [`Dir::create_fresh`] found the folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fresh {
    /// It did not exist: made now.
    Created,
    /// It existed, empty and the running user's.
    Empty,
}

const DIR_FLAGS: OFlags = OFlags::DIRECTORY
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC)
    .union(OFlags::RDONLY);

/// Files rigel makes: readable by all, as `File::create` made them (the umask still applies).
const FILE_MODE: u32 = 0o666;
const DIR_MODE: u32 = 0o777;

impl Dir {
    /// Opens `path`, which must be a directory and not a symlink (the folders above it are the
    /// operator's to choose and may be links).
    pub fn open(path: &Path) -> Result<Dir, FsError> {
        let fd = rustix::fs::open(non_empty(path), DIR_FLAGS, Mode::empty())
            .map_err(dir_error("open the folder", path))?;
        Ok(Dir {
            fd,
            path: path.to_path_buf(),
        })
    }

    /// Opens the folder `path` names, a link or not: a folder the operator chose (a test file's
    /// folder); what rigel does inside it never follows a link.
    pub fn open_following(path: &Path) -> Result<Dir, FsError> {
        let flags = DIR_FLAGS - OFlags::NOFOLLOW;
        let fd = rustix::fs::open(non_empty(path), flags, Mode::empty())
            .map_err(dir_error("open the folder", path))?;
        Ok(Dir {
            fd,
            path: path.to_path_buf(),
        })
    }

    /// [`Dir::open`], refused unless the folder belongs to the user running rigel (a folder
    /// another user made may hold their links and files).
    pub fn open_owned(path: &Path) -> Result<Dir, FsError> {
        let dir = Dir::open(path)?;
        dir.check_owned()?;
        Ok(dir)
    }

    /// A folder for rigel to fill: made now (with its parents), or, if it exists, only when it is
    /// empty and belongs to the user running rigel.
    pub fn create_fresh(path: &Path) -> Result<(Dir, Fresh), FsError> {
        let path = non_empty(path);
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| FsError::Io {
                action: "create the folder",
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let fresh = match rustix::fs::mkdir(path, Mode::from_raw_mode(DIR_MODE)) {
            Ok(()) => Fresh::Created,
            Err(rustix::io::Errno::EXIST) => Fresh::Empty,
            Err(e) => return Err(FsError::io("create the folder", path)(e)),
        };
        let dir = Dir::open(path)?;
        if fresh == Fresh::Empty {
            dir.check_owned()?;
            if let Some(first) = dir.first_entry()? {
                return Err(FsError::NotEmpty {
                    path: path.to_path_buf(),
                    first,
                });
            }
        }
        Ok((dir, fresh))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `name` under this folder, for messages.
    pub fn join(&self, name: impl AsRef<Path>) -> PathBuf {
        self.path.join(name)
    }

    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    fn check_owned(&self) -> Result<(), FsError> {
        let st =
            rustix::fs::fstat(&self.fd).map_err(FsError::io("read the owner of", &self.path))?;
        let uid = rustix::process::geteuid().as_raw();
        if st.st_uid != uid {
            return Err(FsError::NotOwned {
                path: self.path.clone(),
                owner: st.st_uid,
                uid,
            });
        }
        Ok(())
    }

    /// The first name in the folder, if any.
    pub fn first_entry(&self) -> Result<Option<String>, FsError> {
        let dup = rustix::fs::openat(&self.fd, ".", DIR_FLAGS, Mode::empty())
            .map_err(FsError::io("list", &self.path))?;
        let entries = rustix::fs::Dir::read_from(&dup).map_err(FsError::io("list", &self.path))?;
        for entry in entries {
            let entry = entry.map_err(FsError::io("list", &self.path))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name != "." && name != ".." {
                return Ok(Some(name));
            }
        }
        Ok(None)
    }

    /// The folder `rel` beneath this one (each component opened without following a link),
    /// made first where `create` and it is missing.
    pub fn sub(&self, rel: impl AsRef<Path>, create: bool) -> Result<Dir, FsError> {
        let rel = rel.as_ref();
        let mut fd: Option<OwnedFd> = None;
        let mut path = self.path.clone();
        for name in components(rel)? {
            let parent = fd.as_ref().map_or(self.fd.as_fd(), |f| f.as_fd());
            path.push(name);
            if create {
                match rustix::fs::mkdirat(parent, name, Mode::from_raw_mode(DIR_MODE)) {
                    Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                    Err(e) => return Err(FsError::io("create the folder", &path)(e)),
                }
            }
            let next = rustix::fs::openat(parent, name, DIR_FLAGS, Mode::empty())
                .map_err(dir_error("open the folder", &path))?;
            fd = Some(next);
        }
        let fd = match fd {
            Some(fd) => fd,
            None => rustix::fs::openat(&self.fd, ".", DIR_FLAGS, Mode::empty())
                .map_err(FsError::io("open the folder", &self.path))?,
        };
        Ok(Dir { fd, path })
    }

    /// The folder holding `rel` (made where missing, if `create`) and `rel`'s last name.
    fn parent_of<'a>(
        &self,
        rel: &'a Path,
        create: bool,
    ) -> Result<(Option<Dir>, &'a Path), FsError> {
        let parts = components(rel)?;
        let Some((last, parents)) = parts.split_last() else {
            return Err(FsError::Io {
                action: "name a file in",
                path: self.path.clone(),
                source: std::io::ErrorKind::InvalidInput.into(),
            });
        };
        let sub = match parents {
            [] => None,
            _ => Some(self.sub(parents.iter().collect::<PathBuf>(), create)?),
        };
        Ok((sub, Path::new(*last)))
    }

    /// Opens `rel` with `flags`, never through a symlink (`O_NOFOLLOW` is always added, and the
    /// folders on the way are opened the same way).
    pub fn open_file(&self, rel: impl AsRef<Path>, flags: OFlags) -> Result<File, FsError> {
        let rel = rel.as_ref();
        let create = flags.contains(OFlags::CREATE);
        let (sub, name) = self.parent_of(rel, create)?;
        let parent = sub.as_ref().unwrap_or(self);
        let flags = flags | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let new = flags.contains(OFlags::CREATE) && flags.contains(OFlags::EXCL);
        // O_NOFOLLOW stops a link; a FIFO or a device under a rigel name is refused too, opened
        // without blocking so that a FIFO cannot hold the open itself.
        let open_flags = if new { flags } else { flags | OFlags::NONBLOCK };
        let fd = rustix::fs::openat(&parent.fd, name, open_flags, Mode::from_raw_mode(FILE_MODE))
            .map_err(FsError::io("open", self.join(rel)))?;
        if new {
            return Ok(File::from(fd));
        }
        Ok(File::from(crate::read::regular(fd, &self.join(rel))?))
    }

    /// Creates `rel`, which must not exist (not even as a dangling link), for writing.
    pub fn create_new(&self, rel: impl AsRef<Path>) -> Result<File, FsError> {
        self.open_file(rel, OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL)
    }

    /// Writes `bytes` as a new file `rel`; an existing name is an error (it is not rigel's to
    /// replace).
    pub fn write_new(&self, rel: impl AsRef<Path>, bytes: &[u8]) -> Result<(), FsError> {
        let rel = rel.as_ref();
        let mut file = self.create_new(rel)?;
        file.write_all(bytes).map_err(|source| FsError::Io {
            action: "write",
            path: self.join(rel),
            source,
        })
    }

    /// Replaces `rel` with `bytes` atomically and durably.
    pub fn write_atomic(&self, rel: impl AsRef<Path>, bytes: &[u8]) -> Result<(), FsError> {
        self.write_atomic_with(rel, |w| w.write_all(bytes))
    }

    /// Replaces `rel` with what `fill` writes: into a unique temporary name made with `O_EXCL`
    /// beside it, fsynced, renamed over `rel` (a link planted under `rel` is replaced, never
    /// followed), and the folder fsynced (the rename is durable only then).
    pub fn write_atomic_with(
        &self,
        rel: impl AsRef<Path>,
        fill: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
    ) -> Result<(), FsError> {
        let rel = rel.as_ref();
        let (sub, name) = self.parent_of(rel, true)?;
        let parent = sub.as_ref().unwrap_or(self);
        let (tmp, file) = parent.unique_temporary(name)?;
        let mut out = BufWriter::new(file);
        let written = fill(&mut out)
            .and_then(|()| out.flush())
            .and_then(|()| out.get_ref().sync_all());
        if let Err(source) = written {
            let _ = rustix::fs::unlinkat(&parent.fd, &tmp, AtFlags::empty());
            return Err(FsError::Io {
                action: "write",
                path: parent.join(&tmp),
                source,
            });
        }
        drop(out);
        rustix::fs::renameat(&parent.fd, &tmp, &parent.fd, name).map_err(|e| {
            let _ = rustix::fs::unlinkat(&parent.fd, &tmp, AtFlags::empty());
            FsError::io("rename into place", self.join(rel))(e)
        })?;
        parent.sync()
    }

    /// `.NAME.PID-RANDOM.tmp`, made with `O_EXCL`: no other process's file, and no link, is
    /// ever written through it.
    fn unique_temporary(&self, name: &Path) -> Result<(PathBuf, File), FsError> {
        let stem = name.to_string_lossy();
        for _ in 0..16 {
            let tmp = PathBuf::from(format!(
                ".{stem}.{}-{:016x}.tmp",
                std::process::id(),
                fastrand::u64(..)
            ));
            match self.create_new(&tmp) {
                Ok(file) => return Ok((tmp, file)),
                Err(e) if e.raw_os_error() == Some(rustix::io::Errno::EXIST.raw_os_error()) => {}
                Err(e) => return Err(e),
            }
        }
        Err(FsError::Io {
            action: "make a temporary file in",
            path: self.path.clone(),
            source: std::io::ErrorKind::AlreadyExists.into(),
        })
    }

    /// Reads `rel` whole, through no link.
    pub fn read(&self, rel: impl AsRef<Path>) -> Result<Vec<u8>, FsError> {
        let rel = rel.as_ref();
        let mut file = self.open_file(rel, OFlags::RDONLY)?;
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes).map_err(|source| FsError::Io {
            action: "read",
            path: self.join(rel),
            source,
        })?;
        Ok(bytes)
    }

    /// [`Dir::read`], at most `limit` bytes: a larger file is an error naming it (see [`crate::limits`]).
    pub fn read_at_most(&self, rel: impl AsRef<Path>, limit: u64) -> Result<Vec<u8>, FsError> {
        let rel = rel.as_ref();
        let io = |source| FsError::Io {
            action: "read",
            path: self.join(rel),
            source,
        };
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(
                self.open_file(rel, OFlags::RDONLY)?,
                limit.saturating_add(1),
            ),
            &mut bytes,
        )
        .map_err(io)?;
        if bytes.len() as u64 > limit {
            return Err(io(std::io::Error::other(format!(
                "larger than {limit} bytes, the most rigel reads there"
            ))));
        }
        Ok(bytes)
    }

    /// Whether `rel` exists (a link counts: it is not followed).
    pub fn exists(&self, rel: impl AsRef<Path>) -> bool {
        let rel = rel.as_ref();
        let Ok((sub, name)) = self.parent_of(rel, false) else {
            return false;
        };
        let parent = sub.as_ref().unwrap_or(self);
        rustix::fs::statat(&parent.fd, name, AtFlags::SYMLINK_NOFOLLOW).is_ok()
    }

    /// Removes the file (or link) `name` in this folder; absent is fine.
    pub fn remove_file(&self, name: impl AsRef<Path>) -> Result<(), FsError> {
        let name = name.as_ref();
        match rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()) {
            Ok(()) | Err(rustix::io::Errno::NOENT) => Ok(()),
            Err(e) => Err(FsError::io("remove", self.join(name))(e)),
        }
    }

    /// Removes the empty folder `name` in this folder.
    pub fn remove_dir(&self, name: impl AsRef<Path>) -> Result<(), FsError> {
        let name = name.as_ref();
        rustix::fs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR)
            .map_err(FsError::io("remove the folder", self.join(name)))
    }

    /// fsync of the folder: names created or renamed in it are durable after this.
    pub fn sync(&self) -> Result<(), FsError> {
        rustix::fs::fsync(&self.fd).map_err(FsError::io("fsync the folder", &self.path))
    }
}

impl AsFd for Dir {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// An empty path is the current directory.
fn non_empty(path: &Path) -> &Path {
    if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    }
}

/// ELOOP (a link) and ENOTDIR name what they are.
fn dir_error(action: &'static str, path: &Path) -> impl FnOnce(rustix::io::Errno) -> FsError {
    let path = path.to_path_buf();
    move |e| match e {
        // O_DIRECTORY | O_NOFOLLOW on a link fails with ENOTDIR: name it as the link it is
        // (the look is for the message only; nothing is opened through it).
        rustix::io::Errno::NOTDIR
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_symlink()) =>
        {
            FsError::Symlink { path }
        }
        rustix::io::Errno::NOTDIR => FsError::NotADirectory { path },
        e => FsError::io(action, path)(e),
    }
}

/// The names of a relative path; `..`, a root or a prefix would leave the folder.
fn components(rel: &Path) -> Result<Vec<&std::ffi::OsStr>, FsError> {
    rel.components()
        .filter(|c| *c != Component::CurDir)
        .map(|c| match c {
            Component::Normal(name) => Ok(name),
            _ => Err(FsError::Io {
                action: "keep inside its folder",
                path: rel.to_path_buf(),
                source: std::io::ErrorKind::InvalidInput.into(),
            }),
        })
        .collect()
}

#[cfg(test)]
#[path = "dir_tests.rs"]
mod tests;
