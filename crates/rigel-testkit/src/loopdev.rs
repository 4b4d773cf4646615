//! Loop devices over sparse tmpfs files that the test creates, detached by a guard even when the
//! test fails, and a read-IOPS throttle on one (cgroup v1 blkio), to slow a run down on purpose.
//! Where a test cannot make one (not root, no losetup), it panics saying what is missing: a test
//! that cannot run must fail (or be `#[ignore]`d), never pass without having run.

use std::cell::Cell;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;

const READ_IOPS_LIMITS: &str = "/sys/fs/cgroup/blkio/blkio.throttle.read_iops_device";

/// Whether this process runs as root (loop devices and mounts need it).
pub fn is_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// A loop device this test attached; detached on drop (with its throttle lifted).
pub struct LoopDevice {
    dev: String,
    throttled: Cell<bool>,
    // Dropped after the device is detached: the backing file lives in this folder.
    _backing_dir: tempfile::TempDir,
}

impl LoopDevice {
    /// A loop device over a new `size`-byte tmpfs file, with direct I/O on.
    pub fn new(size: u64) -> LoopDevice {
        LoopDevice::with(size, &[])
    }

    /// [`LoopDevice::new`] with more `losetup` options (`-r`, `--sector-size 4096`, `--partscan`).
    pub fn with(size: u64, losetup_args: &[&str]) -> LoopDevice {
        assert!(is_root(), "loop devices need root (.ci/run runs as root)");
        let base = if Path::new("/dev/shm").is_dir() {
            "/dev/shm"
        } else {
            "/tmp"
        };
        let dir = tempfile::tempdir_in(base).expect("a temp folder for the backing file");
        let backing = dir.path().join("backing.img");
        std::fs::File::create(&backing)
            .and_then(|f| f.set_len(size))
            .expect("the backing file");
        let out = Command::new("losetup")
            .args(["-f", "--show", "--direct-io=on"])
            .args(losetup_args)
            .arg(&backing)
            .output();
        match out {
            Ok(o) if o.status.success() => {
                let dev = LoopDevice {
                    dev: String::from_utf8_lossy(&o.stdout).trim().to_owned(),
                    throttled: Cell::new(false),
                    _backing_dir: dir,
                };
                // A throttle outlives its device (a test killed before its guard ran): this new
                // device under the same numbers starts unthrottled.
                dev.lift_stale_throttle();
                dev
            }
            Ok(o) => panic!(
                "cannot attach a loop device: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            ),
            Err(e) => panic!("cannot run losetup (util-linux): {e}"),
        }
    }

    /// `/dev/loopN`.
    pub fn dev(&self) -> &str {
        &self.dev
    }

    pub fn path(&self) -> &Path {
        Path::new(&self.dev)
    }

    /// `loopN`, the name under /sys/block.
    pub fn name(&self) -> &str {
        self.dev.rsplit('/').next().unwrap_or_default()
    }

    /// Turns the block layer's merging off (`queue/nomerges` 2): the device then sees each request
    /// as it was sent, where two adjacent ones queued together would otherwise reach it as one (a
    /// loaded host's slower loop worker leaves more of them queued together).
    pub fn no_merges(&self) {
        let path = PathBuf::from("/sys/block")
            .join(self.name())
            .join("queue/nomerges");
        std::fs::write(&path, "2")
            .unwrap_or_else(|e| panic!("cannot turn merges off at {}: {e}", path.display()));
    }

    /// `7:0`, from sysfs.
    pub fn numbers(&self) -> Option<String> {
        let path = PathBuf::from("/sys/block").join(self.name()).join("dev");
        std::fs::read_to_string(path)
            .ok()
            .map(|s| s.trim().to_owned())
    }

    /// Lifts a read throttle left on this device's numbers, where one is listed.
    fn lift_stale_throttle(&self) {
        let (Some(numbers), Ok(rules)) =
            (self.numbers(), std::fs::read_to_string(READ_IOPS_LIMITS))
        else {
            return;
        };
        if rules.lines().any(|l| l.starts_with(&format!("{numbers} "))) {
            let _ = std::fs::write(READ_IOPS_LIMITS, format!("{numbers} 0"));
        }
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

    /// Discards completed (field 12 of /sys/block/loopN/stat).
    pub fn discards(&self) -> u64 {
        self.stat(11)
    }

    /// Sectors discarded (field 14; 512 bytes each).
    pub fn sectors_discarded(&self) -> u64 {
        self.stat(13)
    }

    fn stat(&self, field: usize) -> u64 {
        let path = PathBuf::from("/sys/block").join(self.name()).join("stat");
        let stat = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("the loop device's stat {}: {e}", path.display()));
        stat.split_whitespace()
            .nth(field)
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no counter {field} in {}: {stat:?}", path.display()))
    }

    /// Limits reads on this device to `iops` per second for every process (0 lifts the limit).
    /// Panics, saying why, where the cgroup v1 blkio throttle is not available.
    pub fn throttle_reads(&self, iops: u32) {
        let numbers = self
            .numbers()
            .unwrap_or_else(|| panic!("no device numbers for {} in sysfs", self.dev));
        if let Err(e) = std::fs::write(READ_IOPS_LIMITS, format!("{numbers} {iops}")) {
            panic!(
                "cannot throttle {} ({READ_IOPS_LIMITS}: {e}): the cgroup v1 blkio throttle is needed",
                self.dev
            );
        }
        self.throttled.set(iops > 0);
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        if self.throttled.get() {
            if let Some(numbers) = self.numbers() {
                let _ = std::fs::write(READ_IOPS_LIMITS, format!("{numbers} 0"));
            }
        }
        match Command::new("losetup").args(["-d", &self.dev]).output() {
            Ok(o) if o.status.success() => {}
            Ok(o) => eprintln!(
                "warning: could not detach {}: {}",
                self.dev,
                String::from_utf8_lossy(&o.stderr).trim()
            ),
            Err(e) => eprintln!("warning: could not detach {}: {e}", self.dev),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real I/O through a real loop device: written sectors show in its counters.
    #[test]
    fn a_loop_device_counts_its_io_and_detaches() {
        let dev = LoopDevice::new(1 << 20);
        let name = dev.name().to_owned();
        let backing_file = format!("/sys/block/{name}/loop/backing_file");
        let backing = std::fs::read_to_string(&backing_file).expect("an attached loop device");
        let before = dev.sectors_written();
        std::fs::write(dev.path(), vec![7u8; 64 << 10]).expect("write the loop device");
        let sync = std::fs::File::open(dev.path()).and_then(|f| f.sync_all());
        sync.expect("flush the loop device");
        assert!(dev.sectors_written() >= before + 128);
        assert_eq!(std::fs::read(dev.path()).expect("read back")[..4], [7u8; 4]);
        drop(dev);
        // Another test may attach the same loopN at once: only our backing file must be gone.
        let after = std::fs::read_to_string(&backing_file).ok();
        assert_ne!(
            after.as_deref(),
            Some(backing.as_str()),
            "{name} still attached"
        );
    }
}
