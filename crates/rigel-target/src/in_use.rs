//! Whether a target is in use by the system: mounted (itself or a partition), held by stacked
//! devices, an active swap area, or backing a loop device (a file, or a block device: loop over
//! loop, loop over a disk). Such a target is never written, `--force` or not.

use super::kind::TargetKind;
use super::probe::Probe;
use super::refusal::Reason;
use super::sysfs::{Sysfs, parse_dev};
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// What the system reports about devices in use, read once per check.
pub(crate) struct System {
    pub sysfs: Sysfs,
    pub mountinfo: String,
    pub swaps: String,
}

impl System {
    pub(crate) fn read() -> System {
        System {
            sysfs: Sysfs::default(),
            mountinfo: fs::read_to_string("/proc/self/mountinfo").unwrap_or_default(),
            swaps: fs::read_to_string("/proc/swaps").unwrap_or_default(),
        }
    }

    /// Why the target is in use, if it is.
    pub(crate) fn in_use(&self, path: &Path, probe: &Probe) -> Option<Reason> {
        match probe.kind {
            TargetKind::Block | TargetKind::Passthru => self.device_in_use(path, probe.dev),
            TargetKind::File => self.file_in_use(path, probe),
        }
    }

    fn device_in_use(&self, path: &Path, dev: (u32, u32)) -> Option<Reason> {
        let own_name = self
            .sysfs
            .name(dev)
            .unwrap_or_else(|| path.display().to_string());
        let mut devices = vec![(own_name, dev)];
        devices.extend(self.sysfs.partitions(dev));
        for (name, d) in &devices {
            if let Some(mountpoint) = mountpoint_of(&self.mountinfo, *d) {
                return Some(Reason::Mounted {
                    device: name.clone(),
                    mountpoint,
                });
            }
            let holders = self.sysfs.holders(*d);
            if !holders.is_empty() {
                return Some(Reason::Held {
                    device: name.clone(),
                    holders,
                });
            }
            if self.swap_devices().any(|s| s == *d) {
                return Some(Reason::Swap {
                    device: name.clone(),
                });
            }
            // A loop device over a block device is no holder of it (the loop driver links no
            // holder), yet a filesystem mounted on the loop device lives on this one.
            if let Some(loop_device) = self.loop_over_device(*d) {
                return Some(Reason::BacksLoop { loop_device });
            }
        }
        None
    }

    /// The loop device whose backing file is the block device `dev`, if any.
    fn loop_over_device(&self, dev: (u32, u32)) -> Option<String> {
        self.sysfs
            .loop_backings()
            .into_iter()
            .find(|(_, backing)| {
                fs::metadata(backing).is_ok_and(|m| {
                    m.file_type().is_block_device()
                        && (rustix::fs::major(m.rdev()), rustix::fs::minor(m.rdev())) == dev
                })
            })
            .map(|(name, _)| name)
    }

    fn file_in_use(&self, path: &Path, probe: &Probe) -> Option<Reason> {
        let same_file = |other: &Path| {
            fs::metadata(other).is_ok_and(|m| {
                m.ino() == probe.inode
                    && (rustix::fs::major(m.dev()), rustix::fs::minor(m.dev())) == probe.dev
            })
        };
        if let Some((name, _)) = self
            .sysfs
            .loop_backings()
            .into_iter()
            .find(|(_, backing)| same_file(backing))
        {
            return Some(Reason::BacksLoop { loop_device: name });
        }
        swap_entries(&self.swaps)
            .any(|p| same_file(Path::new(p)))
            .then(|| Reason::Swap {
                device: path.display().to_string(),
            })
    }

    fn swap_devices(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        swap_entries(&self.swaps).filter_map(|p| {
            let m = fs::metadata(p).ok()?;
            m.file_type()
                .is_block_device()
                .then(|| (rustix::fs::major(m.rdev()), rustix::fs::minor(m.rdev())))
        })
    }
}

/// The first mount point of a device in mountinfo (field 3 is MAJ:MIN, field 5 the mount point).
pub(crate) fn mountpoint_of(mountinfo: &str, dev: (u32, u32)) -> Option<String> {
    mountinfo.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let d = parse_dev(fields.get(2)?)?;
        let mountpoint = fields.get(4)?;
        (d == dev).then(|| unescape_octal(mountpoint))
    })
}

/// mountinfo writes space, tab, newline and backslash as `\040` and so on.
fn unescape_octal(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes.get(i + 1..i + 4).and_then(|d| {
            let text = std::str::from_utf8(d).ok()?;
            u8::from_str_radix(text, 8).ok()
        });
        match (bytes[i], octal) {
            (b'\\', Some(b)) => {
                out.push(b);
                i += 4;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Paths in /proc/swaps (after its header line).
fn swap_entries(swaps: &str) -> impl Iterator<Item = &str> {
    swaps
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_lookup_and_unescaping() {
        let info = "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n\
                    42 27 7:3 / /tmp/my\\040mnt rw,relatime - ext4 /dev/loop3 rw\n";
        assert_eq!(mountpoint_of(info, (254, 0)).as_deref(), Some("/"));
        assert_eq!(mountpoint_of(info, (7, 3)).as_deref(), Some("/tmp/my mnt"));
        assert_eq!(mountpoint_of(info, (7, 4)), None);
        let swaps = "Filename\tType\tSize\tUsed\tPriority\n/dev/zram0 partition 8 0 100\n";
        assert_eq!(swap_entries(swaps).collect::<Vec<_>>(), vec!["/dev/zram0"]);
    }

    /// /sys with disk `sdz` (8:0) and its partition `sdz1` (8:1), which dm-3 holds.
    fn fake_system(mountinfo: &str) -> (tempfile::TempDir, System) {
        let root = tempfile::tempdir().unwrap();
        let disk = root.path().join("devices/pci0/block/sdz");
        let part = disk.join("sdz1");
        fs::create_dir_all(part.join("holders/dm-3")).unwrap();
        fs::create_dir_all(disk.join("holders")).unwrap();
        fs::create_dir_all(root.path().join("dev/block")).unwrap();
        fs::write(part.join("partition"), "1\n").unwrap();
        fs::write(part.join("dev"), "8:1\n").unwrap();
        std::os::unix::fs::symlink(&disk, root.path().join("dev/block/8:0")).unwrap();
        std::os::unix::fs::symlink(&part, root.path().join("dev/block/8:1")).unwrap();
        let system = System {
            sysfs: Sysfs::at(root.path()),
            mountinfo: mountinfo.into(),
            swaps: "Filename Type Size Used Priority\n".into(),
        };
        (root, system)
    }

    fn block(dev: (u32, u32)) -> Probe {
        Probe {
            kind: TargetKind::Block,
            size: 1 << 30,
            logical_block_size: 512,
            physical_block_size: 512,
            dio_offset_align: 512,
            dio_mem_align: 512,
            dev,
            inode: 1,
        }
    }

    #[test]
    fn a_held_or_mounted_partition_makes_its_disk_busy() {
        let sdz = Path::new("/dev/sdz");
        let (_root, system) = fake_system("");
        let held = Reason::Held {
            device: "sdz1".into(),
            holders: vec!["dm-3".into()],
        };
        assert_eq!(system.in_use(sdz, &block((8, 0))), Some(held));
        let (_root, system) = fake_system("50 1 8:1 / /data rw - xfs /dev/sdz1 rw\n");
        let mounted = Reason::Mounted {
            device: "sdz1".into(),
            mountpoint: "/data".into(),
        };
        assert_eq!(system.in_use(sdz, &block((8, 0))), Some(mounted));
        assert_eq!(system.in_use(sdz, &block((8, 9))), None);
    }
}
