//! What a safe file operation can fail with: the action and the path, always.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum FsError {
    #[error("cannot {action} `{}`: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "`{}` is a symbolic link; rigel writes and reads its own files only through no link (name the real path)",
        path.display()
    )]
    Symlink { path: PathBuf },
    #[error(
        "`{}` already exists and is not empty (it holds `{first}`); rigel writes only into a new or empty folder: pick another one",
        path.display()
    )]
    NotEmpty { path: PathBuf, first: String },
    #[error(
        "`{}` belongs to uid {owner}, not to the user running rigel (uid {uid}); rigel writes only into its own folders: pick another one",
        path.display()
    )]
    NotOwned { path: PathBuf, owner: u32, uid: u32 },
    /// A FIFO, a device or a socket where rigel reads a file: refused before it is read (a FIFO
    /// would block rigel forever, a device would feed it without end).
    #[error(
        "`{}` is not a regular file (it is a {kind}); rigel reads only regular files there",
        path.display()
    )]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error("`{}` is not a directory", path.display())]
    NotADirectory { path: PathBuf },
}

impl FsError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(rustix::io::Errno) -> FsError {
        let path = path.into();
        move |e| {
            if e == rustix::io::Errno::LOOP {
                return FsError::Symlink { path };
            }
            FsError::Io {
                action,
                path,
                source: e.into(),
            }
        }
    }

    /// The underlying OS error, if this is one.
    pub fn raw_os_error(&self) -> Option<i32> {
        match self {
            FsError::Io { source, .. } => source.raw_os_error(),
            FsError::Symlink { .. } => Some(rustix::io::Errno::LOOP.raw_os_error()),
            _ => None,
        }
    }
}
