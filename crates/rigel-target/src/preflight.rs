//! What `rigel run` would refuse about the targets as they are now, told before any I/O and at
//! the spec's text: a declared size larger than the device (or foreign file) at the path, a write
//! the guard refuses. `rigel plan` tells both; `rigel run` refuses the sizes before its folder
//! exists, and opening the volume checks everything again (the targets may change in between).

use super::create::marked_by_rigel;
use super::guard::{Consent, check_writable};
use super::kind::TargetKind;
use super::probe::{OpenMode, holding_device, open_target, probe};
use super::sysfs::Sysfs;
use rigel_expr::Size;
use rigel_plan::RunPlan;
use rigel_spec::{Spec, SpecError};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// What the targets as they are now would meet, at the spec's text of each target.
#[derive(Debug, Default)]
pub struct Preflight {
    /// A declared size larger than the device or foreign file there: the spec's mistake, at its
    /// `size`.
    pub sizes: Vec<SpecError>,
    /// The write guard's refusals (no consent, in use, a signature without `--force`), at the
    /// target's `path`: what opening the volume would refuse.
    pub refusals: Vec<SpecError>,
}

/// How far [`preflight_refusals`] looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// Opens every target that exists (a regular file or a block device) and asks the write
    /// guard too: `rigel plan`.
    Open,
    /// Opens nothing (an open may stall before the run's signal handling is in place): only the
    /// sizes of block devices, from sysfs; the run's own open checks the rest. `rigel run`.
    Stat,
}

/// [`Preflight`] of every target that exists now as a regular file or a block device; the others
/// (absent: rigel creates them; of another type, or unopenable) are left to the run to tell.
pub fn preflight_refusals(
    spec: &Spec,
    plan: &RunPlan,
    consent: Consent,
    depth: Depth,
) -> Preflight {
    let mut out = Preflight::default();
    for (i, (planned, written)) in plan.targets.iter().zip(&spec.targets).enumerate() {
        let path = Path::new(&planned.path);
        let Ok(meta) = std::fs::metadata(path) else {
            continue;
        };
        let kind = meta.file_type();
        if !(kind.is_file() || kind.is_block_device()) {
            continue;
        }
        let found = match depth {
            Depth::Open => open_target(path, OpenMode::default())
                .and_then(|f| {
                    let p = probe(path, &f)?;
                    let ours = p.kind == TargetKind::File && marked_by_rigel(&f, path)?;
                    Ok((p.kind, p.size, Some((p, ours))))
                })
                .ok(),
            Depth::Stat if kind.is_block_device() => {
                let dev = holding_device(true, meta.rdev(), meta.dev());
                Sysfs::default()
                    .device_dir(dev)
                    .and_then(|d| std::fs::read_to_string(d.join("size")).ok())
                    .and_then(|t| t.trim().parse::<u64>().ok())
                    .map(|sectors| (TargetKind::Block, sectors * 512, None))
            }
            Depth::Stat => None,
        };
        let Some((found_kind, found_size, opened)) = found else {
            continue;
        };
        let ours = opened.as_ref().is_some_and(|(_, ours)| *ours);
        if let (Some(declared), Some(size)) = (planned.size, &written.size)
            && declared > found_size
            && !ours
        {
            let (what, hint) = match found_kind {
                TargetKind::Block | TargetKind::Passthru => (
                    "the device",
                    "a run uses a device up to its target's declared size: remove the size to use \
                     the whole device, or lower it",
                ),
                TargetKind::File => (
                    "the file (not one rigel created)",
                    "rigel extends only files it created: lower the size, or use another path",
                ),
            };
            out.sizes.push(
                SpecError::at(
                    &size.loc,
                    format!(
                        "target {}: {what} `{}` holds {}, less than the declared {}",
                        written.name_or(i),
                        planned.path,
                        Size(found_size),
                        Size(declared)
                    ),
                    "declared here",
                )
                .hint(format!(
                    "{hint} (--set target.{i}.size={})",
                    Size(found_size)
                )),
            );
            continue;
        }
        let Some((probed, ours)) = opened else {
            continue;
        };
        if let Err(refusal) = check_writable(planned, &probed, ours, consent) {
            out.refusals.push(SpecError::at(
                &written.path.loc,
                format!("target {}: {refusal}", written.name_or(i)),
                "written by this run",
            ));
        }
    }
    out
}
