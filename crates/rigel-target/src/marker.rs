//! The mark rigel leaves on test files it created: later runs reuse them and may write them without
//! consent. Kept as the user xattr `user.rigel.created`, or, where the filesystem has no user
//! xattrs, a sidecar file `.NAME.rigel` bound to the file's device and inode (so a different file
//! later put under the same name is not taken for rigel's).

use super::TargetError;
use rustix::fs::XattrFlags;
use std::fmt;
use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

pub const XATTR_NAME: &str = "user.rigel.created";

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

impl fmt::Display for Marker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.state {
            FillState::Filling => "filling",
            FillState::Filled => "filled",
        };
        write!(f, "rigel 1 {state} {}", self.size)
    }
}

impl Marker {
    fn parse(text: &str) -> Option<Marker> {
        let mut words = text.split_whitespace();
        if (words.next()?, words.next()?) != ("rigel", "1") {
            return None;
        }
        let state = match words.next()? {
            "filling" => FillState::Filling,
            "filled" => FillState::Filled,
            _ => return None,
        };
        let size = words.next()?.parse().ok()?;
        Some(Marker { state, size })
    }
}

/// `dir/.NAME.rigel`.
pub fn sidecar_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.rigel"))
}

/// Marks `path` (which must exist) as rigel's: the xattr where it works, the sidecar otherwise.
pub fn write_marker(path: &Path, marker: Marker) -> Result<(), TargetError> {
    let text = marker.to_string();
    match rustix::fs::setxattr(path, XATTR_NAME, text.as_bytes(), XattrFlags::empty()) {
        Ok(()) => Ok(()),
        Err(_) => {
            let meta = fs::metadata(path).map_err(TargetError::io(path, "read the metadata"))?;
            let bound = format!("{text} {} {}\n", meta.dev(), meta.ino());
            let side = sidecar_path(path);
            fs::write(&side, bound).map_err(TargetError::io(side, "write the rigel marker"))
        }
    }
}

/// The mark on `path`, if rigel created it.
pub fn read_marker(path: &Path) -> Result<Option<Marker>, TargetError> {
    let mut buf = [0u8; 128];
    if let Ok(n) = rustix::fs::getxattr(path, XATTR_NAME, &mut buf[..]) {
        return Ok(Marker::parse(&String::from_utf8_lossy(&buf[..n])));
    }
    let side = sidecar_path(path);
    let text = match fs::read_to_string(&side) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(TargetError::io(side, "read the rigel marker")(e)),
    };
    let meta = fs::metadata(path).map_err(TargetError::io(path, "read the metadata"))?;
    let words: Vec<&str> = text.split_whitespace().collect();
    let binds_this_file = words.len() == 6
        && words[4] == meta.dev().to_string()
        && words[5] == meta.ino().to_string();
    Ok(binds_this_file
        .then(|| Marker::parse(&words[..4].join(" ")))
        .flatten())
}

/// Removes the sidecar, if any (the xattr goes with the file).
pub fn remove_sidecar(path: &Path) -> Result<(), TargetError> {
    let side = sidecar_path(path);
    match fs::remove_file(&side) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            Err(TargetError::io(side, "remove the rigel marker")(e))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILLED: Marker = Marker {
        state: FillState::Filled,
        size: 1 << 20,
    };

    #[test]
    fn marker_round_trips_through_the_xattr_on_tmp_and_shm() {
        for base in ["/tmp", "/dev/shm"] {
            if !Path::new(base).is_dir() {
                continue;
            }
            let dir = tempfile::tempdir_in(base).unwrap();
            let path = dir.path().join("f");
            fs::write(&path, b"x").unwrap();
            assert_eq!(read_marker(&path).unwrap(), None);
            write_marker(&path, FILLED).unwrap();
            assert_eq!(read_marker(&path).unwrap(), Some(FILLED));
            let mut buf = [0u8; 64];
            let n = rustix::fs::getxattr(&path, XATTR_NAME, &mut buf[..]);
            match n {
                Ok(n) => assert_eq!(&buf[..n], b"rigel 1 filled 1048576"),
                Err(_) => assert!(sidecar_path(&path).exists(), "{base}: no mark at all"),
            }
        }
    }

    #[test]
    fn sidecar_binds_to_its_inode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.bin");
        fs::write(&path, b"x").unwrap();
        let meta = fs::metadata(&path).unwrap();
        let side = sidecar_path(&path);
        assert_eq!(side, dir.path().join(".data.bin.rigel"));
        fs::write(&side, format!("{FILLED} {} {}\n", meta.dev(), meta.ino())).unwrap();
        assert_eq!(read_marker(&path).unwrap(), Some(FILLED));

        // Another file put under the same name is not rigel's.
        fs::remove_file(&path).unwrap();
        fs::write(dir.path().join("keep-inode-busy"), b"y").unwrap();
        fs::write(&path, b"user data").unwrap();
        if fs::metadata(&path).unwrap().ino() != meta.ino() {
            assert_eq!(read_marker(&path).unwrap(), None);
        }
        fs::write(&side, "rigel 1 filled 5 1 2\n").unwrap();
        assert_eq!(read_marker(&path).unwrap(), None);
        remove_sidecar(&path).unwrap();
        assert!(!side.exists());
    }

    #[test]
    fn foreign_xattr_values_are_not_marks() {
        assert_eq!(Marker::parse("rigel 2 filled 5"), None);
        assert_eq!(Marker::parse("rigel 1 done 5"), None);
        assert_eq!(Marker::parse("rigel 1 filling x"), None);
        assert_eq!(
            Marker::parse("rigel 1 filling 7"),
            Some(Marker {
                state: FillState::Filling,
                size: 7
            })
        );
    }
}
