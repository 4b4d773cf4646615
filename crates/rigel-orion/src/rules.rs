//! ORION's rules on which options go together: what only `-run advanced` may set, what each matrix
//! needs, and what rigel's executor adds (an I/O never spans two LUNs of a raid0 volume).

use super::OrionError;
use super::options::{LargeType, Matrix, OrionOptions, RunLevel, Simulate};

/// Checks the combination of options (the `.lun` file is checked when it is read).
pub fn check(o: &OrionOptions) -> Result<(), OrionError> {
    advanced_only(o)?;
    if o.num_stream_io.is_some() && o.large_type() != LargeType::Seq {
        return Err(not_here(
            "-num_streamIO",
            "sets the I/Os per sequential stream: it goes with -type seq",
        ));
    }
    if o.stripe.is_some() && o.simulate() != Simulate::Raid0 {
        return Err(not_here(
            "-stripe",
            "sets the raid0 stripe depth: it goes with -simulate raid0",
        ));
    }
    matrix_loads(o)?;
    stripe_fits(o)?;
    if o.ext.force && !o.ext.allow_destructive {
        return Err(OrionError::Needs {
            what: "--force".into(),
            needs: "--allow-destructive (it only widens the consent to write)".into(),
        });
    }
    if o.ext.plan && o.ext.to_spec {
        return Err(OrionError::Invalid(
            "--plan and --to-spec each print instead of running; give one of them".into(),
        ));
    }
    Ok(())
}

fn not_here(option: &str, why: &str) -> OrionError {
    OrionError::NotHere {
        option: option.into(),
        why: why.into(),
    }
}

/// ORION fixes sizes, type and matrix for every run level except `advanced`.
fn advanced_only(o: &OrionOptions) -> Result<(), OrionError> {
    if o.run == RunLevel::Advanced {
        return Ok(());
    }
    let given = [
        ("-size_small", o.size_small.is_some()),
        ("-size_large", o.size_large.is_some()),
        ("-type", o.large_type.is_some()),
        ("-num_streamIO", o.num_stream_io.is_some()),
        ("-matrix", o.matrix.is_some()),
        ("-num_small", o.num_small.is_some()),
        ("-num_large", o.num_large.is_some()),
    ];
    match given.iter().find(|(_, g)| *g) {
        Some((option, _)) => Err(not_here(
            option,
            &format!(
                "is only used with -run advanced (-run {} fixes the I/O sizes, the large I/O type and the matrix); use -run advanced, or drop {option}",
                o.run.name()
            ),
        )),
        None => Ok(()),
    }
}

/// `-num_small` / `-num_large` with the matrices that use them, as ORION's help states.
fn matrix_loads(o: &OrionOptions) -> Result<(), OrionError> {
    if o.run != RunLevel::Advanced {
        return Ok(()); // the other levels fix their loads (and refuse -num_small/-num_large)
    }
    let m = o.matrix();
    if o.num_small.is_some() && !m.uses_num_small() {
        return Err(not_here(
            "-num_small",
            &format!(
                "is only used with -matrix point, col or max (this is -matrix {}, which varies the small load itself)",
                m.name()
            ),
        ));
    }
    if o.num_large.is_some() && !m.uses_num_large() {
        return Err(not_here(
            "-num_large",
            &format!(
                "is only used with -matrix point, row or max (this is -matrix {}, which varies the large load itself)",
                m.name()
            ),
        ));
    }
    let needs = |what: &str| OrionError::Needs {
        what: format!("-matrix {}", m.name()),
        needs: what.into(),
    };
    match (m, o.num_small, o.num_large) {
        (Matrix::Point | Matrix::Max, None, _) | (Matrix::Col, None, _) => Err(needs(
            "-num_small (the small load it holds, or its maximum for max)",
        )),
        (Matrix::Point | Matrix::Max, _, None) | (Matrix::Row, _, None) => Err(needs(
            "-num_large (the large load it holds, or its maximum for max)",
        )),
        (Matrix::Point | Matrix::Max, Some(0), Some(0)) => Err(OrionError::Invalid(format!(
            "-matrix {} with -num_small 0 and -num_large 0 has no data point with any load; raise one of them",
            m.name()
        ))),
        _ => Ok(()),
    }
}

/// rigel keeps every I/O on one LUN: on raid0 each I/O size must divide the stripe.
fn stripe_fits(o: &OrionOptions) -> Result<(), OrionError> {
    if o.simulate() != Simulate::Raid0 {
        return Ok(());
    }
    let stripe = o.stripe_kib();
    for (name, size) in [
        ("-size_small", o.size_small_kib()),
        ("-size_large", o.size_large_kib()),
    ] {
        if stripe % size != 0 {
            return Err(OrionError::Invalid(format!(
                "-stripe {stripe} (KiB) is not a multiple of {name} {size}: rigel keeps each I/O within one stripe of one LUN; use a -stripe that {name} divides (e.g. -stripe {})",
                size.max(stripe).div_ceil(size) * size
            )));
        }
    }
    Ok(())
}

/// The rules that need the LUN count.
pub fn check_luns(o: &OrionOptions, luns: usize, lun_file: &str) -> Result<(), OrionError> {
    if o.simulate() == Simulate::Raid0 && luns < 2 {
        return Err(OrionError::Invalid(format!(
            "-simulate raid0 stripes over several LUNs, and {lun_file} lists {luns}; add LUNs, or use -simulate concat"
        )));
    }
    Ok(())
}
