//! Loop devices over sparse tmpfs files for tests that need a real block device, and a read-IOPS
//! throttle on one of them (cgroup v1 blkio), to slow a run down on purpose.

use std::path::PathBuf;
use std::process::Command;

/// A loop device, detached on drop (with its throttle lifted).
pub struct LoopDevice {
    pub dev: String,
    _backing: tempfile::NamedTempFile,
}

const READ_IOPS_LIMITS: &str = "/sys/fs/cgroup/blkio/blkio.throttle.read_iops_device";

impl LoopDevice {
    /// None, with the reason printed, when not root or losetup fails.
    pub fn new(size: u64) -> Option<LoopDevice> {
        let root = std::fs::metadata("/proc/self")
            .is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0);
        if !root {
            eprintln!("skipped: loop devices need root");
            return None;
        }
        let backing = tempfile::NamedTempFile::new_in("/dev/shm").ok()?;
        backing.as_file().set_len(size).ok()?;
        let out = Command::new("losetup")
            .args(["-f", "--show", "--direct-io=on"])
            .arg(backing.path())
            .output();
        match out {
            Ok(o) if o.status.success() => Some(LoopDevice {
                dev: String::from_utf8_lossy(&o.stdout).trim().to_owned(),
                _backing: backing,
            }),
            other => {
                eprintln!("skipped: losetup failed: {other:?}");
                None
            }
        }
    }

    /// `7:0`, from sysfs.
    fn numbers(&self) -> Option<String> {
        let name = self.dev.rsplit('/').next()?;
        let path = PathBuf::from("/sys/block").join(name).join("dev");
        std::fs::read_to_string(path)
            .ok()
            .map(|s| s.trim().to_owned())
    }

    /// Reads completed, from /sys/block/loopN/stat.
    pub fn reads(&self) -> u64 {
        self.stat(0)
    }

    /// Sectors read: bytes, which request merging cannot skew.
    pub fn sectors_read(&self) -> u64 {
        self.stat(2)
    }

    /// Sectors written (512 bytes each).
    pub fn sectors_written(&self) -> u64 {
        self.stat(6)
    }

    fn stat(&self, field: usize) -> u64 {
        let name = self.dev.rsplit('/').next().unwrap_or_default();
        let stat = std::fs::read_to_string(PathBuf::from("/sys/block").join(name).join("stat"))
            .expect("the loop device's stat");
        stat.split_whitespace()
            .nth(field)
            .and_then(|n| n.parse().ok())
            .expect("a read counter")
    }

    /// Limits reads on this device to `iops` per second for every process (0 lifts the limit).
    /// False, with the reason printed, where the cgroup v1 blkio throttle is not available.
    pub fn throttle_reads(&self, iops: u32) -> bool {
        let Some(numbers) = self.numbers() else {
            eprintln!("skipped: no device numbers for {}", self.dev);
            return false;
        };
        match std::fs::write(READ_IOPS_LIMITS, format!("{numbers} {iops}")) {
            Ok(()) => true,
            Err(e) => {
                eprintln!(
                    "skipped: cannot throttle {} ({READ_IOPS_LIMITS}: {e})",
                    self.dev
                );
                false
            }
        }
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        if let Some(numbers) = self.numbers() {
            let _ = std::fs::write(READ_IOPS_LIMITS, format!("{numbers} 0"));
        }
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}
