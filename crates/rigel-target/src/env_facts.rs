//! The rest of a target's environment for the report: the filesystem and mount options a file
//! lives on (from /proc/self/mountinfo), and the block device's write-cache mode, nr_requests,
//! NUMA node and firmware revision (from sysfs). Absent facts stay empty.

use rigel_results::TargetEnv;
use std::fs;
use std::path::Path;

fn read(path: &Path) -> Option<String> {
    let s = fs::read_to_string(path).ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// The mount (filesystem type, mount options) holding `path`: the longest mount point that prefixes
/// its canonical path. `mountinfo` is the text of /proc/self/mountinfo.
pub fn mount_of(path: &Path, mountinfo: &str) -> Option<(String, String)> {
    let full = fs::canonicalize(path).ok()?;
    let mut best: Option<(usize, String, String)> = None;
    for line in mountinfo.lines() {
        // `id parent maj:min root mountpoint options [optional…] - fstype source superoptions`
        let (left, right) = line.split_once(" - ")?;
        let f: Vec<&str> = left.split(' ').collect();
        let r: Vec<&str> = right.split(' ').collect();
        let (Some(point), Some(opts), Some(fstype)) = (f.get(4), f.get(5), r.first()) else {
            continue;
        };
        let point = point.replace("\\040", " ");
        if full.starts_with(&point) && best.as_ref().is_none_or(|b| point.len() >= b.0) {
            best = Some((point.len(), (*fstype).to_string(), (*opts).to_string()));
        }
    }
    best.map(|(_, t, o)| (t, o))
}

/// Facts of `path` on the device `disk_dir` (`/sys/block/NAME`, when there is one).
pub fn target_env(path: &Path, is_file: bool, disk_dir: Option<&Path>) -> TargetEnv {
    let mut env = TargetEnv::default();
    if is_file {
        if let Some((t, o)) =
            read(Path::new("/proc/self/mountinfo")).and_then(|m| mount_of(path, &m))
        {
            env.filesystem = t;
            env.mount_options = o;
        }
    }
    if let Some(disk) = disk_dir {
        let q = disk.join("queue");
        env.write_cache = read(&q.join("write_cache")).unwrap_or_default();
        env.nr_requests = read(&q.join("nr_requests")).and_then(|s| s.parse().ok());
        env.numa_node = read(&disk.join("device/numa_node")).and_then(|s| s.parse().ok());
        env.firmware = read(&disk.join("device/firmware_rev"))
            .or_else(|| read(&disk.join("device/rev")))
            .unwrap_or_default();
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_mount_point_wins() {
        let info = "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n\
                    30 22 0:5 / /dev rw,nosuid - devtmpfs udev rw\n\
                    31 30 0:6 / /dev/shm rw,nosuid,nodev - tmpfs tmpfs rw\n";
        let (t, o) = mount_of(Path::new("/dev/shm"), info).expect("a mount");
        assert_eq!((t.as_str(), o.as_str()), ("tmpfs", "rw,nosuid,nodev"));
        assert_eq!(mount_of(Path::new("/"), info).expect("root").0, "ext4");
    }
}
