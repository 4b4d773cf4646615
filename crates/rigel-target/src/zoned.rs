//! Zoned block devices (NVMe ZNS, host-managed SMR): what sysfs says of their zones, and the
//! writes `check` and `plan` refuse on a host-managed one before any I/O. Such a device accepts a
//! write only at its zone's write pointer; anything else fails (NVMe status 0xbc, Zone Invalid
//! Write) and would cost a failed point after the run has started, so it is told where written.

use super::sysfs::{Sysfs, read_trimmed};
use rigel_expr::Access;
use rigel_plan::RunPlan;
use rigel_spec::{Spec, SpecError};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// `queue/zoned`: how the device's zones are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneModel {
    /// Writes anywhere are accepted (the device rewrites them into its zones itself).
    HostAware,
    /// Writes only at each zone's write pointer.
    HostManaged,
}

/// A zoned device's geometry and limits, as its queue reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zones {
    pub model: ZoneModel,
    /// Bytes per zone (`chunk_sectors` × 512).
    pub zone_size: u64,
    pub count: Option<u32>,
    /// Zones that may be open at once (None: the device sets no limit, sysfs's 0).
    pub max_open: Option<u32>,
    /// Zones that may be open or closed-but-not-full at once (None: no limit).
    pub max_active: Option<u32>,
}

impl Sysfs {
    /// The zones of the disk holding `dev`; None for a device that is not zoned (`none`, or no
    /// such file on an older kernel).
    pub fn zones(&self, dev: (u32, u32)) -> Option<Zones> {
        let queue = self.disk_dir(dev)?.join("queue");
        let model = match read_trimmed(&queue.join("zoned"))?.as_str() {
            "host-aware" => ZoneModel::HostAware,
            "host-managed" => ZoneModel::HostManaged,
            _ => return None,
        };
        let num = |name: &str| -> Option<u64> { read_trimmed(&queue.join(name))?.parse().ok() };
        let limit = |name: &str| {
            num(name)
                .filter(|&n| n > 0)
                .and_then(|n| u32::try_from(n).ok())
        };
        Some(Zones {
            model,
            zone_size: num("chunk_sectors").unwrap_or(0) * 512,
            count: num("nr_zones").and_then(|n| u32::try_from(n).ok()),
            max_open: limit("max_open_zones"),
            max_active: limit("max_active_zones"),
        })
    }
}

impl Zones {
    /// `host-managed, 16 zones of 64 MiB, at most 16 open and 16 active`.
    pub fn describe(&self) -> String {
        let model = match self.model {
            ZoneModel::HostAware => "host-aware",
            ZoneModel::HostManaged => "host-managed",
        };
        let mut s = format!("{model}, ");
        if let Some(n) = self.count {
            s.push_str(&format!("{n} zones of "));
        } else {
            s.push_str("zones of ");
        }
        s.push_str(&rigel_expr::units::size(self.zone_size as f64));
        let limit = |n: Option<u32>| n.map_or("any number".to_string(), |n| n.to_string());
        s.push_str(&format!(
            ", at most {} open and {} active",
            limit(self.max_open),
            limit(self.max_active)
        ));
        s
    }
}

/// The zones of the block device at `path` (None: not a block device, or not zoned).
fn zones_of(sysfs: &Sysfs, path: &Path) -> Option<Zones> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.file_type().is_block_device() {
        return None;
    }
    sysfs.zones(super::probe::holding_device(true, meta.rdev(), meta.dev()))
}

/// The writes of `plan` that a host-managed zoned target would fail, each at the class's `access`
/// in the spec: every writing class whose volume holds such a device. Random writes miss the
/// write pointers by construction, and sequential streams start spread over the volume, not at
/// them; reads may go anywhere.
pub fn zoned_refusals(spec: &Spec, plan: &RunPlan) -> Vec<SpecError> {
    let sysfs = Sysfs::default();
    refusals_with(spec, plan, |path| zones_of(&sysfs, path))
}

/// [`zoned_refusals`] with the zones of each target path from `zones_of` (a test's).
fn refusals_with(
    spec: &Spec,
    plan: &RunPlan,
    zones_of: impl Fn(&Path) -> Option<Zones>,
) -> Vec<SpecError> {
    let zoned: Vec<(String, String, Zones)> = spec
        .targets
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let z = zones_of(Path::new(&t.path.value))?;
            (z.model == ZoneModel::HostManaged).then(|| (t.name_or(i), t.path.value.clone(), z))
        })
        .collect();
    if zoned.is_empty() {
        return Vec::new();
    }
    if plan.run.zones {
        return open_zone_refusals(spec, plan, &zoned);
    }
    let mut out = Vec::new();
    for c in &spec.classes {
        // The access of the class's writing points (a sweep may change access or mix per point).
        let writes: Vec<Access> = plan
            .points
            .iter()
            .flat_map(|p| p.active())
            .filter(|l| l.class == c.name.value && l.mix.writes())
            .map(|l| l.access)
            .collect();
        let Some(&access) = writes
            .iter()
            .find(|a| **a == Access::Random)
            .or(writes.first())
        else {
            continue;
        };
        let on_volume = |name: &String| {
            c.targets
                .as_ref()
                .is_none_or(|ts| ts.iter().any(|t| &t.value == name))
        };
        let Some((_, path, zones)) = zoned.iter().find(|(name, _, _)| on_volume(name)) else {
            continue;
        };
        let (how, label) = match access {
            Access::Random => ("at random offsets", "random writes"),
            Access::Sequential => (
                "in streams that start spread over the volume",
                "sequential streams",
            ),
        };
        out.push(
            SpecError::at(
                &c.access.loc,
                format!(
                    "class `{}` writes {how} to {path}, a zoned device ({}) that accepts a write \
                     only at its zone's write pointer: every other write fails with an I/O error \
                     (Zone Invalid Write)",
                    c.name.value,
                    zones.describe()
                ),
                label,
            )
            .hint(
                "set zones = \"sequential\" in [run] (each writing I/O then writes its own zone \
                 from its write pointer); reads may go anywhere on a zoned device \
                 (mix = \"read\"); or measure writes on a conventional namespace or device",
            ),
        );
    }
    out
}

/// `zones = "sequential"`: each writing I/O in flight holds a zone open, so a point whose
/// writing classes keep more in flight than a zoned target may hold open is refused at `zones`.
fn open_zone_refusals(
    spec: &Spec,
    plan: &RunPlan,
    zoned: &[(String, String, Zones)],
) -> Vec<SpecError> {
    let Some(at) = &spec.run.zones else {
        return Vec::new();
    };
    let held = plan
        .points
        .iter()
        .map(|p| {
            p.active()
                .filter(|l| l.mix.writes())
                .map(|l| l.outstanding)
                .sum::<u32>()
        })
        .max()
        .unwrap_or(0);
    zoned
        .iter()
        .filter_map(|(_, path, z)| {
            let limit = z.max_open.into_iter().chain(z.max_active).min()?;
            (held > limit).then(|| {
                SpecError::at(
                    &at.loc,
                    format!(
                        "zones = \"sequential\" holds a zone open per writing I/O in flight, up to \
                         {held} in a point, but {path} ({}) holds at most {limit}",
                        z.describe()
                    ),
                    "zoned writes",
                )
                .hint(format!(
                    "keep the writing classes' load at {limit} or less in every point"
                ))
            })
        })
        .collect()
}

#[cfg(test)]
#[path = "zoned_tests.rs"]
mod tests;
