//! NVMe passthrough targets: a namespace's generic character device (`/dev/ngXnY`, sysfs class
//! `nvme-generic`), which the executor drives with NVMe commands through io_uring. Its data is
//! the namespace's, the same bytes its block device (`/dev/nvmeXnY`) holds: so the block
//! device's queue gives the size and block sizes (the kernel filled them from the namespace's
//! identify data, which the executor reads again for its commands), and the write guard judges
//! the block device (mounts, holders, swap, signatures) and holds it exclusively while the run
//! writes.

use super::sysfs::{Sysfs, parse_dev, read_trimmed};
use rigel_plan::{Engine, RunPlan};
use rigel_spec::{Spec, SpecError};
use std::fs::Metadata;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// The namespace block device behind a passthrough target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Namespace {
    /// `/dev/nvmeXnY`.
    pub block: PathBuf,
    /// Its device numbers.
    pub dev: (u32, u32),
}

impl Sysfs {
    /// The namespace behind the character device `rdev` when it is an NVMe generic one
    /// (`ngXnY` → `nvmeXnY`, as the driver names both from the same controller and namespace
    /// instances), or None.
    pub fn nvme_generic(&self, rdev: (u32, u32)) -> Option<Namespace> {
        let link = self
            .root()
            .join("dev/char")
            .join(format!("{}:{}", rdev.0, rdev.1));
        let class = std::fs::read_link(link.join("subsystem")).ok()?;
        if class.file_name()? != "nvme-generic" {
            return None;
        }
        let name = std::fs::canonicalize(&link).ok()?;
        let name = name.file_name()?.to_str()?;
        let block = format!("nvme{}", name.strip_prefix("ng")?);
        let dev = parse_dev(&read_trimmed(
            &self.root().join("block").join(&block).join("dev"),
        )?)?;
        Some(Namespace {
            block: Path::new("/dev").join(block),
            dev,
        })
    }
}

/// Whether the device `rdev` (a block device when `block`, else a character one) is an NVMe
/// namespace (`nvmeXnY`, a partition of one, or `ngXnY`): only then may it be asked NVMe's
/// Identify, an ioctl number other drivers do not reserve.
pub fn is_nvme_namespace(block: bool, rdev: (u32, u32)) -> bool {
    let sysfs = Sysfs::default();
    if block {
        sysfs.name(rdev).is_some_and(|n| n.starts_with("nvme"))
    } else {
        sysfs.nvme_generic(rdev).is_some()
    }
}

/// The largest transfer one command of the namespace `dev` takes (`queue/max_hw_sectors_kb`).
pub(crate) fn max_transfer(dev: (u32, u32)) -> Option<u64> {
    let sysfs = Sysfs::default();
    let kb: u64 = read_trimmed(&sysfs.disk_dir(dev)?.join("queue/max_hw_sectors_kb"))?
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// The namespace behind `meta` (a target's metadata) when it is a passthrough target.
pub fn namespace_of(meta: &Metadata) -> Option<Namespace> {
    if !meta.file_type().is_char_device() {
        return None;
    }
    let rdev = meta.rdev();
    Sysfs::default().nvme_generic((rustix::fs::major(rdev), rustix::fs::minor(rdev)))
}

/// The namespace behind the target at `path`, when it is a passthrough one.
pub fn namespace_at(path: &Path) -> Option<Namespace> {
    namespace_of(&std::fs::metadata(path).ok()?)
}

/// Each class of `plan` that would reach a passthrough target through an engine without NVMe
/// commands (libaio, psync: a character device has no read or write of its own, every I/O would
/// fail), at the class's `engine` (or `run.engine`'s; `--engine`'s choice as the spec's whole).
pub fn passthru_refusals(spec: &Spec, plan: &RunPlan) -> Vec<SpecError> {
    refusals_with(spec, plan, |path| namespace_at(path).is_some())
}

/// [`passthru_refusals`] with the passthrough test `is_passthru` (a test's).
fn refusals_with(
    spec: &Spec,
    plan: &RunPlan,
    is_passthru: impl Fn(&Path) -> bool,
) -> Vec<SpecError> {
    let Some(target) = plan
        .targets
        .iter()
        .find(|t| is_passthru(Path::new(&t.path)))
    else {
        return Vec::new();
    };
    plan.classes
        .iter()
        .filter(|c| matches!(c.engine, Engine::Libaio | Engine::Psync))
        .map(|c| {
            let message = format!(
                "class `{}` runs on {}, but {} is an NVMe namespace's generic device, which only \
                 io_uring's passthrough commands reach",
                c.name,
                c.engine.name(),
                target.path
            );
            let hint = "use engine = \"io_uring\" (or leave it out), or run on the namespace's \
                        block device (/dev/nvmeXnY)";
            let at = spec
                .classes
                .iter()
                .find(|k| k.name.value == c.name)
                .and_then(|k| k.engine.as_ref())
                .or(spec.run.engine.as_ref());
            match at {
                Some(e) => SpecError::at(&e.loc, message, "engine"),
                None => SpecError::whole(message),
            }
            .hint(hint)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_generic_nvme_device_names_its_namespace_block_device() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let ng = r.join("devices/pci0000:00/nvme/nvme0/ng0n1");
        fs::create_dir_all(&ng).unwrap();
        fs::create_dir_all(r.join("class/nvme-generic")).unwrap();
        fs::create_dir_all(r.join("class/misc")).unwrap();
        symlink(r.join("class/nvme-generic"), ng.join("subsystem")).unwrap();
        fs::create_dir_all(r.join("dev/char")).unwrap();
        symlink(&ng, r.join("dev/char/245:0")).unwrap();
        fs::create_dir_all(r.join("block/nvme0n1")).unwrap();
        fs::write(r.join("block/nvme0n1/dev"), "259:0\n").unwrap();
        let sysfs = Sysfs::at(r);
        assert_eq!(
            sysfs.nvme_generic((245, 0)),
            Some(Namespace {
                block: "/dev/nvme0n1".into(),
                dev: (259, 0)
            })
        );
        // Another class's character device is none, even named like one (and with a block
        // device of the matching name).
        fs::create_dir_all(r.join("block/nvme1n1")).unwrap();
        fs::write(r.join("block/nvme1n1/dev"), "259:1\n").unwrap();
        let tty = r.join("devices/virtual/misc/ng1n1");
        fs::create_dir_all(&tty).unwrap();
        symlink(r.join("class/misc"), tty.join("subsystem")).unwrap();
        symlink(&tty, r.join("dev/char/4:0")).unwrap();
        assert_eq!(sysfs.nvme_generic((4, 0)), None);
        assert_eq!(sysfs.nvme_generic((1, 3)), None);
        assert_eq!(namespace_at(Path::new("/dev/null")), None);
    }

    fn checked(engine: &str) -> (Spec, RunPlan) {
        crate::open::checked_spec(&format!(
            "[[target]]\npath = \"/dev/ng0n1\"\ndestructive = true\n[class.small]\nsize = \
             \"4KiB\"\nmix = \"read\"\nengine = \"{engine}\"\n[matrix]\nshape = \"point\"\n\
             small = \"1\"\n"
        ))
    }

    #[test]
    fn a_passthrough_target_is_refused_to_engines_without_nvme_commands_at_engine() {
        let ng = |p: &Path| p == Path::new("/dev/ng0n1");
        for engine in ["psync", "libaio"] {
            let (spec, plan) = checked(engine);
            let errors = refusals_with(&spec, &plan, ng);
            assert_eq!(errors.len(), 1, "{errors:?}");
            let e = &errors[0];
            assert!(
                e.message.contains(&format!(
                    "class `small` runs on {engine}, but /dev/ng0n1 is an NVMe namespace's"
                )),
                "{}",
                e.message
            );
            assert!(e.hint.as_deref().is_some_and(|h| h.contains("io_uring")));
            assert!(e.loc.is_some(), "{e:?}");
            // The same class on a block device asks nothing.
            assert!(refusals_with(&spec, &plan, |_| false).is_empty());
        }
        let (spec, plan) = checked("io_uring");
        assert!(refusals_with(&spec, &plan, ng).is_empty());
    }
}
