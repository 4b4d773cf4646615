//! Test files a spec declares with a size: created when absent, preallocated, and filled with random
//! data (reads of never-written extents touch no device and would fake the numbers), kept for later
//! runs, and removed by `clean`.

use super::TargetError;
use super::error::lock_target;
use super::lock::LockKind;
use super::marker::{self, FillState, Marker};
use rustix::fs::FallocateFlags;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::ops::ControlFlow;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
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

/// Makes sure a declared test file of `size` bytes exists and holds random data.
pub fn ensure_file(
    path: &Path,
    size: u64,
    on_progress: &mut OnProgress,
) -> Result<Preparation, TargetError> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            refuse_device_directory(path)?;
            // Locked from its creation to the end of its fill: a second rigel creating the same
            // file finds it and is refused (see below) instead of filling it too.
            let Some(_lock) = create(path, size, on_progress)? else {
                // Another rigel created it since it was looked for: judge it as found.
                return ensure_file(path, size, on_progress);
            };
            fill(path, 0, size, on_progress)?;
            return Ok(Preparation::Created);
        }
        Err(e) => return Err(TargetError::io(path, "read the metadata")(e)),
    };
    if !meta.is_file() {
        return Ok(Preparation::Foreign);
    }
    let Some(mark) = marker::read_marker(path)? else {
        // No marker: a foreign file, or one another rigel has just created and not yet marked
        // (it holds the exclusive lock from its creation to the end of its fill): a shared lock
        // is refused then, naming that rigel, instead of taking its file for a foreign one.
        let probe = File::open(path).map_err(TargetError::io(path, "open to lock"))?;
        lock_target(&probe, path, LockKind::Shared)?;
        if marker::read_marker(path)?.is_some() {
            // Marked (and filled) between the two looks: judge it again.
            drop(probe);
            return ensure_file(path, size, on_progress);
        }
        let meta = probe
            .metadata()
            .map_err(TargetError::io(path, "read the metadata"))?;
        if meta.len() < size {
            return Err(TargetError::TooSmall {
                path: path.into(),
                actual: meta.len(),
                declared: size,
            });
        }
        return Ok(Preparation::Foreign);
    };
    let filled_to = match mark.state {
        FillState::Filled if meta.len() >= mark.size => mark.size,
        _ => 0,
    };
    if filled_to >= size {
        return Ok(Preparation::Reused);
    }
    // Unfinished: another rigel may be filling it right now. Refuse rather than fill it twice.
    let _lock = File::open(path).map_err(TargetError::io(path, "open to lock"))?;
    lock_target(&_lock, path, LockKind::Exclusive)?;
    let start = filled_to / FILL_ALIGN as u64 * FILL_ALIGN as u64;
    grow(
        path,
        size,
        Marker {
            state: FillState::Filling,
            size,
        },
        on_progress,
    )?;
    fill(path, start, size, on_progress)?;
    Ok(Preparation::Completed)
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

/// Creates the file (never over an existing one), marks it unfinished, and preallocates it; None
/// when the file exists (another rigel created it first). When preallocating fails (no space,
/// say) the empty file is removed again.
fn create(
    path: &Path,
    size: u64,
    on_progress: &mut OnProgress,
) -> Result<Option<File>, TargetError> {
    let file = match OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(None),
        Err(e) => return Err(TargetError::io(path, "create the test file")(e)),
    };
    lock_target(&file, path, LockKind::Exclusive)?;
    let mark = Marker {
        state: FillState::Filling,
        size,
    };
    grow(path, size, mark, on_progress).inspect_err(|_| {
        let _ = fs::remove_file(path);
        let _ = marker::remove_sidecar(path);
    })?;
    Ok(Some(file))
}

/// Bytes preallocated per call: tmpfs allocates page by page (a 4 GiB call took seconds and kept
/// SIGTERM waiting), so the caller's stop request is looked at between pieces of this size.
const PREALLOCATE_STEP: u64 = 64 << 20;

fn grow(
    path: &Path,
    size: u64,
    mark: Marker,
    on_progress: &mut OnProgress,
) -> Result<(), TargetError> {
    marker::write_marker(path, mark)?;
    let file = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(TargetError::io(path, "open read-write"))?;
    // One call used to fail at once when the space was not there; pieces would first fill the
    // filesystem, so ask it first.
    let free = rustix::fs::fstatvfs(&file)
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
        match rustix::fs::fallocate(&file, FallocateFlags::empty(), at, len) {
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
    path: &Path,
    start: u64,
    end: u64,
    on_progress: &mut OnProgress,
) -> Result<(), TargetError> {
    let out = FillOutput::open(path)?;
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
    fn open(path: &'a Path) -> Result<Self, TargetError> {
        let buffered = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(TargetError::io(path, "open read-write"))?;
        let direct = OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_DIRECT)
            .open(path)
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

/// Deletes the files among `paths` that rigel created (and their markers); others are kept.
/// Returns the paths removed.
pub fn clean<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Result<Vec<PathBuf>, TargetError> {
    let mut removed = Vec::new();
    for path in paths {
        let is_file = fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
        if !is_file || marker::read_marker(path)?.is_none() {
            continue;
        }
        fs::remove_file(path).map_err(TargetError::io(path, "remove the test file"))?;
        marker::remove_sidecar(path)?;
        removed.push(path.to_path_buf());
    }
    Ok(removed)
}

/// Whether rigel created `path`, finished filling it or not.
pub(crate) fn marked_by_rigel(path: &Path) -> Result<bool, TargetError> {
    Ok(marker::read_marker(path)?.is_some())
}

/// Whether rigel created `path` and finished filling it.
pub fn created_by_rigel(path: &Path) -> Result<bool, TargetError> {
    Ok(marker::read_marker(path)?.is_some_and(|m| m.state == FillState::Filled))
}

#[cfg(test)]
#[path = "create_tests.rs"]
mod tests;
