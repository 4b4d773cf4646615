//! What sysfs and procfs say about the host and the devices under the targets: recorded with the
//! results so a reader knows what was measured, and read by the write guard. Facts that are absent
//! stay empty; nothing here is an error.

use rigel_results::HostInfo;
use std::fs;
use std::path::{Path, PathBuf};

/// A device's queue and identity facts (empty where sysfs has none, e.g. a file on tmpfs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceFacts {
    pub model: String,
    pub rotational: Option<bool>,
    pub scheduler: String,
    pub queue_depth: Option<u32>,
    pub logical_block_size: Option<u32>,
    pub physical_block_size: Option<u32>,
}

/// Reads sysfs under a root, so tests can point it at a tree they build.
#[derive(Clone, Debug)]
pub struct Sysfs {
    root: PathBuf,
}

impl Default for Sysfs {
    fn default() -> Self {
        Sysfs {
            root: PathBuf::from("/sys"),
        }
    }
}

impl Sysfs {
    pub fn at(root: impl Into<PathBuf>) -> Sysfs {
        Sysfs { root: root.into() }
    }

    /// The tree's root (`/sys`, or a test's).
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// `/sys/dev/block/MAJ:MIN`, resolved: the device's own directory (a partition's lies inside
    /// its disk's).
    pub fn device_dir(&self, dev: (u32, u32)) -> Option<PathBuf> {
        let link = self
            .root
            .join("dev/block")
            .join(format!("{}:{}", dev.0, dev.1));
        fs::canonicalize(link).ok()
    }

    /// The whole disk's directory: the device's own, or its parent's when it is a partition.
    pub fn disk_dir(&self, dev: (u32, u32)) -> Option<PathBuf> {
        let dir = self.device_dir(dev)?;
        if dir.join("partition").exists() {
            dir.parent().map(Path::to_path_buf)
        } else {
            Some(dir)
        }
    }

    /// The device's name in /dev (`sda1`, `loop3`, `dm-0`).
    pub fn name(&self, dev: (u32, u32)) -> Option<String> {
        let dir = self.device_dir(dev)?;
        Some(dir.file_name()?.to_string_lossy().into_owned())
    }

    pub fn facts(&self, dev: (u32, u32)) -> DeviceFacts {
        let Some(disk) = self.disk_dir(dev) else {
            return DeviceFacts::default();
        };
        let queue = disk.join("queue");
        DeviceFacts {
            model: model(&disk),
            rotational: read_u64(&queue.join("rotational")).map(|v| v != 0),
            scheduler: read_trimmed(&queue.join("scheduler"))
                .map(|s| selected_scheduler(&s))
                .unwrap_or_default(),
            queue_depth: read_u64(&disk.join("device/queue_depth"))
                .or_else(|| read_u64(&queue.join("nr_requests")))
                .and_then(|v| u32::try_from(v).ok()),
            logical_block_size: read_u32(&queue.join("logical_block_size")),
            physical_block_size: read_u32(&queue.join("physical_block_size")),
        }
    }

    /// The partitions of a whole disk: (name, major:minor).
    pub fn partitions(&self, dev: (u32, u32)) -> Vec<(String, (u32, u32))> {
        let Some(dir) = self.device_dir(dev) else {
            return Vec::new();
        };
        let Ok(entries) = fs::read_dir(&dir) else {
            return Vec::new();
        };
        let mut parts: Vec<_> = entries
            .flatten()
            .filter(|e| e.path().join("partition").exists())
            .filter_map(|e| {
                let d = parse_dev(&read_trimmed(&e.path().join("dev"))?)?;
                Some((e.file_name().to_string_lossy().into_owned(), d))
            })
            .collect();
        parts.sort();
        parts
    }

    /// Devices stacked on this one (dm, md, bcache): non-empty means it is in use.
    pub fn holders(&self, dev: (u32, u32)) -> Vec<String> {
        let Some(dir) = self.device_dir(dev) else {
            return Vec::new();
        };
        let mut names: Vec<String> = fs::read_dir(dir.join("holders"))
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    /// Loop devices and their backing files.
    pub fn loop_backings(&self) -> Vec<(String, PathBuf)> {
        let Ok(entries) = fs::read_dir(self.root.join("block")) else {
            return Vec::new();
        };
        let mut loops: Vec<_> = entries
            .flatten()
            .filter_map(|e| {
                let file = read_trimmed(&e.path().join("loop/backing_file"))?;
                Some((e.file_name().to_string_lossy().into_owned(), file.into()))
            })
            .collect();
        loops.sort();
        loops
    }

    pub fn block_sizes(&self, dev: (u32, u32)) -> Option<(u32, u32)> {
        let facts = self.facts(dev);
        Some((facts.logical_block_size?, facts.physical_block_size?))
    }
}

/// Logical and physical block size of the device `dev`, where sysfs has it.
pub fn block_sizes(dev: (u32, u32)) -> Option<(u32, u32)> {
    Sysfs::default().block_sizes(dev)
}

/// The host's identity for the results.
pub fn host_info() -> HostInfo {
    let uname = rustix::system::uname();
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cores = cpuinfo
        .lines()
        .filter(|l| l.starts_with("processor"))
        .count();
    let cores = if cores > 0 {
        cores
    } else {
        std::thread::available_parallelism().map_or(0, |n| n.get())
    };
    HostInfo {
        hostname: uname.nodename().to_string_lossy().into_owned(),
        kernel: uname.release().to_string_lossy().into_owned(),
        cpu_model: cpu_model(&cpuinfo),
        cores: u32::try_from(cores).unwrap_or(u32::MAX),
        memory_bytes: fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| mem_total(&m))
            .unwrap_or(0),
    }
}

/// x86's `model name`; ARM kernels give `Hardware` or `Processor` instead.
fn cpu_model(cpuinfo: &str) -> String {
    ["model name", "Hardware", "Processor", "cpu model", "cpu"]
        .iter()
        .find_map(|key| {
            cpuinfo.lines().find_map(|line| {
                let (k, v) = line.split_once(':')?;
                (k.trim() == *key && !v.trim().is_empty()).then(|| v.trim().to_string())
            })
        })
        .unwrap_or_default()
}

fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// `none [mq-deadline] kyber` → `mq-deadline`; a single scheduler is printed without brackets.
fn selected_scheduler(line: &str) -> String {
    match (line.find('['), line.find(']')) {
        (Some(a), Some(b)) if a < b => line[a + 1..b].to_string(),
        _ => line.trim().to_string(),
    }
}

/// The disk's model; virtual devices have none, so say what they are.
fn model(disk: &Path) -> String {
    let vendor = read_trimmed(&disk.join("device/vendor")).unwrap_or_default();
    let model = read_trimmed(&disk.join("device/model")).unwrap_or_default();
    if !model.is_empty() {
        let generic = vendor.is_empty() || vendor == "ATA" || model.starts_with(&vendor);
        return if generic {
            model
        } else {
            format!("{vendor} {model}")
        };
    }
    if let Some(backing) = read_trimmed(&disk.join("loop/backing_file")) {
        return format!("loop over {backing}");
    }
    if let Some(name) = read_trimmed(&disk.join("dm/name")) {
        return format!("device-mapper {name}");
    }
    if let Some(level) = read_trimmed(&disk.join("md/level")) {
        return format!("md {level}");
    }
    // virtio and friends name only their driver; zram, ram and null_blk only themselves.
    if let Ok(driver) = fs::read_link(disk.join("device/driver")) {
        return driver
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
    }
    let is_virtual = disk.components().any(|c| c.as_os_str() == "virtual");
    match disk.file_name() {
        Some(name) if is_virtual => name.to_string_lossy().into_owned(),
        _ => String::new(),
    }
}

pub(crate) fn parse_dev(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.trim().split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

pub(crate) fn read_trimmed(path: &Path) -> Option<String> {
    let s = fs::read_to_string(path).ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

fn read_u64(path: &Path) -> Option<u64> {
    read_trimmed(path)?.parse().ok()
}

fn read_u32(path: &Path) -> Option<u32> {
    read_trimmed(path)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A fake /sys holding disk `sdz` (8:0) with partition `sdz1` (8:1) and a holder on the partition.
    fn fake_sysfs() -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let disk = r.join("devices/pci0/host0/block/sdz");
        let part = disk.join("sdz1");
        for d in [
            disk.join("queue"),
            disk.join("device"),
            part.join("holders/dm-3"),
            r.join("dev/block"),
            r.join("block"),
        ] {
            fs::create_dir_all(d).unwrap();
        }
        let files = [
            (disk.join("queue/rotational"), "1\n"),
            (
                disk.join("queue/scheduler"),
                "none [mq-deadline] kyber bfq\n",
            ),
            (disk.join("queue/nr_requests"), "64\n"),
            (disk.join("device/queue_depth"), "32\n"),
            (disk.join("queue/logical_block_size"), "512\n"),
            (disk.join("queue/physical_block_size"), "4096\n"),
            (disk.join("device/vendor"), "ATA     \n"),
            (disk.join("device/model"), "WDC WD40EFRX-68N\n"),
            (disk.join("dev"), "8:0\n"),
            (part.join("partition"), "1\n"),
            (part.join("dev"), "8:1\n"),
        ];
        for (p, text) in files {
            fs::write(p, text).unwrap();
        }
        symlink(&disk, r.join("dev/block/8:0")).unwrap();
        symlink(&part, r.join("dev/block/8:1")).unwrap();
        symlink(&disk, r.join("block/sdz")).unwrap();
        root
    }

    #[test]
    fn a_partition_reports_its_disks_queue() {
        let root = fake_sysfs();
        let sys = Sysfs::at(root.path());
        let want = DeviceFacts {
            model: "WDC WD40EFRX-68N".into(),
            rotational: Some(true),
            scheduler: "mq-deadline".into(),
            queue_depth: Some(32),
            logical_block_size: Some(512),
            physical_block_size: Some(4096),
        };
        assert_eq!(sys.facts((8, 0)), want);
        assert_eq!(sys.facts((8, 1)), want);
        assert_eq!(sys.name((8, 1)).as_deref(), Some("sdz1"));
    }

    #[test]
    fn partitions_and_holders_are_listed() {
        let root = fake_sysfs();
        let sys = Sysfs::at(root.path());
        assert_eq!(sys.partitions((8, 0)), vec![("sdz1".to_string(), (8, 1))]);
        assert!(sys.holders((8, 0)).is_empty());
        assert_eq!(sys.holders((8, 1)), vec!["dm-3".to_string()]);
    }

    #[test]
    fn devices_without_a_model_are_named_by_driver_or_kind() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let vda = r.join("devices/pci0/virtio1/block/vda");
        let zram = r.join("devices/virtual/block/zram0");
        fs::create_dir_all(vda.join("device")).unwrap();
        fs::create_dir_all(r.join("bus/virtio/drivers/virtio_blk")).unwrap();
        symlink(
            r.join("bus/virtio/drivers/virtio_blk"),
            vda.join("device/driver"),
        )
        .unwrap();
        fs::create_dir_all(&zram).unwrap();
        fs::create_dir_all(r.join("dev/block")).unwrap();
        symlink(&vda, r.join("dev/block/254:0")).unwrap();
        symlink(&zram, r.join("dev/block/253:0")).unwrap();
        let sys = Sysfs::at(r);
        assert_eq!(sys.facts((254, 0)).model, "virtio_blk");
        assert_eq!(sys.facts((253, 0)).model, "zram0");
    }

    #[test]
    fn absent_devices_give_empty_facts() {
        let root = fake_sysfs();
        let sys = Sysfs::at(root.path());
        assert_eq!(sys.facts((0, 23)), DeviceFacts::default());
        assert!(sys.partitions((0, 23)).is_empty());
        assert_eq!(sys.block_sizes((0, 23)), None);
    }

    #[test]
    fn scheduler_cpu_and_memory_parsing() {
        assert_eq!(selected_scheduler("[none] mq-deadline"), "none");
        assert_eq!(selected_scheduler("none"), "none");
        let cpuinfo = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R)\n";
        assert_eq!(cpu_model(cpuinfo), "Intel(R) Xeon(R)");
        assert_eq!(cpu_model("processor : 0\n"), "");
        assert_eq!(
            mem_total("MemTotal:       24684096 kB\nMemFree: 1 kB\n"),
            Some(24684096 * 1024)
        );
    }

    #[test]
    fn host_info_reads_this_machine() {
        let host = host_info();
        assert!(!host.kernel.is_empty());
        assert!(host.cores >= 1);
        assert!(host.memory_bytes > 0);
    }
}
