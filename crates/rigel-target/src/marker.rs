//! The mark rigel leaves on test files it created: later runs reuse them and may write them without
//! consent, and `--clean` deletes them. So the mark must be one a user without root cannot make,
//! and must stop vouching for a file whose content changed under it:
//!
//! - where the filesystem has them, the `trusted.rigel.created` xattr (only CAP_SYS_ADMIN may
//!   set or even see `trusted.*`; a user can set `user.*` on their own files, so that is never
//!   read);
//! - elsewhere (ramfs, NFS, FUSE, or rigel not running as root), a record in a state folder of
//!   the user running rigel (`/var/lib/rigel/marks`, mode 0700, for root), named by the file's
//!   device and inode.
//!
//! Both hold the same words: the fill state and size, the device, inode, length and mtime at the
//! time of marking, and a fingerprint of sampled blocks. A filled file whose inode, length, mtime
//! or fingerprint no longer match (`cp backup.img scratch.bin` keeps the inode and its xattrs) is
//! not rigel's. A run that writes rigel's file marks it again when it ends.

use super::TargetError;
use rigel_fs::Dir;
use rustix::fs::XattrFlags;
use std::fmt;
use std::fs::File;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

pub const XATTR_NAME: &str = "trusted.rigel.created";
/// The state folder when rigel runs as root; `RIGEL_STATE_DIR` overrides it.
pub const ROOT_STATE_DIR: &str = "/var/lib/rigel/marks";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FillState {
    /// Created, random data not yet complete (a fill that was stopped): the next run fills again.
    Filling,
    /// Every byte up to `size` holds random data.
    Filled,
}

/// rigel created this file; `size` bytes are (or are being) filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Marker {
    pub state: FillState,
    pub size: u64,
}

/// A mark as stored: the marker and the file as it was when marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Record {
    marker: Marker,
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    fingerprint: u64,
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.marker.state {
            FillState::Filling => "filling",
            FillState::Filled => "filled",
        };
        write!(
            f,
            "rigel 2 {state} {} {} {} {} {}.{} {:016x}",
            self.marker.size,
            self.dev,
            self.ino,
            self.len,
            self.mtime.0,
            self.mtime.1,
            self.fingerprint
        )
    }
}

impl Record {
    fn parse(text: &str) -> Option<Record> {
        let w: Vec<&str> = text.split_whitespace().collect();
        if w.len() != 9 || (w[0], w[1]) != ("rigel", "2") {
            return None;
        }
        let state = match w[2] {
            "filling" => FillState::Filling,
            "filled" => FillState::Filled,
            _ => return None,
        };
        let (secs, nanos) = w[7].split_once('.')?;
        Some(Record {
            marker: Marker {
                state,
                size: w[3].parse().ok()?,
            },
            dev: w[4].parse().ok()?,
            ino: w[5].parse().ok()?,
            len: w[6].parse().ok()?,
            mtime: (secs.parse().ok()?, nanos.parse().ok()?),
            fingerprint: u64::from_str_radix(w[8], 16).ok()?,
        })
    }

    /// The record of `file` as it is now.
    fn of(file: &File, path: &Path, marker: Marker) -> Result<Record, TargetError> {
        let meta = file
            .metadata()
            .map_err(TargetError::io(path, "read the metadata"))?;
        Ok(Record {
            marker,
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            fingerprint: fingerprint(file, path, meta.len())?,
        })
    }

    /// Whether this record still vouches for `now` (the same file's record taken now). A filled
    /// file must be unchanged; one being filled changes as it fills, so only its inode binds it,
    /// and a length beyond what rigel preallocates says someone else's data is there.
    fn vouches_for(&self, now: &Record) -> bool {
        let same_inode = (self.dev, self.ino) == (now.dev, now.ino);
        match self.marker.state {
            FillState::Filled => {
                same_inode
                    && (self.len, self.mtime, self.fingerprint)
                        == (now.len, now.mtime, now.fingerprint)
            }
            FillState::Filling => same_inode && now.len <= self.marker.size,
        }
    }
}

/// Blocks of 4 KiB sampled for the fingerprint: the first, the last and evenly between.
const SAMPLES: u64 = 16;
const SAMPLE_LEN: u64 = 4096;

/// FNV-1a over the length and `SAMPLES` blocks spread over the file: another file copied over
/// this one (same length and, with `cp --preserve`, even the same mtime) differs in them.
///
/// `file` may be the run's O_DIRECT descriptor (a run marks its files again through it): so every
/// read is a whole aligned `SAMPLE_LEN` into a buffer aligned to it, and a block the file's end
/// cuts short comes back short (O_DIRECT reads stop at the end as buffered ones do).
fn fingerprint(file: &File, path: &Path, len: u64) -> Result<u64, TargetError> {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    mix(&len.to_le_bytes());
    let mut raw = vec![0u8; 2 * SAMPLE_LEN as usize];
    let skip = raw.as_ptr().align_offset(SAMPLE_LEN as usize);
    let buf = &mut raw[skip..skip + SAMPLE_LEN as usize];
    let last = len.saturating_sub(SAMPLE_LEN) / SAMPLE_LEN * SAMPLE_LEN;
    for i in 0..SAMPLES {
        let at = (last / (SAMPLES - 1) * i) / SAMPLE_LEN * SAMPLE_LEN;
        let want = SAMPLE_LEN.min(len.saturating_sub(at)) as usize;
        read_up_to(file, buf, at, want).map_err(TargetError::io_at(
            path,
            "read a block for the mark",
            at,
        ))?;
        mix(&buf[..want]);
    }
    Ok(hash)
}

/// Reads the whole of `buf` at `at` (aligned) until its first `want` bytes are in: a short read
/// goes on where it stopped, and the end of the file before `want` is an error.
fn read_up_to(file: &File, buf: &mut [u8], at: u64, want: usize) -> std::io::Result<()> {
    let mut got = 0;
    while got < want {
        match file.read_at(&mut buf[got..], at + got as u64) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Marks `file` (rigel's own, just created or filled through this descriptor) as rigel's: the
/// trusted xattr where the filesystem and the privileges allow, the state folder otherwise.
pub fn write_marker(file: &File, path: &Path, marker: Marker) -> Result<(), TargetError> {
    let record = Record::of(file, path, marker)?;
    let text = record.to_string();
    match rustix::fs::fsetxattr(file, XATTR_NAME, text.as_bytes(), XattrFlags::empty()) {
        Ok(()) => Ok(()),
        Err(_) => {
            let dir = state_dir(true)?;
            dir.write_atomic(record_name(record.dev, record.ino), text.as_bytes())
                .map_err(|e| mark_error(path, e.to_string()))
        }
    }
}

/// The mark on `file`, if rigel created it and it still vouches for the file as it is now.
pub fn read_marker(file: &File, path: &Path) -> Result<Option<Marker>, TargetError> {
    let Some(record) = stored(file, path)? else {
        return Ok(None);
    };
    let now = Record::of(file, path, record.marker)?;
    Ok(record.vouches_for(&now).then_some(record.marker))
}

/// Marks a filled file of rigel's again after a run wrote it (its mtime and blocks changed);
/// a file whose mark no longer binds its inode is left alone.
pub fn refresh_marker(file: &File, path: &Path) -> Result<(), TargetError> {
    let Some(record) = stored(file, path)? else {
        return Ok(());
    };
    let meta = file
        .metadata()
        .map_err(TargetError::io(path, "read the metadata"))?;
    if record.marker.state != FillState::Filled
        || (record.dev, record.ino) != (meta.dev(), meta.ino())
    {
        return Ok(());
    }
    write_marker(file, path, record.marker)
}

/// Removes the state-folder record of a file being deleted (an xattr goes with the file).
pub fn remove_record(dev: u64, ino: u64) {
    if let Ok(dir) = state_dir(false) {
        let _ = dir.remove_file(record_name(dev, ino));
    }
}

/// The record kept for `file`: its xattr, else its state-folder record.
fn stored(file: &File, path: &Path) -> Result<Option<Record>, TargetError> {
    let mut buf = [0u8; 256];
    if let Ok(n) = rustix::fs::fgetxattr(file, XATTR_NAME, &mut buf[..]) {
        return Ok(Record::parse(&String::from_utf8_lossy(&buf[..n])));
    }
    let meta = file
        .metadata()
        .map_err(TargetError::io(path, "read the metadata"))?;
    let Ok(dir) = state_dir(false) else {
        return Ok(None);
    };
    match dir.read(record_name(meta.dev(), meta.ino())) {
        Ok(bytes) if bytes.len() <= 256 => Ok(Record::parse(&String::from_utf8_lossy(&bytes))),
        _ => Ok(None),
    }
}

fn record_name(dev: u64, ino: u64) -> String {
    format!("{dev:x}-{ino:x}")
}

/// The folder of marks of the user running rigel: root's `/var/lib/rigel/marks`, another user's
/// `$XDG_STATE_HOME/rigel/marks` (or `~/.local/state/rigel/marks`); `RIGEL_STATE_DIR` overrides.
/// It is trusted only while it belongs to that user and no one else may write it.
fn state_dir(create: bool) -> Result<Dir, TargetError> {
    let path = state_dir_path();
    let refuse = |message: String| mark_error(&path, message);
    if create {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&path)
            .map_err(|e| refuse(format!("cannot create the folder of rigel's marks: {e}")))?;
    }
    let dir = Dir::open_owned(&path).map_err(|e| refuse(e.to_string()))?;
    let mode = rustix::fs::fstat(&dir)
        .map_err(|e| refuse(e.to_string()))?
        .st_mode;
    if mode & 0o022 != 0 {
        return Err(refuse(format!(
            "others may write it (mode {:o}); rigel trusts marks only in a folder only it writes \
             (chmod go-w)",
            mode & 0o777
        )));
    }
    Ok(dir)
}

/// The mark could not be kept (the state folder of marks is missing, or others may write it).
fn mark_error(path: &Path, message: String) -> TargetError {
    TargetError::io(path, "keep rigel's mark on it")(std::io::Error::other(message))
}

fn state_dir_path() -> PathBuf {
    if let Some(dir) = std::env::var_os("RIGEL_STATE_DIR") {
        return PathBuf::from(dir);
    }
    if rustix::process::geteuid().is_root() {
        return PathBuf::from(ROOT_STATE_DIR);
    }
    let base = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))
        .unwrap_or_else(|| PathBuf::from("/nonexistent"));
    base.join("rigel/marks")
}

#[cfg(test)]
#[path = "marker_tests.rs"]
mod tests;
