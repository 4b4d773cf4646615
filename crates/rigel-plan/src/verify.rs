//! `verify` in the plan: which classes stamp and check their blocks, the block size, and the
//! memory the generation map takes (2 bytes per block of the volume), each checked against the
//! spec text.

use super::limits::{MAX_VERIFY_MAP_BYTES, MAX_VERIFY_UNIT, MIN_VERIFY_UNIT, SECTOR};
use super::model::{DataPoint, VerifyPlan};
use rigel_expr::Size;
use rigel_spec::{Spec, SpecError, Verify};

/// The default block (`run.verify_unit`).
pub const DEFAULT_UNIT: u64 = 4096;
/// Bytes of the generation map per block.
pub const MAP_BYTES_PER_BLOCK: u64 = 2;

/// The plan's verification, or `None` when no class verifies.
pub(super) fn compile_verify(
    spec: &Spec,
    points: &[DataPoint],
    errors: &mut Vec<SpecError>,
) -> Option<VerifyPlan> {
    let run = spec.run.verify.as_ref();
    let mut classes = Vec::new();
    let mut after = false;
    for c in &spec.classes {
        let Some(v) = c.verify.as_ref().or(run) else {
            continue;
        };
        if v.value != Verify::Off {
            classes.push((c.name.value.clone(), v.loc.clone()));
            after |= v.value == Verify::After;
        }
    }
    let journal = spec.run.journal.as_ref().filter(|j| j.value);
    if classes.is_empty() {
        if let Some(j) = journal {
            errors.push(
                SpecError::at(
                    &j.loc,
                    "`journal` keeps what `verify` wrote, but no class verifies",
                    "journal here",
                )
                .hint("set [run] verify = true (or on a class) beside journal = true"),
            );
        }
        return None;
    }
    let unit = spec
        .run
        .verify_unit
        .as_ref()
        .map_or(DEFAULT_UNIT, |u| u.value.0);
    if let Some(u) = &spec.run.verify_unit
        && (u.value.0 % SECTOR != 0 || !(MIN_VERIFY_UNIT..=MAX_VERIFY_UNIT).contains(&u.value.0))
    {
        errors.push(
            SpecError::at(
                &u.loc,
                format!(
                    "`verify_unit` of {} is not a multiple of 512 bytes from {} to {}",
                    u.value,
                    Size(MIN_VERIFY_UNIT),
                    Size(MAX_VERIFY_UNIT)
                ),
                "verify unit",
            )
            .hint("4KiB (the default) or 512"),
        );
        return None;
    }
    // Every I/O of a verified class, at every point, is a whole number of blocks.
    for (name, loc) in &classes {
        let bad = points.iter().flat_map(|p| p.active()).find_map(|c| {
            let bad = c
                .pattern
                .io_sizes(c.size)
                .into_iter()
                .find(|s| s % unit != 0)?;
            (&c.class == name).then_some(bad)
        });
        if let Some(c) = bad {
            errors.push(
                SpecError::at(
                    loc,
                    format!(
                        "class `{name}` verifies in blocks of {} but does {} I/Os",
                        Size(unit),
                        Size(c)
                    ),
                    "verified here",
                )
                .hint("set [run] verify_unit to a size dividing every I/O size of the class (512 divides all)"),
            );
        }
    }
    let map_bytes = spec
        .targets
        .iter()
        .map(|t| t.size.as_ref().map(|s| s.value.0 / unit))
        .sum::<Option<u64>>()
        .map(|blocks| blocks * MAP_BYTES_PER_BLOCK);
    if let Some(bytes) = map_bytes
        && bytes > MAX_VERIFY_MAP_BYTES
    {
        errors.push(
            SpecError::at(
                &classes[0].1,
                format!(
                    "verifying this volume in blocks of {} takes a generation map of {}, more than {}",
                    Size(unit),
                    Size(bytes),
                    Size(MAX_VERIFY_MAP_BYTES)
                ),
                "verified here",
            )
            .hint("a larger verify_unit, or smaller targets"),
        );
    }
    // Every write of every point carries RWF_DSYNC: the storage promised each acknowledged
    // write durable (`rigel verify` then calls one lost after a power cut a broken promise).
    let durable = points
        .iter()
        .flat_map(|p| p.active())
        .filter(|c| c.mix.writes())
        .all(|c| c.pattern.dsync);
    Some(VerifyPlan {
        unit,
        classes: classes.into_iter().map(|(n, _)| n).collect(),
        after,
        map_bytes,
        journal: journal.is_some(),
        durable,
    })
}

impl VerifyPlan {
    /// `small, large in 4KiB blocks, re-read after each point; generation map 512KiB`.
    pub fn describe(&self) -> String {
        let after = if self.after {
            ", every written block re-read at each point's end"
        } else {
            ""
        };
        let map = match self.map_bytes {
            Some(b) => format!("generation map {}", Size(b)),
            None => format!(
                "generation map {} per GiB of the volume (sized when the targets open)",
                Size((1 << 30) / self.unit * MAP_BYTES_PER_BLOCK)
            ),
        };
        let journal = if self.journal {
            " (journaled in the run folder: rigel verify DIR)"
        } else {
            ""
        };
        format!(
            "{} stamped and checked in {} blocks{after}; {map}{journal}",
            self.classes.join(", "),
            Size(self.unit)
        )
    }
}
