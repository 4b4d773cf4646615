//! `[sweep]`: the outer loops over class parameters, in the order written, and the data points
//! they make with the matrix inside each combination.

use super::limits::{self, MAX_OUTSTANDING, MAX_POINTS};
use super::matrix::{MatrixCells, lists_idle};
use super::model::*;
use rigel_expr::Access;
use rigel_spec::{Spec, SpecError, SweepValues};

/// One combination of `[sweep]` values: (class index, parameter value) overrides and their labels.
#[derive(Clone, Debug, Default)]
pub(super) struct Combo {
    pub bindings: Vec<SweepBinding>,
    pub overrides: Vec<(String, SweepOverride)>,
}

#[derive(Clone, Debug)]
pub(super) enum SweepOverride {
    Size(u64),
    Mix(rigel_expr::Mix),
    Access(Access),
    PerStream(u32),
    Rate(rigel_expr::Rate),
}

pub(super) fn sweep_combos(
    spec: &Spec,
    volume: VolumeLayout,
    errors: &mut Vec<SpecError>,
) -> Vec<Combo> {
    let mut combos = vec![Combo::default()];
    for s in &spec.sweep {
        let key = format!("{}.{}", s.class.value, s.values.value.param());
        let choices: Vec<(String, SweepOverride)> = match &s.values.value {
            SweepValues::Size(v) => v
                .iter()
                .map(|z| {
                    if let Err(b) = limits::io_size(z.0, volume) {
                        errors.push(b.at(&s.values.loc));
                    }
                    (z.to_string(), SweepOverride::Size(z.0))
                })
                .collect(),
            SweepValues::Mix(v) => v
                .iter()
                // The mix's own words (`read`, `write`, `70% read`): a write sweep is never `0% read`.
                .map(|m| (m.to_string(), SweepOverride::Mix(*m)))
                .collect(),
            SweepValues::Access(v) => v
                .iter()
                .map(|a| (format!("{a:?}").to_lowercase(), SweepOverride::Access(*a)))
                .collect(),
            SweepValues::PerStream(v) => v
                .iter()
                .map(|n| {
                    if let Err(b) = limits::per_stream(*n) {
                        errors.push(b.at(&s.values.loc));
                    }
                    (
                        n.to_string(),
                        SweepOverride::PerStream((*n).clamp(1, MAX_OUTSTANDING) as u32),
                    )
                })
                .collect(),
            SweepValues::Rate(v) => v
                .iter()
                .map(|r| (r.to_string(), SweepOverride::Rate(*r)))
                .collect(),
        };
        if choices.is_empty() {
            errors.push(SpecError::at(
                &s.values.loc,
                "a sweep needs at least one value",
                "empty sweep",
            ));
            continue;
        }
        if combos.len().saturating_mul(choices.len()) as u64 > MAX_POINTS {
            errors.push(SpecError::at(
                &s.values.loc,
                "the sweeps multiply to more combinations than rigel runs",
                "too many",
            ));
            return vec![Combo::default()];
        }
        combos = combos
            .iter()
            .flat_map(|c| {
                let key = &key;
                choices.iter().map(move |(label, o)| {
                    let mut c = c.clone();
                    c.bindings.push(SweepBinding {
                        key: key.clone(),
                        value: label.clone(),
                    });
                    c.overrides.push((s.class.value.clone(), o.clone()));
                    c
                })
            })
            .collect();
    }
    combos
}

pub(super) fn build_points(
    classes: &[IoClass],
    cells: &MatrixCells,
    combos: &[Combo],
) -> Vec<DataPoint> {
    let mut points = Vec::with_capacity(cells.points.len() * combos.len());
    for combo in combos {
        let mut params: Vec<IoClass> = classes.to_vec();
        for (class, o) in &combo.overrides {
            if let Some(c) = params.iter_mut().find(|c| &c.name == class) {
                match o {
                    SweepOverride::Size(s) => {
                        c.size = *s;
                        c.pattern.sizes = None;
                    }
                    SweepOverride::Mix(m) => c.mix = *m,
                    SweepOverride::Access(a) => c.access = *a,
                    SweepOverride::PerStream(p) => c.per_stream = *p,
                    SweepOverride::Rate(r) => c.rate = Some(*r),
                }
            }
        }
        for loads in &cells.points {
            let listed: Vec<(&IoClass, u32)> = if lists_idle(params.len()) {
                let mut all: Vec<(&IoClass, u32)> = params.iter().map(|c| (c, 0)).collect();
                for &(i, load) in loads {
                    all[i].1 = load;
                }
                all
            } else {
                loads.iter().map(|&(i, load)| (&params[i], load)).collect()
            };
            let classes = listed
                .into_iter()
                .map(|(c, load)| {
                    let per_stream = if c.access == Access::Sequential {
                        c.per_stream
                    } else {
                        1
                    };
                    ClassLoad {
                        class: c.name.clone(),
                        size: c.size,
                        access: c.access,
                        mix: c.mix,
                        load,
                        per_stream,
                        outstanding: load.saturating_mul(per_stream),
                        rate: c.rate,
                        arrival: c.arrival,
                        pattern: c.pattern.clone(),
                        engine: c.engine,
                    }
                })
                .collect();
            points.push(DataPoint {
                id: points.len() as u32 + 1,
                sweep: combo.bindings.clone(),
                classes,
            });
        }
    }
    points
}
