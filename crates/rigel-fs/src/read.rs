//! Reading files the user names (templates, `--template FILE`) through no symlink: a link planted
//! where a template is expected (to /etc/shadow, say) is refused, not rendered into a report.

use super::FsError;
use rustix::fs::{Mode, OFlags, ResolveFlags};
use std::io::Read;
use std::os::fd::OwnedFd;
use std::path::Path;

/// Reads `path` (at most `limit` bytes; more is an error) when its last component is no link and
/// it is a regular file.
pub fn read_no_follow(path: &Path, limit: u64) -> Result<String, FsError> {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
    let fd = rustix::fs::open(path, flags, Mode::empty()).map_err(FsError::io("read", path))?;
    read_limited(regular(fd, path)?, path, limit)
}

/// Opens `path` for reading when its last component is no link and it is a regular file (a FIFO
/// is refused at once, never waited on).
pub fn open_no_follow(path: &Path) -> Result<std::fs::File, FsError> {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
    let fd = rustix::fs::open(path, flags, Mode::empty()).map_err(FsError::io("read", path))?;
    Ok(regular(fd, path)?.into())
}

/// Reads `rel` beneath the folder `dir`, with no link anywhere on the way from `dir` and no `..`
/// out of it (`openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`).
pub fn read_beneath(dir: &Path, rel: &Path, limit: u64) -> Result<String, FsError> {
    let base = rustix::fs::open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(FsError::io("open the folder", dir))?;
    let path = dir.join(rel);
    let fd = rustix::fs::openat2(
        &base,
        rel,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
        Mode::empty(),
        ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
    );
    let fd = match fd {
        Ok(fd) => fd,
        // openat2 first came in Linux 5.6: refuse links on the last name at least.
        Err(rustix::io::Errno::NOSYS) => rustix::fs::openat(
            &base,
            rel,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK,
            Mode::empty(),
        )
        .map_err(FsError::io("read", &path))?,
        Err(rustix::io::Errno::XDEV) => {
            return Err(FsError::Io {
                action: "read (it leads out of its folder)",
                path,
                source: rustix::io::Errno::XDEV.into(),
            });
        }
        Err(e) => return Err(FsError::io("read", &path)(e)),
    };
    read_limited(regular(fd, &path)?, &path, limit)
}

/// The one type check of every file rigel reads: `fd` was opened with `O_NONBLOCK` (so a FIFO
/// planted under the name cannot block the open itself, waiting for a writer that never comes);
/// anything but a regular file (a FIFO, a device, a socket) is refused before a byte is read, and
/// a regular file gets its blocking mode back.
pub(crate) fn regular(fd: OwnedFd, path: &Path) -> Result<OwnedFd, FsError> {
    let st = rustix::fs::fstat(&fd).map_err(FsError::io("stat", path))?;
    let kind = rustix::fs::FileType::from_raw_mode(st.st_mode);
    if kind != rustix::fs::FileType::RegularFile {
        return Err(FsError::NotAFile {
            path: path.to_path_buf(),
            kind: match kind {
                rustix::fs::FileType::Fifo => "FIFO",
                rustix::fs::FileType::Socket => "socket",
                rustix::fs::FileType::CharacterDevice => "character device",
                rustix::fs::FileType::BlockDevice => "block device",
                rustix::fs::FileType::Directory => "directory",
                _ => "special file",
            },
        });
    }
    let flags = rustix::fs::fcntl_getfl(&fd).map_err(FsError::io("read the flags of", path))?;
    if flags.contains(OFlags::NONBLOCK) {
        rustix::fs::fcntl_setfl(&fd, flags - OFlags::NONBLOCK)
            .map_err(FsError::io("set the flags of", path))?;
    }
    Ok(fd)
}

fn read_limited(fd: OwnedFd, path: &Path, limit: u64) -> Result<String, FsError> {
    let mut text = String::new();
    let io = |source| FsError::Io {
        action: "read",
        path: path.to_path_buf(),
        source,
    };
    std::fs::File::from(fd)
        .take(limit.saturating_add(1))
        .read_to_string(&mut text)
        .map_err(io)?;
    if text.len() as u64 > limit {
        return Err(io(std::io::Error::other(format!(
            "larger than {limit} bytes"
        ))));
    }
    Ok(text)
}
