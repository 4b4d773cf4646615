//! What the workers are given for a point: each class's slots, skew and mix checked against the
//! volume, a replayed class's trace, and the run's generation map when it verifies.

use crate::policy::mix::MixSetup;
use crate::policy::offsets::SlotSpace;
use crate::policy::setup::ClassSetup;
use crate::policy::skew::Skew;
use crate::verify::map::GenMap;
use crate::{ExecError, ExecTarget, PointControl};
use rigel_plan::{DataPoint, RunSettings};
use rigel_target::Volume;
use std::sync::Arc;

/// The run's generation map when the plan verifies; every verified class's I/O size must be a
/// whole number of blocks (the plan checks it too).
pub(super) fn verify_map(
    targets: &[ExecTarget],
    volume: &Volume,
    point: &DataPoint,
    run: &RunSettings,
    ctl: &PointControl,
) -> Result<Option<Arc<GenMap>>, ExecError> {
    let Some(v) = &run.verify else {
        return Ok(None);
    };
    if let Some(c) = point
        .active()
        .find(|c| v.classes.contains(&c.class) && c.size % v.unit != 0)
    {
        return Err(ExecError::InvalidPoint(format!(
            "class {} verifies in blocks of {} bytes but does {}-byte I/Os",
            c.class, v.unit, c.size
        )));
    }
    ctl.reuse
        .gen_map(volume, v.unit, run.seed, || {
            crate::verify::after_trim(targets)
        })
        .map(Some)
        .map_err(ExecError::InvalidPoint)
}

/// Each class's slots, checked: every active class must fit the volume (the limits on sizes and
/// loads are checked before, by `limits::point`).
pub(super) fn class_setups(
    targets: &[ExecTarget],
    volume: &Volume,
    point: &DataPoint,
    seed: u64,
) -> Result<Vec<ClassSetup>, ExecError> {
    if targets.len() != volume.targets() {
        return Err(ExecError::InvalidPoint(format!(
            "{} targets open but the volume has {}",
            targets.len(),
            volume.targets()
        )));
    }
    point
        .classes
        .iter()
        .map(|c| {
            let own: Vec<usize> = c.pattern.targets.iter().map(|&t| t as usize).collect();
            let mix = match &c.pattern.sizes {
                Some(m) if c.outstanding > 0 => Some(
                    MixSetup::new(volume, m, &own, c.pattern.region).ok_or_else(|| {
                        ExecError::InvalidPoint(format!(
                            "class {}: a size of its mix {m} does not fit in its volume or region",
                            c.class
                        ))
                    })?,
                ),
                _ => None,
            };
            let space = if let Some(m) = &mix {
                Some(m.smallest_space().clone())
            } else if c.outstanding > 0 {
                let space =
                    SlotSpace::placed(volume, c.size, &own, c.pattern.region).ok_or_else(|| {
                        let within = match c.pattern.region {
                            Some(r) => format!("the region {r} of its volume"),
                            None => "any target".to_owned(),
                        };
                        ExecError::InvalidPoint(format!(
                            "class {}: {}-byte I/Os do not fit in {within}",
                            c.class, c.size
                        ))
                    })?;
                Some(space)
            } else {
                None
            };
            let skew = space.as_ref().and_then(|s| {
                let random = c.access == rigel_expr::Access::Random;
                let key = crate::policy::skew::class_key(seed, &c.class);
                let d = &c.pattern.distribution;
                random
                    .then(|| Skew::new(d, s.len(), c.pattern.contiguous, key))
                    .flatten()
            });
            Ok(ClassSetup {
                space,
                skew,
                dsync: c.pattern.dsync,
                flush: c.pattern.flush,
                think_ns: c.pattern.think_ns,
                burst: c.pattern.burst,
                data: c.pattern.data,
                mix,
                size: c.size,
                read_percent: c.mix.read_percent.min(100),
                trim_percent: c.mix.trim_percent.min(100 - c.mix.read_percent.min(100)),
                streams: c.load,
                rate: c.rate_iops().map(|r| (r, c.arrival)),
                outstanding: c.outstanding,
                replay: None,
            })
        })
        .collect()
}

/// Gives the point's one active class the replay: one worker sends the trace in its order, with
/// its requests' own sizes (none above the class's) and no verification.
pub(super) fn replay_setup(
    classes: &mut [ClassSetup],
    point: &DataPoint,
    run: &RunSettings,
    workers: usize,
    replay: &Arc<rigel_plan::replay::Replay>,
) -> Result<(), ExecError> {
    let refuse = |why: String| Err(ExecError::InvalidPoint(format!("a replay {why}")));
    let active: Vec<usize> = (0..classes.len())
        .filter(|&c| classes[c].space.is_some())
        .collect();
    let &[c] = active.as_slice() else {
        return refuse(format!("runs one class, not {}", active.len()));
    };
    if workers != 1 || run.verify.is_some() {
        return refuse("runs on one worker (its order is the trace's), without verify".into());
    }
    let (load, setup) = (&point.classes[c], &mut classes[c]);
    if u64::from(replay.largest) > setup.size || setup.mix.is_some() || setup.flush.is_some() {
        return refuse(format!(
            "class's size ({} bytes) must hold the largest request ({} bytes), with no mix and \
             no durability of its own",
            setup.size, replay.largest
        ));
    }
    if load.rate_iops().is_none() {
        return refuse("class needs a rate (the trace's mean, for its pace)".into());
    }
    setup.replay = Some(Arc::clone(replay));
    Ok(())
}
