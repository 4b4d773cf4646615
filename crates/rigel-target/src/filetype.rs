//! Targets refused by their type before anything opens them: a FIFO would block `open()` until a
//! writer came, a character device or a socket is no storage, a directory holds no data. `stat`
//! never blocks; the open that follows uses O_NONBLOCK so that a path swapped for a FIFO in between
//! cannot block it either (`open_target` checks the type again on the descriptor).

use super::TargetError;
use std::fs::{FileType, Metadata};
use std::io;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// Refuses `path` when it exists and is neither a regular file, a block device nor an NVMe
/// namespace's generic character device. A missing path passes (a test file may be created there).
pub fn refuse_special(path: &Path) -> Result<(), TargetError> {
    match std::fs::metadata(path) {
        Ok(meta) => check(path, &meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(TargetError::io(path, "read the metadata")(e)),
    }
}

/// Ok for a regular file, a block device or a passthrough target; otherwise the error naming
/// what it is.
pub fn check(path: &Path, meta: &Metadata) -> Result<(), TargetError> {
    let ft = meta.file_type();
    if ft.is_file() || ft.is_block_device() || super::passthru::namespace_of(meta).is_some() {
        return Ok(());
    }
    Err(TargetError::Unsupported {
        path: path.into(),
        kind: type_name(&ft),
    })
}

fn type_name(ft: &FileType) -> &'static str {
    if ft.is_dir() {
        "directory"
    } else if ft.is_char_device() {
        "character device"
    } else if ft.is_fifo() {
        "FIFO"
    } else if ft.is_socket() {
        "socket"
    } else {
        "special file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_files_are_named_and_missing_or_regular_ones_pass() {
        let dir = tempfile::tempdir().unwrap();
        let err = refuse_special(dir.path()).unwrap_err();
        assert!(err.to_string().contains("is a directory"), "{err}");
        let err = refuse_special(Path::new("/dev/null")).unwrap_err();
        assert!(err.to_string().contains("is a character device"), "{err}");
        let sock = dir.path().join("sock");
        let _l = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        assert!(
            refuse_special(&sock)
                .unwrap_err()
                .to_string()
                .contains("is a socket")
        );
        refuse_special(&dir.path().join("absent")).unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        refuse_special(&file).unwrap();
    }
}
