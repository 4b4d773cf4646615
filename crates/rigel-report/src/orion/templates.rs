//! ORION's files as templates, embedded from `templates/orion/`: their byte layout lives there, in
//! ORION's printf formats (`printf`), and these are the names they render under.

use crate::Dialect;

/// ORION's templates, by the name they are rendered under.
pub const TEMPLATES: &[(&str, &str)] = &[
    (
        "orion/summary.txt",
        include_str!("../../templates/orion/summary.txt"),
    ),
    (
        "orion/iops.csv",
        include_str!("../../templates/orion/iops.csv"),
    ),
    (
        "orion/mbps.csv",
        include_str!("../../templates/orion/mbps.csv"),
    ),
    (
        "orion/lat.csv",
        include_str!("../../templates/orion/lat.csv"),
    ),
    (
        "orion/hist.txt",
        include_str!("../../templates/orion/hist.txt"),
    ),
    (
        "orion/trace.txt",
        include_str!("../../templates/orion/trace.txt"),
    ),
];

/// The files ORION writes for one test in `dialect`, in its order: `_hist.txt` only from 12c on.
pub fn kinds(dialect: Dialect) -> Vec<&'static str> {
    let mut kinds = vec!["summary.txt", "iops.csv", "mbps.csv", "lat.csv"];
    if dialect == Dialect::V12 {
        kinds.push("hist.txt");
    }
    kinds.push("trace.txt");
    kinds
}
