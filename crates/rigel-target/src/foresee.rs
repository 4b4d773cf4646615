//! What can be known about a plan's targets without any I/O, for `rigel check` and `rigel plan`
//! (and told again when a run opens them): a file target's holes, and a target with no block
//! device below it, whose figures no device counter can confirm.

use super::holes::{hole_warning, holes};
use super::probe::holding_device;
use super::sysfs::Sysfs;
use rigel_plan::RunPlan;
use std::fs::File;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// One sentence per finding, naming the target.
pub fn foresee(plan: &RunPlan) -> Vec<String> {
    let sysfs = Sysfs::default();
    let mut out = Vec::new();
    for t in &plan.targets {
        let path = Path::new(&t.path);
        // A target rigel will create is not there yet; one that cannot be opened is the run's
        // error to tell, with its context.
        let Ok(file) = File::open(path) else { continue };
        let Ok(meta) = file.metadata() else { continue };
        if !meta.file_type().is_file() && !meta.file_type().is_block_device() {
            continue;
        }
        if meta.file_type().is_file() {
            let size = t.size.unwrap_or(meta.len()).min(meta.len());
            if let Ok(h) = holes(&file, size)
                && h.bytes > 0
            {
                out.push(hole_warning(path, size, &h));
            }
            let dev = holding_device(false, meta.rdev(), meta.dev());
            if sysfs
                .device_dir(dev)
                .is_none_or(|d| !d.join("stat").is_file())
            {
                out.push(format!(
                    "{}: no block device below it (its filesystem is in memory, on the network \
                     or in user space): no device counter can confirm what rigel measures there, \
                     and a page cache or a server may serve it",
                    path.display()
                ));
            }
        }
    }
    out
}

/// Buffered I/O on a test file rigel has just filled: the fill wrote with O_DIRECT, so the page
/// cache holds none of it and point 1 reads from the device while later points find the cache
/// warm. Told when no warm-up covers reading the files once.
pub fn cold_buffered(plan: &RunPlan, volume: &super::OpenVolume) -> Vec<String> {
    use super::create::Preparation;
    if plan.run.direct {
        return Vec::new();
    }
    let filled: Vec<&super::OpenTarget> = volume
        .targets
        .iter()
        .filter(|t| {
            matches!(
                t.preparation,
                Some(Preparation::Created | Preparation::Completed)
            )
        })
        .collect();
    if filled.is_empty() || plan.run.warmup_ms > 0 {
        return Vec::new();
    }
    let names: Vec<String> = filled
        .iter()
        .map(|t| t.path.display().to_string())
        .collect();
    let bytes: u64 = filled.iter().map(|t| t.usable).sum();
    vec![format!(
        "{} just filled with O_DIRECT: the page cache holds none of its {}, so buffered point 1 \
         starts cold (its reads reach the device) while later points find the cache warm; set \
         [run] warmup to at least the time it takes to read the file(s) once",
        names.join(", "),
        rigel_expr::units::size(bytes as f64)
    )]
}
