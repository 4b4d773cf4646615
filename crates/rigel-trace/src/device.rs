//! The block device a capture watches: its numbers, name, model and size from sysfs.

use crate::TraceError;
use std::path::{Path, PathBuf};

/// A block device as the kernel knows it.
#[derive(Clone, Debug)]
pub struct BlockDevice {
    /// The path the user named (`/dev/sdb`).
    pub path: PathBuf,
    pub major: u32,
    pub minor: u32,
    pub model: Option<String>,
    /// Bytes, from sysfs.
    pub size: Option<u64>,
}

impl BlockDevice {
    /// Looks `path` up: it must be a block device.
    pub fn open(path: &Path) -> Result<BlockDevice, TraceError> {
        let st = rustix::fs::stat(path).map_err(|e| TraceError::Io {
            action: "stat the device",
            path: path.to_path_buf(),
            source: e.into(),
        })?;
        if rustix::fs::FileType::from_raw_mode(st.st_mode) != rustix::fs::FileType::BlockDevice {
            return Err(TraceError::Usage(format!(
                "{} is not a block device: capture watches a device's requests (for a file, capture \
                 the device holding it)",
                path.display()
            )));
        }
        let (major, minor) = (rustix::fs::major(st.st_rdev), rustix::fs::minor(st.st_rdev));
        let sys = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
        let read = |rel: &str| {
            std::fs::read_to_string(sys.join(rel))
                .ok()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
        };
        // A partition's model is its disk's.
        let model = read("device/model").or_else(|| read("../device/model"));
        let size = read("size")
            .and_then(|s| s.parse::<u64>().ok())
            .map(|sectors| sectors * 512);
        Ok(BlockDevice {
            path: path.to_path_buf(),
            major,
            minor,
            model,
            size,
        })
    }

    /// The device number as tracepoints store it (`dev_t` inside the kernel: major << 20 | minor).
    pub fn kernel_dev(&self) -> u64 {
        (u64::from(self.major) << 20) | u64::from(self.minor)
    }
}

/// This host's name and kernel release.
pub fn host_and_kernel() -> (String, String) {
    let u = rustix::system::uname();
    (
        u.nodename().to_string_lossy().into_owned(),
        u.release().to_string_lossy().into_owned(),
    )
}
