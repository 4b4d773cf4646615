//! The compiler: a typed spec becomes a run plan. Every invalid combination is reported against the
//! spec text; the same spec always gives the same plan. Every limit comes from `limits`.

use super::limits::{self, MAX_OUTSTANDING, MAX_TARGETS, Timing};
use super::matrix::expand_matrix;
use super::model::*;
use super::sweep::{build_points, sweep_combos};
use rigel_expr::{Access, Names, Size};
use rigel_spec::{ClassSpec, Loc, Spec, SpecError};
use std::time::Duration;

/// Compiles a spec. `cores` is the value of the name `cores` in count expressions.
pub fn compile(spec: &Spec, cores: u64) -> Result<RunPlan, Vec<SpecError>> {
    let mut errors = Vec::new();
    let names = Names {
        targets: spec.targets.len() as u64,
        cores,
    };
    check_targets(spec, &mut errors);
    super::pattern::check_names(spec, &mut errors);
    let volume = check_volume(spec, &mut errors);
    let run = check_run(spec, &names, &mut errors);
    let classes = check_classes(spec, &spec.classes, volume, &mut errors);
    let polled = super::polled::polled(spec, &classes, &mut errors);
    let cells = expand_matrix(spec, &mut errors);
    let combos = sweep_combos(spec, volume, &mut errors);
    let precondition = super::conditioning::compile_precondition(spec, &mut errors);
    let steady = super::conditioning::compile_steady(spec, &mut errors);
    let drain = super::drain::compile_drain(spec, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    let (Some(run), Some(cells)) = (run, cells) else {
        return Err(errors);
    };
    let total = cells.points.len() as u64 * combos.len() as u64;
    let per_point = Duration::from_millis(run.duration_ms + run.warmup_ms);
    if let Err(b) = limits::plan_size(total, per_point) {
        return Err(vec![b.at(&spec.matrix.loc)]);
    }
    let entries = cells.entries.saturating_mul(combos.len() as u64);
    if let Some(e) = super::matrix::too_large(spec, total, entries) {
        return Err(vec![e]);
    }
    let points = build_points(&classes, &cells, &combos);
    if let Some(b) = points.iter().find_map(|p| limits::point(p, &run).err()) {
        return Err(vec![b.at(&spec.matrix.loc)]);
    }
    if let Some((class, b)) = points
        .iter()
        .find_map(|p| super::engine_rule::psync_threads(p, &run))
    {
        return Err(vec![b.at(engine_loc(spec, &class))]);
    }
    check_fit(spec, &points, volume, &mut errors);
    let mut run = run;
    run.polled = polled;
    run.zones = super::polled::zones(spec, &mut errors);
    run.verify = super::verify::compile_verify(spec, &points, &mut errors);
    if let Some(e) = precondition
        .as_ref()
        .and_then(|p| super::conditioning::check_pass(spec, p, &run))
    {
        errors.push(e);
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // A search runs its trials in place of the matrix's one point, the worst case estimated.
    let search = super::search::compile_search(spec, &points, &run)?;
    let points = if search.is_some() { Vec::new() } else { points };
    let planned = search
        .as_ref()
        .map_or(points.len() as u64, |s| u64::from(s.worst_trials));
    // Per target: some point's writing class uses it. The fill writes every target (unless it
    // reads them through, `read = true`): the same guard and consent as a writing point.
    let fill_writes = precondition.as_ref().is_some_and(|p| !p.read);
    let mut written = vec![fill_writes; spec.targets.len()];
    let probed = search
        .as_ref()
        .map_or(&points[..], |s| std::slice::from_ref(&s.template));
    if let Some(e) = drain
        .as_ref()
        .and_then(|d| super::drain::check_drain(spec, d, probed, &run))
    {
        return Err(vec![e]);
    }
    for c in probed
        .iter()
        .flat_map(|p| p.active())
        // A trim destroys data as a write does: the write guard asks the same consent.
        .filter(|c| c.mix.modifies())
    {
        for (i, w) in written.iter_mut().enumerate() {
            *w |= c.pattern.uses(i);
        }
    }
    let per_point_ms = run.duration_ms + run.warmup_ms + limits::POINT_OVERHEAD.as_millis() as u64;
    // Steady state: the worst case, rounds up to `max` (the last may start just before it), then
    // the measured run.
    let per_point_ms = match &steady {
        Some(s) => s.max_ms + 2 * per_point_ms,
        None => per_point_ms,
    };
    Ok(RunPlan {
        name: spec.name.clone(),
        description: spec.description.clone(),
        targets: spec
            .targets
            .iter()
            .enumerate()
            .map(|(i, t)| PlannedTarget {
                name: t
                    .name
                    .as_ref()
                    .map_or_else(String::new, |n| n.value.clone()),
                path: t.path.value.clone(),
                size: t.size.as_ref().map(|s| s.value.0),
                destructive: t.destructive,
                named_on_command_line: t.named_on_command_line,
                written: written[i],
            })
            .collect(),
        volume,
        // To the nearest second (a few ms of overhead per point must not add a second to a
        // plan of minute-long points), never 0 for a plan that runs anything.
        estimated_seconds: ((planned * per_point_ms + 500) / 1000).max(u64::from(planned > 0)),
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
        answers: spec
            .answers
            .iter()
            .map(|a| AnswerPlan {
                name: a.name.value.clone(),
                question: a.question.clone(),
                figure: a.figure.value.clone(),
                at: a.at.value,
                load: a.load.iter().map(|l| l.value.clone()).collect(),
                per: a.per.as_ref().map(|p| p.value.clone()),
                when: a.when.as_ref().map(|(k, c)| Requirement {
                    key: k.value.clone(),
                    comparison: c.value,
                }),
            })
            .collect(),
        points,
        search,
        precondition,
        drain,
        steady,
        cpus: spec.run.cpus.as_ref().map(|c| c.value.clone()),
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
            && let Err(b) = limits::target_size(size.value.0)
        {
            errors.push(b.at(&size.loc));
        }
    }
    if let Some(t) = spec.targets.get(MAX_TARGETS as usize) {
        errors.push(
            SpecError::at(
                &t.path.loc,
                format!(
                    "the spec has {} targets, more than rigel opens in one volume ({MAX_TARGETS})",
                    spec.targets.len()
                ),
                "one too many",
            )
            .hint("split the targets over several specs"),
        );
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
        if let Err(b) = limits::stripe(stripe) {
            errors.push(b.at(&v.stripe.loc));
        }
    }
    VolumeLayout {
        layout: v.layout.value,
        stripe,
    }
}

/// The executor checks for stalled I/O on its 100 ms timer: a shorter timeout cannot be kept.
const IO_TIMEOUT_MIN: std::time::Duration = std::time::Duration::from_millis(100);
const IO_TIMEOUT_MAX: std::time::Duration = std::time::Duration::from_secs(3600);

fn check_run(spec: &Spec, names: &Names, errors: &mut Vec<SpecError>) -> Option<RunSettings> {
    let r = &spec.run;
    let timings = [(&r.duration, Timing::Duration), (&r.warmup, Timing::Warmup)];
    for (d, which) in timings {
        if let Err(b) = limits::timing(d.value, which) {
            errors.push(b.at(&d.loc));
        }
    }
    if let Err(b) = limits::seed(r.seed.value) {
        errors.push(b.at(&r.seed.loc));
    }
    if !(IO_TIMEOUT_MIN..=IO_TIMEOUT_MAX).contains(&r.io_timeout.value) {
        errors.push(
            SpecError::at(
                &r.io_timeout.loc,
                format!(
                    "`io_timeout` must be between {} and {}",
                    rigel_expr::format_duration(IO_TIMEOUT_MIN),
                    rigel_expr::format_duration(IO_TIMEOUT_MAX)
                ),
                "out of range",
            )
            .hint("the default, 30s, fails a point whose I/O has not completed in 30 seconds"),
        );
    }
    let workers = match &r.workers {
        None => 1,
        // 0 means one worker per CPU rigel may run on, as "auto" and "cores" do.
        Some(w) => match w
            .value
            .eval(names)
            .map(|n| if n == 0 { names.cores } else { n })
        {
            Ok(n) => match limits::workers(n) {
                Ok(()) => n as u32,
                Err(b) => {
                    errors.push(b.at(&w.loc));
                    return None;
                }
            },
            Err(e) => {
                errors.push(SpecError::at(&w.loc, e.message, "here").hint_opt(e.hint));
                return None;
            }
        },
    };
    Some(RunSettings {
        duration_ms: r.duration.value.as_millis() as u64,
        warmup_ms: r.warmup.value.as_millis() as u64,
        io_timeout_ms: r.io_timeout.value.as_millis() as u64,
        direct: r.direct,
        buffers: r.buffers,
        seed: r.seed.value,
        workers,
        verify: None,
        polled: false,
        zones: false,
        sqpoll: super::sqpoll::sqpoll(spec, errors),
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
            let sizes = c.sizes.as_ref().map_or_else(|| vec![c.size.value.0], |m| m.value.items().iter().map(|s| s.size).collect());
            if let Some(b) = sizes.iter().find_map(|&s| limits::io_size(s, volume).err()) {
                errors.push(b.at(&c.size.loc));
            }
            let mean = c.sizes.as_ref().map_or(c.size.value.0, |m| m.value.mean().round() as u64);
            let per_stream = match (&c.per_stream, c.access.value) {
                (None, Access::Sequential) => 4,
                (None, Access::Random) => 1,
                (Some(p), Access::Random) if p.value != 1 => {
                    errors.push(SpecError::at(&p.loc, "`per_stream` applies to sequential classes only", "random class")
                        .hint("a random class's load is its outstanding I/O count; remove per_stream or set access = \"sequential\""));
                    1
                }
                (Some(p), _) => {
                    if let Err(b) = limits::per_stream(u64::from(p.value)) {
                        errors.push(b.at(&p.loc));
                    }
                    p.value.clamp(1, MAX_OUTSTANDING as u32)
                }
            };
            if let Some(r) = &c.rate
                && let Err(b) = limits::rate(&c.name.value, r.value.iops(mean))
            {
                errors.push(b.at(&r.loc));
            }
            let pattern = super::pattern::compile(spec, c, (volume.layout, volume.stripe), errors);
            IoClass { name: c.name.value.clone(), size: c.size.value.0, access: c.access.value, mix: c.mix.value, per_stream, rate: c.rate.as_ref().map(|r| r.value), arrival: c.arrival.value, pattern, engine: engine_of(spec, c, errors) }
        })
        .collect()
}

/// The class's engine: its own `engine`, else `[run] engine`, else `auto` (`--engine` replaces it
/// after compiling, see [`RunPlan::force_engine`]).
/// An engine written where it cannot serve the run is reported where written: on the class, or
/// once on `[run]` (for the first class inheriting it).
fn engine_of(spec: &Spec, c: &ClassSpec, errors: &mut Vec<SpecError>) -> Engine {
    let asked = c.engine.as_ref().or(spec.run.engine.as_ref());
    if let Some(e) = asked
        && let Some((message, hint)) = super::engine_rule::engine_refusal(e.value, spec.run.direct)
        && !errors.iter().any(|r| r.loc.as_ref() == Some(&e.loc))
    {
        errors.push(SpecError::at(&e.loc, message, "with direct = false").hint(hint));
    }
    asked.map_or(Engine::Auto, |e| e.value)
}

/// Where class `class`'s engine is written: its own `engine`, else `[run] engine` (the matrix when
/// neither is, which a compiled engine rule never meets).
fn engine_loc<'s>(spec: &'s Spec, class: &str) -> &'s Loc {
    let own = spec.classes.iter().find(|c| c.name.value == class);
    own.and_then(|c| c.engine.as_ref())
        .or(spec.run.engine.as_ref())
        .map_or(&spec.matrix.loc, |e| &e.loc)
}

/// Declared target sizes against every I/O size the plan uses (and the raid0 stripe): each target
/// must hold at least one whole unit, as `target::open_volume` trims it at open.
fn check_fit(spec: &Spec, points: &[DataPoint], volume: VolumeLayout, errors: &mut Vec<SpecError>) {
    let mut sizes: Vec<u64> = points
        .iter()
        .flat_map(|p| p.active().map(|c| c.size))
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let stripe = (volume.layout == Layout::Raid0).then_some(volume.stripe);
    let unit = limits::volume_unit(sizes.iter().copied(), stripe);
    for t in &spec.targets {
        let Some(size) = &t.size else { continue };
        if limits::usable(size.value.0, unit).is_some() {
            continue;
        }
        let largest = sizes.last().copied().unwrap_or(0);
        let message = if largest > size.value.0 {
            format!(
                "target `{}` is {}: smaller than one {} I/O of this plan",
                t.path.value,
                size.value,
                Size(largest)
            )
        } else {
            format!(
                "target `{}` is {}: it holds no whole {} (every target is used in whole units of every I/O size and the stripe)",
                t.path.value,
                size.value,
                limits::unit_text(unit)
            )
        };
        errors.push(
            SpecError::at(&size.loc, message, "too small")
                .hint("declare a larger size, or use smaller I/Os"),
        );
    }
}

#[cfg(test)]
#[path = "compile_tests.rs"]
mod tests;
