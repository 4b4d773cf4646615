//! The template context: what every template, built-in or a user's, sees (docs/report-context.md
//! documents it), as objects converted on demand: the context itself (`lazy`: the run's facts from
//! `run`, the views of `rows/`, the charts, ORION's matrices, the verdicts), the results document
//! (`doc`), and one field of a view at a time (`fields`). Converted up front, 100,000 points did
//! not fit in 11 GB.

mod doc;
mod fields;
mod lazy;
mod run;

pub use doc::LazyDoc;
pub use lazy::{Context, Views};
pub use run::run_view;
