//! Which load and `[sweep]` values a point ran with: `small=4`, `small.size=4KiB`, as points, rows
//! and best points list them.

use rigel_results::view::PointRead;
use serde::Serialize;

/// `small=4`: one class's load at a point.
#[derive(Clone, Debug, Serialize)]
pub struct LoadView {
    pub class: String,
    pub load: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoadSweep {
    pub key: String,
    pub value: String,
}

pub(super) fn loads_of(p: &PointRead) -> Vec<LoadView> {
    p.classes
        .iter()
        .map(|c| LoadView {
            class: c.name().to_string(),
            load: c.params.load,
        })
        .collect()
}

pub(super) fn sweep_of(p: &PointRead) -> Vec<LoadSweep> {
    sweep_views(p.sweep())
}

pub(super) fn sweep_views(sweep: &[rigel_plan::SweepBinding]) -> Vec<LoadSweep> {
    sweep
        .iter()
        .map(|b| LoadSweep {
            key: b.key.clone(),
            value: b.value.clone(),
        })
        .collect()
}
