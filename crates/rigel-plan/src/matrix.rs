//! ORION's matrix shapes over the classes' load sweeps: which combinations of loads become data
//! points, and ORION's "Total Data Points" (which counts the idle (0, 0) cell).

use super::limits::{self, MAX_CLASSES, MAX_POINTS};
use super::model::{ClassLevels, MatrixShape};
use rigel_spec::{Spec, SpecError};

/// One point's loads above 0: (class index, load), in class order.
pub(super) type Loads = Vec<(usize, u32)>;

pub(super) struct MatrixCells {
    /// The loads above 0 of each point, as (class index, load) in class order; the all-idle cell
    /// is never a point. Sparse, so that a spec of many classes run one at a time (`basic`) takes
    /// memory linear in the classes, not their square.
    pub points: Vec<Loads>,
    /// Class entries the plan's points will hold for one `[sweep]` combination ([`listed`]).
    pub entries: u64,
    pub levels: Vec<ClassLevels>,
    /// Cells of the grid including the idle one where the shape has it (ORION's count).
    pub orion_cells: u64,
}

/// Up to this many classes, every point lists every class, idle ones with load 0, so that labels
/// read `small=4 large=0` as ORION's users know them. Beyond, a point lists only the classes that
/// run (readers find an absent class idle): a label of thousands of idle classes names nothing,
/// and listing them made memory grow with the square of the classes.
pub const LISTED_IDLE_CLASSES: usize = 16;
/// A plan's points hold class entries of about 100 bytes each: this bounds the plan near 400 MB.
pub const MAX_PLAN_ENTRIES: u64 = 4_000_000;

/// Whether points list idle classes too ([`LISTED_IDLE_CLASSES`]).
pub(super) fn lists_idle(classes: usize) -> bool {
    classes <= LISTED_IDLE_CLASSES
}

/// The error when `points` points holding `entries` class entries make too large a plan.
pub(super) fn too_large(spec: &Spec, points: u64, entries: u64) -> Option<SpecError> {
    (entries > MAX_PLAN_ENTRIES).then(|| {
        SpecError::at(
            &spec.matrix.loc,
            format!(
                "{points} data points make a plan of {entries} class entries, \
                 more than rigel holds ({MAX_PLAN_ENTRIES})"
            ),
            "the matrix expands to this",
        )
        .hint("fewer classes or narrower load sweeps; or split the spec")
    })
}

/// Expands the matrix; None (with errors pushed) when a sweep is missing or invalid.
pub(super) fn expand_matrix(spec: &Spec, errors: &mut Vec<SpecError>) -> Option<MatrixCells> {
    let shape = spec.matrix.shape.value;
    if let Some(extra) = spec.classes.get(MAX_CLASSES) {
        errors.push(
            SpecError::at(
                &extra.name.loc,
                format!("more than {MAX_CLASSES} classes in one spec"),
                "one too many",
            )
            .hint("split the spec: each run measures a few classes"),
        );
        return None;
    }
    let mut axes: Vec<Vec<u32>> = Vec::new();
    // By name, in a map: thousands of classes are matched in linear time.
    let sweeps: std::collections::HashMap<&str, _> = spec
        .matrix
        .loads
        .iter()
        .map(|(name, sweep)| (name.value.as_str(), sweep))
        .collect();
    for (i, class) in spec.classes.iter().enumerate() {
        let Some(&sweep) = sweeps.get(class.name.value.as_str()) else {
            errors.push(SpecError::at(&class.name.loc, format!("class `{}` has no load in [matrix]", class.name.value), "this class")
                .hint(format!("add a load sweep under [matrix], e.g. {} = \"1..=32 x2\" (or \"0\" to leave it idle)", class.name.value)));
            continue;
        };
        let levels = &sweep.value;
        if let Some(b) = levels.iter().find_map(|&l| limits::load(l).err()) {
            errors.push(b.at(&sweep.loc));
            continue;
        }
        let varied = match shape {
            MatrixShape::Point => false,
            MatrixShape::Row => i == 0,
            MatrixShape::Col => i == 1,
            _ => true,
        };
        let mut axis: Vec<u32> = levels.iter().map(|&l| l as u32).collect();
        if varied && axis.first() != Some(&0) {
            axis.insert(0, 0);
        }
        if shape == MatrixShape::Point && axis.len() != 1 {
            errors.push(
                SpecError::at(
                    &sweep.loc,
                    format!(
                        "a `point` matrix takes one load per class, found {}",
                        axis.len()
                    ),
                    "several loads",
                )
                .hint("use shape = \"detailed\" to run every combination"),
            );
            continue;
        }
        if axis.is_empty() {
            errors.push(
                SpecError::at(&sweep.loc, "this load sweep has no level", "empty")
                    .hint("write at least one load, e.g. \"1\""),
            );
            continue;
        }
        axes.push(axis);
    }
    if shape == MatrixShape::Col && spec.classes.len() < 2 {
        errors.push(
            SpecError::at(
                &spec.matrix.shape.loc,
                "a `col` matrix varies the second class, and this spec has one",
                "needs two classes",
            )
            .hint("use shape = \"row\" to vary the first class"),
        );
    }
    if axes.len() != spec.classes.len() || !errors.is_empty() {
        return None;
    }
    let cells = if shape == MatrixShape::Basic {
        let count: u64 = axes
            .iter()
            .map(|a| a.iter().filter(|&&l| l > 0).count() as u64)
            .sum();
        let entries = if lists_idle(axes.len()) {
            count * axes.len() as u64
        } else {
            count
        };
        if let Some(e) = too_large(spec, count, entries) {
            errors.push(e);
            return None;
        }
        let (points, cells) = basic_cells(&axes);
        (points, cells, entries)
    } else {
        grid_cells(&axes, errors, spec)?
    };
    let levels = spec
        .classes
        .iter()
        .zip(&axes)
        .map(|(c, a)| ClassLevels {
            class: c.name.value.clone(),
            levels: a.clone(),
        })
        .collect();
    if cells.0.is_empty() {
        errors.push(
            SpecError::at(
                &spec.matrix.loc,
                "the matrix has no point with any load",
                "every class is idle",
            )
            .hint("give at least one class a load above 0"),
        );
        return None;
    }
    Some(MatrixCells {
        points: cells.0,
        levels,
        orion_cells: cells.1,
        entries: cells.2,
    })
}

/// Each class alone at each of its levels, in class order; ORION counts the idle cell too.
fn basic_cells(axes: &[Vec<u32>]) -> (Vec<Loads>, u64) {
    let mut points = Vec::new();
    for (i, axis) in axes.iter().enumerate() {
        for &level in axis.iter().filter(|&&l| l > 0) {
            points.push(vec![(i, level)]);
        }
    }
    let cells = points.len() as u64 + 1;
    (points, cells)
}

/// Every combination of the axes, the first class varying fastest (ORION: small inside large),
/// with the cell count and the class entries the points will hold.
fn grid_cells(
    axes: &[Vec<u32>],
    errors: &mut Vec<SpecError>,
    spec: &Spec,
) -> Option<(Vec<Loads>, u64, u64)> {
    let cells = axes
        .iter()
        .try_fold(1u64, |acc, a| acc.checked_mul(a.len() as u64));
    let Some(cells) = cells.filter(|&c| c <= MAX_POINTS) else {
        errors.push(
            SpecError::at(
                &spec.matrix.loc,
                format!("this matrix has more than {MAX_POINTS} cells"),
                "the sweeps multiply to this",
            )
            .hint("narrow a load sweep, e.g. a geometric range \"1..=256 x2\""),
        );
        return None;
    };
    // Each class is loaded in (its levels above 0) × (the other axes' cells) of the cells.
    let entries = if lists_idle(axes.len()) {
        cells.saturating_mul(axes.len() as u64)
    } else {
        axes.iter()
            .map(|a| cells / a.len() as u64 * a.iter().filter(|&&l| l > 0).count() as u64)
            .fold(0u64, u64::saturating_add)
    };
    if let Some(e) = too_large(spec, cells, entries) {
        errors.push(e);
        return None;
    }
    let mut points = Vec::with_capacity(cells as usize);
    let mut index = vec![0usize; axes.len()];
    loop {
        let loads: Loads = index
            .iter()
            .zip(axes)
            .enumerate()
            .map(|(c, (&i, a))| (c, a[i]))
            .filter(|&(_, l)| l > 0)
            .collect();
        if !loads.is_empty() {
            points.push(loads);
        }
        let mut k = 0;
        loop {
            if k == axes.len() {
                return Some((points, cells, entries));
            }
            index[k] += 1;
            if index[k] < axes[k].len() {
                break;
            }
            index[k] = 0;
            k += 1;
        }
    }
}
