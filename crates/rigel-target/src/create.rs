//! Test files a spec declares with a size: created when absent, preallocated, and filled with random
//! data (reads of never-written extents touch no device and would fake the numbers), kept for later
//! runs, and removed by `clean`.

use super::TargetError;
use super::error::lock_target;
use super::marker::{self, FillState, Marker};
use super::probe::{OpenMode, reopen_target};
use rigel_fs::Dir;
use rigel_fs::lock::LockKind;
use rustix::fs::{AtFlags, FallocateFlags, OFlags};
use std::fs::{self, File};
use std::io;
use std::ops::ControlFlow;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;

/// Bytes written per call while filling: large enough that a disk streams.
pub const FILL_CHUNK: usize = 4 << 20;
/// Offsets and lengths of the O_DIRECT fill writes, and its buffer's start, are multiples of this
/// (the largest alignment any device asks for); a tail shorter than it is written buffered.
const FILL_ALIGN: usize = 4096;
/// Threads writing a fill at once, each with one chunk in flight.
const FILL_WRITERS: u64 = 4;

/// How far a fill has got, given to the caller's callback after every chunk.
#[derive(Clone, Copy, Debug)]
pub struct FillProgress<'a> {
    pub path: &'a Path,
    pub done: u64,
    pub total: u64,
}

/// The caller's progress callback; `Break` stops the fill (the file stays marked unfinished).
pub type OnProgress<'a> = dyn FnMut(&FillProgress) -> ControlFlow<()> + 'a;

/// What `ensure_file` found and did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preparation {
    /// Absent: created and filled.
    Created,
    /// rigel's, but unfinished or smaller than declared: filled (and grown) now.
    Completed,
    /// rigel's, filled, large enough: used as it is.
    Reused,
    /// Exists and rigel did not create it (or it is not a regular file): left alone.
    Foreign,
}

impl Preparation {
    pub fn created_by_rigel(self) -> bool {
        self != Preparation::Foreign
    }
}

/// Makes sure a declared test file of `size` bytes exists and holds random data. Everything is
/// done through one descriptor, opened `O_NOFOLLOW` beneath the parent folder's descriptor (and
/// `O_EXCL` when created), never by the path again: a link swapped in at any moment is neither
/// followed nor taken for rigel's file. The descriptor of rigel's file is returned for the run.
pub fn ensure_file(
    path: &Path,
    size: u64,
    on_progress: &mut OnProgress,
) -> Result<(Preparation, Option<File>), TargetError> {
    let (parent, name) = parent_of(path)?;
    let file = match parent.open_file(name, OFlags::RDONLY) {
        Ok(file) => file,
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {
            refuse_device_directory(path)?;
            // Locked from its creation to the end of its fill: a second rigel creating the same
            // file finds it and is refused (see below) instead of filling it too.
            let Some(file) = create(&parent, name, path, size, on_progress)? else {
                // Another rigel created it since it was looked for: judge it as found.
                return ensure_file(path, size, on_progress);
            };
            fill(&file, path, 0, size, on_progress)?;
            return Ok((Preparation::Created, Some(file)));
        }
        // A link (or a FIFO, a device, a folder) is never rigel's: judged as the user's.
        Err(rigel_fs::FsError::Symlink { .. }) => return Ok((Preparation::Foreign, None)),
        Err(e) if e.raw_os_error().is_none() => return Ok((Preparation::Foreign, None)),
        Err(e) => return Err(fs_error(path, e)),
    };
    let Some(mark) = marker::read_marker(&file, path)? else {
        // No marker: a foreign file, or one another rigel has just created and not yet marked
        // (it holds the exclusive lock from its creation to the end of its fill): a shared lock
        // is refused then, naming that rigel, instead of taking its file for a foreign one.
        lock_target(&file, path, LockKind::Shared)?;
        if marker::read_marker(&file, path)?.is_some() {
            // Marked (and filled) between the two looks: judge it again.
            drop(file);
            return ensure_file(path, size, on_progress);
        }
        let meta = file
            .metadata()
            .map_err(TargetError::io(path, "read the metadata"))?;
        if meta.len() < size {
            return Err(TargetError::TooSmall {
                path: path.into(),
                actual: meta.len(),
                declared: size,
            });
        }
        return Ok((Preparation::Foreign, None));
    };
    let filled_to = match mark.state {
        FillState::Filled => mark.size,
        FillState::Filling => 0,
    };
    if filled_to >= size {
        return Ok((Preparation::Reused, Some(file)));
    }
    // Unfinished: another rigel may be filling it right now. Refuse rather than fill it twice.
    lock_target(&file, path, LockKind::Exclusive)?;
    let file = reopen_target(&file, path, READ_WRITE)?;
    let start = filled_to / FILL_ALIGN as u64 * FILL_ALIGN as u64;
    grow(
        &file,
        path,
        size,
        Marker {
            state: FillState::Filling,
            size,
        },
        on_progress,
    )?;
    fill(&file, path, start, size, on_progress)?;
    Ok((Preparation::Completed, Some(file)))
}

/// The parent folder (opened by its path: the folders above are the user's to choose) and the
/// file's name in it.
fn parent_of(path: &Path) -> Result<(Dir, &std::ffi::OsStr), TargetError> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or_else(|| TargetError::Unsupported {
        path: path.into(),
        kind: "path without a file name",
    })?;
    let dir = Dir::open_following(parent).map_err(|e| fs_error(parent, e))?;
    Ok((dir, name))
}

fn fs_error(path: &Path, e: rigel_fs::FsError) -> TargetError {
    match e {
        rigel_fs::FsError::Io {
            action,
            path,
            source,
        } => TargetError::io(path, action)(source),
        other => TargetError::Io {
            path: path.into(),
            what: "open",
            source: io::Error::other(other.to_string()),
        },
    }
}

/// A missing `/dev/sdX` is a typo or an unplugged disk, not a place for a test file.
fn refuse_device_directory(path: &Path) -> Result<(), TargetError> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir = fs::canonicalize(parent).map_err(TargetError::io(parent, "find the directory"))?;
    if dir.starts_with("/dev") && !dir.starts_with("/dev/shm") {
        return Err(TargetError::NoDevice { path: path.into() });
    }
    Ok(())
}

/// Creates the file `O_CREAT | O_EXCL | O_NOFOLLOW` beneath its folder's descriptor (never over
/// an existing file or link), marks it unfinished, and preallocates it; None when the name exists
/// (another rigel created it first). When preallocating fails (no space, say) the file is removed
/// again, by name only while the name still is this file.
fn create(
    parent: &Dir,
    name: &std::ffi::OsStr,
    path: &Path,
    size: u64,
    on_progress: &mut OnProgress,
) -> Result<Option<File>, TargetError> {
    let file = match parent.open_file(name, OFlags::RDWR | OFlags::CREATE | OFlags::EXCL) {
        Ok(file) => file,
        Err(e) if e.raw_os_error() == Some(libc::EEXIST) => return Ok(None),
        Err(e) => return Err(fs_error(path, e)),
    };
    lock_target(&file, path, LockKind::Exclusive)?;
    let mark = Marker {
        state: FillState::Filling,
        size,
    };
    grow(&file, path, size, mark, on_progress).inspect_err(|_| {
        let _ = unlink_if_same(parent, name, &file);
    })?;
    Ok(Some(file))
}

/// Unlinks `name` in `parent` only while it still is `file` (an `fstat` of the descriptor against
/// an `fstatat` of the name, right before `unlinkat` on the folder's descriptor).
fn unlink_if_same(parent: &Dir, name: &std::ffi::OsStr, file: &File) -> Result<bool, TargetError> {
    let meta = file
        .metadata()
        .map_err(TargetError::io(parent.join(name), "read the metadata"))?;
    let named = rustix::fs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW);
    match named {
        Ok(st) if (st.st_dev, st.st_ino) == (meta.dev(), meta.ino()) => {
            rustix::fs::unlinkat(parent, name, AtFlags::empty()).map_err(|e| {
                TargetError::io(parent.join(name), "remove the test file")(e.into())
            })?;
            marker::remove_record(meta.dev(), meta.ino());
            Ok(true)
        }
        _ => Ok(false),
    }
}

const READ_WRITE: OpenMode = OpenMode {
    write: true,
    direct: false,
    exclusive: false,
};

/// Bytes preallocated per call: tmpfs allocates page by page (a 4 GiB call took seconds and kept
/// SIGTERM waiting), so the caller's stop request is looked at between pieces of this size.
const PREALLOCATE_STEP: u64 = 64 << 20;

fn grow(
    file: &File,
    path: &Path,
    size: u64,
    mark: Marker,
    on_progress: &mut OnProgress,
) -> Result<(), TargetError> {
    marker::write_marker(file, path, mark)?;
    // One call used to fail at once when the space was not there; pieces would first fill the
    // filesystem, so ask it first.
    let free = rustix::fs::fstatvfs(file)
        // ramfs reports no size at all: no limit to check against.
        .map(|v| match v.f_blocks {
            0 => u64::MAX,
            _ => v.f_bavail.saturating_mul(v.f_frsize),
        })
        .unwrap_or(u64::MAX);
    let held = file.metadata().map(|m| m.blocks() * 512).unwrap_or(0);
    if size > free.saturating_add(held) {
        let enospc = io::Error::from_raw_os_error(libc::ENOSPC);
        return Err(TargetError::io(path, "preallocate")(enospc));
    }
    let mut at = 0;
    while at < size {
        let len = PREALLOCATE_STEP.min(size - at);
        match rustix::fs::fallocate(file, FallocateFlags::empty(), at, len) {
            Ok(()) => at += len,
            Err(rustix::io::Errno::OPNOTSUPP) => {
                return file
                    .set_len(size)
                    .map_err(TargetError::io(path, "set the length"));
            }
            // A signal arrived mid-call: the progress callback below decides whether to stop.
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(TargetError::io_at(path, "preallocate", at)(e.into())),
        }
        let progress = FillProgress {
            path,
            done: 0,
            total: size,
        };
        if at < size && on_progress(&progress).is_break() {
            return Err(TargetError::Interrupted {
                path: path.into(),
                done: 0,
                total: size,
            });
        }
    }
    Ok(())
}

/// Writes random data over `[start, end)` from a few threads (a disk streams faster with several
/// writes in flight), O_DIRECT where the filesystem allows (the data must reach the device, not sit
/// in the page cache), then marks the file filled. Progress is reported from the calling thread.
fn fill(
    file: &File,
    path: &Path,
    start: u64,
    end: u64,
    on_progress: &mut OnProgress,
) -> Result<(), TargetError> {
    let out = FillOutput::open(file, path)?;
    let chunks = (end - start).div_ceil(FILL_CHUNK as u64);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<Result<u64, TargetError>>();
    thread::scope(|scope| {
        for first in 0..FILL_WRITERS {
            let (tx, out, stop) = (tx.clone(), &out, &stop);
            scope.spawn(move || {
                let mut storage = vec![0u8; FILL_CHUNK + FILL_ALIGN];
                let skip = storage.as_ptr().align_offset(FILL_ALIGN).min(FILL_ALIGN);
                let buf = &mut storage[skip..skip + FILL_CHUNK];
                let mut rng = fastrand::Rng::new();
                let mut chunk = first;
                while chunk < chunks && !stop.load(Ordering::Relaxed) {
                    let offset = start + chunk * FILL_CHUNK as u64;
                    let len = (end - offset).min(FILL_CHUNK as u64) as usize;
                    rng.fill(&mut buf[..len]);
                    let written = out.write(&buf[..len], offset).map(|()| len as u64);
                    let failed = written.is_err();
                    if tx.send(written).is_err() || failed {
                        break;
                    }
                    chunk += FILL_WRITERS;
                }
            });
        }
        drop(tx);
        let mut done = 0;
        let mut outcome = Ok(());
        for written in rx {
            match written {
                Ok(n) if outcome.is_ok() => {
                    done += n;
                    let total = end - start;
                    if on_progress(&FillProgress { path, done, total }).is_break() {
                        stop.store(true, Ordering::Relaxed);
                        outcome = Err(TargetError::Interrupted {
                            path: path.into(),
                            done: start + done,
                            total: end,
                        });
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    outcome = outcome.and(Err(e));
                }
            }
        }
        outcome
    })?;
    out.buffered
        .sync_all()
        .map_err(TargetError::io(path, "flush the data to the device"))?;
    marker::write_marker(
        file,
        path,
        Marker {
            state: FillState::Filled,
            size: end,
        },
    )
}

/// The descriptors a fill writes through: O_DIRECT for whole aligned blocks where the filesystem
/// has it, buffered for a short tail (and for everything where it has not).
struct FillOutput<'a> {
    path: &'a Path,
    buffered: File,
    direct: Option<File>,
}

impl<'a> FillOutput<'a> {
    /// Both are the creating descriptor's own file, opened again through it (never by name).
    fn open(file: &File, path: &'a Path) -> Result<Self, TargetError> {
        let buffered = file
            .try_clone()
            .map_err(TargetError::io(path, "duplicate the descriptor"))?;
        let direct = reopen_target(
            file,
            path,
            OpenMode {
                direct: true,
                ..READ_WRITE
            },
        )
        .ok();
        Ok(FillOutput {
            path,
            buffered,
            direct,
        })
    }

    /// `data` must start at a FILL_ALIGN boundary in memory, `offset` at one in the file.
    fn write(&self, data: &[u8], offset: u64) -> Result<(), TargetError> {
        let aligned = data.len() / FILL_ALIGN * FILL_ALIGN;
        let bulk = self.direct.as_ref().unwrap_or(&self.buffered);
        bulk.write_all_at(&data[..aligned], offset)
            .map_err(TargetError::io_at(self.path, "write random data", offset))?;
        let tail = offset + aligned as u64;
        self.buffered
            .write_all_at(&data[aligned..], tail)
            .map_err(TargetError::io_at(self.path, "write random data", tail))
    }
}

/// Deletes the files among `paths` that rigel created and whose mark still vouches for them;
/// others are kept. Each is opened `O_NOFOLLOW` beneath its folder's descriptor, its mark checked
/// on that descriptor, and its name unlinked on the folder's descriptor only while it still names
/// that file. Returns the paths removed.
pub fn clean<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Result<Vec<PathBuf>, TargetError> {
    let mut removed = Vec::new();
    for path in paths {
        let Ok((parent, name)) = parent_of(path) else {
            continue;
        };
        let Ok(file) = parent.open_file(name, OFlags::RDONLY) else {
            continue;
        };
        if marker::read_marker(&file, path)?.is_none() {
            continue;
        }
        if unlink_if_same(&parent, name, &file)? {
            removed.push(path.to_path_buf());
        }
    }
    Ok(removed)
}

/// Whether rigel created the open `file`, finished filling it or not.
pub(crate) fn marked_by_rigel(file: &File, path: &Path) -> Result<bool, TargetError> {
    Ok(marker::read_marker(file, path)?.is_some())
}

/// Whether rigel created the open `file` and finished filling it.
pub fn created_by_rigel(file: &File, path: &Path) -> Result<bool, TargetError> {
    Ok(marker::read_marker(file, path)?.is_some_and(|m| m.state == FillState::Filled))
}

#[cfg(test)]
#[path = "create_tests.rs"]
mod tests;
