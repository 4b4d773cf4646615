//! Opening a target and learning what the executor must respect: its size, its block sizes and the
//! alignment O_DIRECT needs.

use super::TargetError;
use super::kind::TargetKind;
use super::{filetype, sysfs};
use rustix::fs::{AtFlags, StatxFlags};
use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// How to open a target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenMode {
    pub write: bool,
    /// O_DIRECT: bypass the page cache.
    pub direct: bool,
    /// O_EXCL on a block device: the kernel refuses it while mounted or held (dm, md, swap) and
    /// keeps it from being mounted while rigel holds it.
    pub exclusive: bool,
}

/// What an open target is, as the kernel reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    pub kind: TargetKind,
    /// Bytes: the block device's size, or the file's length.
    pub size: u64,
    pub logical_block_size: u32,
    pub physical_block_size: u32,
    /// O_DIRECT offsets and lengths must be multiples of this.
    pub dio_offset_align: u32,
    /// O_DIRECT buffers must start at a multiple of this.
    pub dio_mem_align: u32,
    /// The block device holding the data (the device itself, or the one a file lives on).
    pub dev: (u32, u32),
    pub inode: u64,
}

/// Opens `path` for the executor; O_DIRECT is refused by some filesystems, which the error says.
/// Refuses anything but a regular file or a block device, and never blocks doing so: the open is
/// O_NONBLOCK (a FIFO returns at once), the type is checked on the descriptor, and only then is
/// O_NONBLOCK cleared (io_uring would otherwise answer EAGAIN instead of waiting for the device).
pub fn open_target(path: &Path, mode: OpenMode) -> Result<File, TargetError> {
    filetype::refuse_special(path)?;
    open_as(path, path, mode)
}

/// [`open_target`] of the file `file` already holds, opened again through `/proc/self/fd` (the
/// very inode, whatever its name points at now): a check done on `file` holds for what is opened.
pub fn reopen_target(file: &File, path: &Path, mode: OpenMode) -> Result<File, TargetError> {
    use std::os::fd::AsRawFd;
    let magic = std::path::PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
    let again = open_as(path, &magic, mode)?;
    let (a, b) = (
        file.metadata()
            .map_err(TargetError::io(path, "read the metadata"))?,
        again
            .metadata()
            .map_err(TargetError::io(path, "read the metadata"))?,
    );
    if (a.dev(), a.ino()) != (b.dev(), b.ino()) {
        return Err(TargetError::io(path, "open again through its descriptor")(
            io::Error::other("another file answered"),
        ));
    }
    Ok(again)
}

/// Opens `open_path`, naming `path` in errors.
fn open_as(path: &Path, open_path: &Path, mode: OpenMode) -> Result<File, TargetError> {
    let mut flags = libc::O_NONBLOCK;
    // A passthrough target's commands bypass the page cache by nature, and its character
    // device refuses O_DIRECT (EINVAL): it is opened without. The type is checked again on the
    // descriptor below.
    let char_device = std::fs::metadata(open_path).is_ok_and(|m| m.file_type().is_char_device());
    if mode.direct && !char_device {
        flags |= libc::O_DIRECT;
    }
    if mode.exclusive {
        flags |= libc::O_EXCL;
    }
    let what = match (mode.write, mode.exclusive) {
        (false, _) => "open read-only",
        (true, false) => "open read-write",
        (true, true) => "open read-write (exclusively)",
    };
    let file = OpenOptions::new()
        .read(true)
        .write(mode.write)
        .custom_flags(flags)
        .open(open_path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ENOENT) if path.starts_with("/dev") => {
                TargetError::NoDevice { path: path.into() }
            }
            Some(libc::ENOENT) => TargetError::Missing { path: path.into() },
            // A directory refuses O_DIRECT (EINVAL) or writing (EISDIR): say what it is.
            Some(libc::EINVAL | libc::EISDIR) if path.is_dir() => TargetError::Unsupported {
                path: path.into(),
                kind: "directory",
            },
            Some(libc::EINVAL) if mode.direct => TargetError::NoDirectIo { path: path.into() },
            _ => TargetError::io(path, what)(e),
        })?;
    let meta = file
        .metadata()
        .map_err(TargetError::io(path, "read the metadata"))?;
    filetype::check(path, &meta)?;
    let status = rustix::fs::fcntl_getfl(&file)
        .map_err(|e| TargetError::io(path, "read the descriptor flags")(e.into()))?;
    let status = status - rustix::fs::OFlags::NONBLOCK;
    rustix::fs::fcntl_setfl(&file, status)
        .map_err(|e| TargetError::io(path, "clear O_NONBLOCK")(e.into()))?;
    // No access-time update on every read (2% of the CPU per page-cache read at QD 1; fio's
    // t/io_uring opens O_NOATIME too). Refused (EPERM) unless rigel owns the file or has
    // CAP_FOWNER: reads then update atime as usual.
    let _ = rustix::fs::fcntl_setfl(&file, status | rustix::fs::OFlags::NOATIME);
    Ok(file)
}

/// The block device holding a target's data, from its stat fields: a block device itself, or the
/// device of the filesystem a file lives on (a number without a sysfs entry on tmpfs or FUSE).
pub fn holding_device(is_block_device: bool, rdev: u64, dev: u64) -> (u32, u32) {
    let dev = if is_block_device { rdev } else { dev };
    (rustix::fs::major(dev), rustix::fs::minor(dev))
}

/// Probes an open target. Block sizes of a file are those of the device it lives on, where that
/// device has them in sysfs; otherwise its direct-I/O alignment.
pub fn probe(path: &Path, file: &File) -> Result<Probe, TargetError> {
    let meta = file
        .metadata()
        .map_err(TargetError::io(path, "read the metadata"))?;
    let ft = meta.file_type();
    filetype::check(path, &meta)?;
    if let Some(ns) = super::passthru::namespace_of(&meta) {
        return probe_passthru(path, &meta, &ns);
    }
    let kind = if ft.is_block_device() {
        TargetKind::Block
    } else {
        TargetKind::File
    };
    let dev = holding_device(kind == TargetKind::Block, meta.rdev(), meta.dev());
    let dio = dio_alignment(file);
    let (size, logical, physical) = match kind {
        TargetKind::Passthru => unreachable!("probed above"),
        TargetKind::Block => {
            let size = (&*file)
                .seek(SeekFrom::End(0))
                .map_err(TargetError::io(path, "seek to the end to learn the size"))?;
            let logical = rustix::fs::ioctl_blksszget(file)
                .map_err(|e| TargetError::io(path, "read the logical block size")(e.into()))?;
            let physical = rustix::fs::ioctl_blkpbszget(file).unwrap_or(logical);
            (size, logical, physical)
        }
        TargetKind::File => {
            let queue = sysfs::block_sizes(dev);
            let fallback = dio.map_or(512, |(off, _)| off);
            let logical = queue.map_or(fallback, |q| q.0);
            let physical = queue.map_or(logical, |q| q.1);
            (meta.len(), logical, physical)
        }
    };
    let (dio_offset_align, dio_mem_align) = dio.unwrap_or((logical, logical));
    Ok(Probe {
        kind,
        size,
        logical_block_size: logical,
        physical_block_size: physical,
        dio_offset_align,
        dio_mem_align,
        dev,
        inode: meta.ino(),
    })
}

/// A passthrough target: the namespace's size and block sizes as its block device's queue has
/// them; commands are in whole logical blocks, from any buffer aligned to one.
fn probe_passthru(
    path: &Path,
    meta: &std::fs::Metadata,
    ns: &super::passthru::Namespace,
) -> Result<Probe, TargetError> {
    let sysfs = sysfs::Sysfs::default();
    let unknown = |what: &'static str| {
        TargetError::io(path, what)(io::Error::other(format!(
            "{} has no such entry in sysfs",
            ns.block.display()
        )))
    };
    let (logical, physical) = sysfs
        .block_sizes(ns.dev)
        .ok_or_else(|| unknown("read the namespace's block sizes"))?;
    let sectors = sysfs
        .disk_dir(ns.dev)
        .and_then(|d| sysfs::read_trimmed(&d.join("size")))
        .and_then(|s| s.parse::<u64>().ok())
        .ok_or_else(|| unknown("read the namespace's size"))?;
    Ok(Probe {
        kind: TargetKind::Passthru,
        size: sectors * 512,
        logical_block_size: logical,
        physical_block_size: physical,
        dio_offset_align: logical,
        dio_mem_align: logical,
        dev: ns.dev,
        inode: meta.ino(),
    })
}

/// statx's STATX_DIOALIGN (Linux 6.1+): (offset, memory) alignment, or None where the kernel or
/// the filesystem does not say.
fn dio_alignment(file: &File) -> Option<(u32, u32)> {
    let stx = rustix::fs::statx(file, "", AtFlags::EMPTY_PATH, StatxFlags::DIOALIGN).ok()?;
    let known = StatxFlags::from_bits_retain(stx.stx_mask).contains(StatxFlags::DIOALIGN);
    (known && stx.stx_dio_offset_align > 0)
        .then_some((stx.stx_dio_offset_align, stx.stx_dio_mem_align.max(1)))
}

/// Reads up to `len` bytes from the start of a target, through a buffered descriptor so that no
/// alignment applies (the signature check must work on any target).
pub fn read_head(path: &Path, len: usize) -> Result<Vec<u8>, TargetError> {
    use std::os::unix::fs::FileExt;
    let file = open_target(path, OpenMode::default())?;
    let mut buf = vec![0u8; len];
    let mut done = 0;
    while done < len {
        match file.read_at(&mut buf[done..], done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(TargetError::io_at(path, "read", done as u64)(e)),
        }
    }
    buf.truncate(done);
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe_file_in(dir: &Path) {
        let path = dir.join("probe.bin");
        std::fs::write(&path, vec![7u8; 65536]).unwrap();
        let file = open_target(
            &path,
            OpenMode {
                direct: true,
                ..Default::default()
            },
        )
        .unwrap();
        let p = probe(&path, &file).unwrap();
        assert_eq!(p.kind, TargetKind::File);
        assert_eq!(p.size, 65536);
        assert!(p.logical_block_size.is_power_of_two() && p.logical_block_size >= 512);
        assert!(p.physical_block_size >= p.logical_block_size);
        assert!(p.dio_offset_align.is_power_of_two() && p.dio_offset_align <= 4096);
        assert!(p.dio_mem_align.is_power_of_two());
    }

    #[test]
    fn probes_files_on_tmp_and_shm() {
        probe_file_in(tempfile::tempdir_in("/tmp").unwrap().path());
        if Path::new("/dev/shm").is_dir() {
            probe_file_in(tempfile::tempdir_in("/dev/shm").unwrap().path());
        }
    }

    #[test]
    fn missing_and_unsupported_targets_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        let err = open_target(&missing, OpenMode::default()).unwrap_err();
        assert!(matches!(err, TargetError::Missing { .. }));
        assert!(err.to_string().contains("nope"));

        let err = open_target(dir.path(), OpenMode::default()).unwrap_err();
        assert!(err.to_string().contains("is a directory"), "{err}");
    }

    #[test]
    fn read_head_stops_at_end_of_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("short");
        std::fs::write(&path, b"XFSB").unwrap();
        assert_eq!(read_head(&path, 4096).unwrap(), b"XFSB");
    }
}
