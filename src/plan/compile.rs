//! The compiler: a typed spec becomes a run plan. Every invalid combination is reported against the
//! spec text; the same spec always gives the same plan.

use super::matrix::{MatrixCells, expand_matrix};
use super::model::*;
use crate::expr::{Access, Names, Size};
use crate::spec::{ClassSpec, Loc, Spec, SpecError, SweepValues};

/// A plan larger than this is almost certainly a typo in a sweep; refuse before allocating it.
pub const MAX_POINTS: u64 = 1_000_000;
/// Outstanding I/Os one class may keep in flight at one point.
pub const MAX_OUTSTANDING: u64 = 65_536;

/// Compiles a spec. `cores` is the value of the name `cores` in count expressions.
pub fn compile(spec: &Spec, cores: u64) -> Result<RunPlan, Vec<SpecError>> {
    let mut errors = Vec::new();
    let names = Names {
        targets: spec.targets.len() as u64,
        cores,
    };
    check_targets(spec, &mut errors);
    let volume = check_volume(spec, &mut errors);
    let run = check_run(spec, &names, &mut errors);
    let classes = check_classes(spec, &spec.classes, volume, &mut errors);
    let cells = expand_matrix(spec, &mut errors);
    let combos = sweep_combos(spec, volume, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    let (Some(run), Some(cells)) = (run, cells) else {
        return Err(errors);
    };
    let total = cells.points.len() as u64 * combos.len() as u64;
    if total > MAX_POINTS {
        return Err(vec![SpecError::at(
            &spec.matrix.loc,
            format!("this spec expands to {total} data points, more than rigel runs in one plan ({MAX_POINTS})"),
            "the matrix and sweeps multiply to this",
        )
        .hint("narrow a sweep (a geometric `x2` range instead of `step 1`) or split the spec")]);
    }
    let points = build_points(&classes, &cells, &combos);
    if let Some(c) = points
        .iter()
        .flat_map(|p| p.active())
        .find(|c| u64::from(c.outstanding) > MAX_OUTSTANDING)
    {
        return Err(vec![SpecError::at(
            &spec.matrix.loc,
            format!("class `{}` would keep {} I/Os in flight ({} streams × {}), more than rigel allows ({MAX_OUTSTANDING})", c.class, c.outstanding, c.load, c.per_stream),
            "the loads here",
        )
        .hint("lower the stream count or per_stream")]);
    }
    let writes = points.iter().any(|p| p.active().any(|c| c.mix.writes()));
    let per_point_ms = run.duration_ms + run.warmup_ms;
    Ok(RunPlan {
        name: spec.name.clone(),
        description: spec.description.clone(),
        targets: spec
            .targets
            .iter()
            .map(|t| PlannedTarget {
                path: t.path.value.clone(),
                size: t.size.as_ref().map(|s| s.value.0),
                destructive: t.destructive,
                written: writes,
            })
            .collect(),
        volume,
        estimated_seconds: (points.len() as u64 * per_point_ms).div_ceil(1000),
        run,
        classes,
        matrix: MatrixInfo {
            shape: spec.matrix.shape.value,
            levels: cells.levels.clone(),
        },
        orion_total_points: cells.orion_cells * combos.len() as u64,
        expect: spec
            .expect
            .iter()
            .map(|e| Requirement {
                key: e.key.value.clone(),
                comparison: e.comparison.value,
            })
            .collect(),
        points,
    })
}

fn check_targets(spec: &Spec, errors: &mut Vec<SpecError>) {
    if spec.targets.is_empty() {
        errors.push(
            SpecError::at(&spec.targets_loc, "the spec has no target", "no [[target]] here")
                .hint("add a [[target]] with path = \"/dev/sdX\", or a file: path = \"test.bin\" and size = \"1GiB\""),
        );
    }
    for (i, t) in spec.targets.iter().enumerate() {
        if spec.targets[..i]
            .iter()
            .any(|o| o.path.value == t.path.value)
        {
            errors.push(
                SpecError::at(
                    &t.path.loc,
                    format!("target `{}` is listed twice", t.path.value),
                    "a second time here",
                )
                .hint("each target may appear once in a volume"),
            );
        }
        if let Some(size) = &t.size
            && (size.value.0 == 0 || size.value.0 % 512 != 0)
        {
            errors.push(
                SpecError::at(
                    &size.loc,
                    format!(
                        "a target size must be a positive multiple of 512 bytes, found {}",
                        size.value
                    ),
                    "not a multiple of 512",
                )
                .hint("use a size such as \"1GiB\""),
            );
        }
    }
}

fn check_volume(spec: &Spec, errors: &mut Vec<SpecError>) -> VolumeLayout {
    let v = &spec.volume;
    let stripe = v.stripe.value.0;
    if v.layout.value == Layout::Raid0 {
        if spec.targets.len() == 1 {
            errors.push(
                SpecError::at(
                    &v.layout.loc,
                    "a raid0 volume needs at least two targets",
                    "raid0 over one target",
                )
                .hint("add a second [[target]], or use layout = \"concat\""),
            );
        }
        if stripe == 0 || stripe % 512 != 0 {
            errors.push(
                SpecError::at(
                    &v.stripe.loc,
                    format!(
                        "a stripe must be a positive multiple of 512 bytes, found {}",
                        v.stripe.value
                    ),
                    "not a multiple of 512",
                )
                .hint("ORION's default stripe is 1MiB"),
            );
        }
    }
    VolumeLayout {
        layout: v.layout.value,
        stripe,
    }
}

fn check_run(spec: &Spec, names: &Names, errors: &mut Vec<SpecError>) -> Option<RunSettings> {
    let r = &spec.run;
    if r.duration.value.is_zero() {
        errors.push(
            SpecError::at(
                &r.duration.loc,
                "a data point's duration must be more than zero",
                "zero duration",
            )
            .hint("ORION's default is 60s; short smoke tests use 1s to 5s"),
        );
    }
    let workers = match &r.workers {
        None => 1,
        Some(w) => match w.value.eval(names) {
            Ok(n) if (1..=256).contains(&n) => n as u32,
            Ok(n) => {
                errors.push(SpecError::at(&w.loc, format!("workers must be between 1 and 256, found {n}"), "out of range")
                    .hint("one worker (one ring, one thread) drives a device well; use \"cores\" for many devices"));
                return None;
            }
            Err(e) => {
                errors.push(SpecError::at(&w.loc, e.message, "here").hint_opt(e.hint));
                return None;
            }
        },
    };
    Some(RunSettings {
        duration_ms: r.duration.value.as_millis() as u64,
        warmup_ms: r.warmup.value.as_millis() as u64,
        direct: r.direct,
        seed: r.seed,
        workers,
    })
}

fn check_classes(
    spec: &Spec,
    classes: &[ClassSpec],
    volume: VolumeLayout,
    errors: &mut Vec<SpecError>,
) -> Vec<IoClass> {
    if classes.is_empty() {
        errors.push(
            SpecError::at(
                &spec.matrix.loc,
                "the spec has no I/O class",
                "no [class.NAME] defined",
            )
            .hint("add e.g. [class.small] with size = \"8KiB\", access = \"random\""),
        );
    }
    classes
        .iter()
        .map(|c| {
            check_size(c.size.value.0, &c.size.loc, volume, errors);
            let per_stream = match (&c.per_stream, c.access.value) {
                (None, Access::Sequential) => 4,
                (None, Access::Random) => 1,
                (Some(p), Access::Random) if p.value != 1 => {
                    errors.push(SpecError::at(&p.loc, "`per_stream` applies to sequential classes only", "random class")
                        .hint("a random class's load is its outstanding I/O count; remove per_stream or set access = \"sequential\""));
                    1
                }
                (Some(p), _) => {
                    if p.value == 0 || u64::from(p.value) > MAX_OUTSTANDING {
                        errors.push(
                            SpecError::at(&p.loc, format!("`per_stream` must be between 1 and {MAX_OUTSTANDING}"), "out of range")
                                .hint("ORION's default is 4 outstanding I/Os per stream"),
                        );
                    }
                    p.value.clamp(1, MAX_OUTSTANDING as u32)
                }
            };
            IoClass { name: c.name.value.clone(), size: c.size.value.0, access: c.access.value, mix: c.mix.value, per_stream }
        })
        .collect()
}

fn check_size(size: u64, loc: &Loc, volume: VolumeLayout, errors: &mut Vec<SpecError>) {
    if size == 0 || size % 512 != 0 {
        errors.push(
            SpecError::at(
                loc,
                format!(
                    "an I/O size must be a positive multiple of 512 bytes, found {}",
                    Size(size)
                ),
                "not a multiple of 512",
            )
            .hint("direct I/O moves whole sectors: use 512B, 4KiB, 8KiB, 1MiB…"),
        );
    } else if volume.layout == Layout::Raid0 && (volume.stripe < size || volume.stripe % size != 0)
    {
        errors.push(
            SpecError::at(
                loc,
                format!(
                    "an I/O of {} does not fit the raid0 stripe of {}",
                    Size(size),
                    Size(volume.stripe)
                ),
                "larger than, or not dividing, the stripe",
            )
            .hint("make [volume] stripe a multiple of every class size, e.g. stripe = \"1MiB\""),
        );
    }
}

/// One combination of `[sweep]` values: (class index, parameter value) overrides and their labels.
#[derive(Clone, Debug, Default)]
pub(super) struct Combo {
    pub bindings: Vec<SweepBinding>,
    pub overrides: Vec<(String, SweepOverride)>,
}

#[derive(Clone, Debug)]
pub(super) enum SweepOverride {
    Size(u64),
    Mix(crate::expr::Mix),
    Access(Access),
    PerStream(u32),
}

fn sweep_combos(spec: &Spec, volume: VolumeLayout, errors: &mut Vec<SpecError>) -> Vec<Combo> {
    let mut combos = vec![Combo::default()];
    for s in &spec.sweep {
        let key = format!("{}.{}", s.class.value, s.values.value.param());
        let choices: Vec<(String, SweepOverride)> = match &s.values.value {
            SweepValues::Size(v) => v
                .iter()
                .map(|z| {
                    check_size(z.0, &s.values.loc, volume, errors);
                    (z.to_string(), SweepOverride::Size(z.0))
                })
                .collect(),
            SweepValues::Mix(v) => v
                .iter()
                .map(|m| (format!("{}% read", m.read_percent), SweepOverride::Mix(*m)))
                .collect(),
            SweepValues::Access(v) => v
                .iter()
                .map(|a| (format!("{a:?}").to_lowercase(), SweepOverride::Access(*a)))
                .collect(),
            SweepValues::PerStream(v) => v
                .iter()
                .map(|n| {
                    if *n == 0 || *n > MAX_OUTSTANDING {
                        errors.push(SpecError::at(
                            &s.values.loc,
                            format!(
                                "per_stream must be between 1 and {MAX_OUTSTANDING}, found {n}"
                            ),
                            "out of range",
                        ));
                    }
                    (
                        n.to_string(),
                        SweepOverride::PerStream((*n).clamp(1, MAX_OUTSTANDING) as u32),
                    )
                })
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

fn build_points(classes: &[IoClass], cells: &MatrixCells, combos: &[Combo]) -> Vec<DataPoint> {
    let mut points = Vec::with_capacity(cells.points.len() * combos.len());
    for combo in combos {
        let mut params: Vec<IoClass> = classes.to_vec();
        for (class, o) in &combo.overrides {
            if let Some(c) = params.iter_mut().find(|c| &c.name == class) {
                match o {
                    SweepOverride::Size(s) => c.size = *s,
                    SweepOverride::Mix(m) => c.mix = *m,
                    SweepOverride::Access(a) => c.access = *a,
                    SweepOverride::PerStream(p) => c.per_stream = *p,
                }
            }
        }
        for loads in &cells.points {
            let classes = params
                .iter()
                .zip(loads)
                .map(|(c, &load)| {
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
