//! Whether the devices under a polled run's targets have poll queues (`queue/io_poll` = 1): a
//! polled ring's I/O to a device without them fails (EOPNOTSUPP), so `check`, `plan` and `run`
//! refuse it at the spec's `polled`, with the fix.

use super::probe::holding_device;
use super::sysfs::{Sysfs, read_trimmed};
use rigel_plan::RunPlan;
use rigel_spec::{Spec, SpecError};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// Each target of a polled run whose device cannot be polled, at `polled`.
pub fn polled_refusals(spec: &Spec, plan: &RunPlan) -> Vec<SpecError> {
    let sysfs = Sysfs::default();
    refusals_with(spec, plan, |path| poll_queues(&sysfs, path))
}

/// What a target's device says of polling: `Ok(())` when it polls, else why not.
type Polls = Result<(), String>;

/// `queue/io_poll` of the disk under `path` (a block device, an NVMe namespace's generic
/// character device's namespace, or a file's filesystem's device). A target not there yet
/// (rigel will create it) is judged by its folder's device.
fn poll_queues(sysfs: &Sysfs, path: &Path) -> Polls {
    let meta = std::fs::metadata(path)
        .or_else(|_| std::fs::metadata(path.parent().unwrap_or(Path::new("."))))
        .map_err(|e| format!("cannot be read ({e})"))?;
    // A passthrough target's commands go to its namespace's queues: the block device's.
    let dev = match super::passthru::namespace_of(&meta) {
        Some(ns) => ns.dev,
        None => holding_device(meta.file_type().is_block_device(), meta.rdev(), meta.dev()),
    };
    let Some(disk) = sysfs.disk_dir(dev) else {
        return Err(
            "has no block device below it (its filesystem is in memory or on the \
                    network), so nothing to poll"
                .into(),
        );
    };
    let name = disk
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    match read_trimmed(&disk.join("queue/io_poll")).as_deref() {
        Some("1") => Ok(()),
        value => Err(format!(
            "is on {name}, which has no poll queues (/sys/block/{name}/queue/io_poll = {})",
            value.unwrap_or("absent")
        )),
    }
}

fn refusals_with(spec: &Spec, plan: &RunPlan, polls: impl Fn(&Path) -> Polls) -> Vec<SpecError> {
    let Some(p) = spec.run.polled.as_ref().filter(|_| plan.run.polled) else {
        return Vec::new();
    };
    plan.targets
        .iter()
        .filter_map(|t| {
            let why = polls(Path::new(&t.path)).err()?;
            Some(
                SpecError::at(
                    &p.loc,
                    format!(
                        "polled = true, but {} {why}: its polled I/O would fail",
                        t.path
                    ),
                    "polled completions",
                )
                .hint(
                    "give the NVMe driver poll queues: boot with nvme.poll_queues=N (or load the \
                     nvme module with poll_queues=N), then /sys/block/DEV/queue/io_poll reads 1; \
                     or set polled = false",
                ),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(polled: bool) -> (Spec, RunPlan) {
        crate::open::checked_spec(&format!(
            "[[target]]\npath = \"/dev/fast\"\ndestructive = true\n[[target]]\npath = \
             \"/dev/slow\"\ndestructive = true\n[run]\npolled = {polled}\n[class.small]\nsize = \
             \"4KiB\"\nmix = \"read\"\n[matrix]\nshape = \"point\"\nsmall = \"1\"\n"
        ))
    }

    fn polls(path: &Path) -> Polls {
        if path == Path::new("/dev/fast") {
            Ok(())
        } else {
            Err("is on slow, which has no poll queues (/sys/block/slow/queue/io_poll = 0)".into())
        }
    }

    #[test]
    fn a_target_without_poll_queues_is_refused_at_polled_with_the_fix() {
        let (spec, plan) = checked(true);
        let errors = refusals_with(&spec, &plan, polls);
        assert_eq!(errors.len(), 1, "{errors:?}");
        let e = &errors[0];
        assert!(
            e.message
                .contains("/dev/slow is on slow, which has no poll queues"),
            "{}",
            e.message
        );
        assert!(
            e.hint
                .as_deref()
                .is_some_and(|h| h.contains("nvme.poll_queues=N"))
        );
        let polled_at = "[run]\npolled = ".len();
        assert!(
            e.loc.as_ref().is_some_and(|l| l.span.start > polled_at),
            "{e:?}"
        );
    }

    #[test]
    fn an_unpolled_run_asks_nothing_of_the_devices() {
        let (spec, plan) = checked(false);
        assert!(refusals_with(&spec, &plan, polls).is_empty());
    }
}
