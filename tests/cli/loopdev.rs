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
    /// Panics, saying why, when not root or losetup fails (`.ci/run` runs as root).
    pub fn new(size: u64) -> LoopDevice {
        let root = std::fs::metadata("/proc/self")
            .is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0);
        assert!(root, "loop devices need root (.ci/run runs as root)");
        let backing = tempfile::NamedTempFile::new_in("/dev/shm").expect("a file in /dev/shm");
        backing
            .as_file()
            .set_len(size)
            .expect("the backing file's size");
        let out = Command::new("losetup")
            .args(["-f", "--show", "--direct-io=on"])
            .arg(backing.path())
            .output();
        match out {
            Ok(o) if o.status.success() => LoopDevice {
                dev: String::from_utf8_lossy(&o.stdout).trim().to_owned(),
                _backing: backing,
            },
            other => panic!("losetup failed (util-linux): {other:?}"),
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
    /// Panics where the cgroup v1 blkio throttle is not available (it is on this machine's kind and
    /// CI's).
    pub fn throttle_reads(&self, iops: u32) {
        let numbers = self
            .numbers()
            .unwrap_or_else(|| panic!("no device numbers for {}", self.dev));
        if let Err(e) = std::fs::write(READ_IOPS_LIMITS, format!("{numbers} {iops}")) {
            panic!("cannot throttle {} ({READ_IOPS_LIMITS}: {e})", self.dev);
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
