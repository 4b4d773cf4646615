//! The template context: what every template, built-in or a user's, sees (docs/report-context.md
//! documents it). The views are built from the results model (`rigel_results::view`) once per
//! render: the run's facts (`run`), each point (`point`, the depth and devices under it in
//! `depth`), each class at a point (`row`), each class over the plan (`class`) and the best points
//! and headline (`best`), shared between the lists that show them (`shared`). Templates read them
//! through objects converted on demand: the context (`lazy`), the results document (`doc`), and
//! one field of a view at a time (`fields`).

mod best;
mod class;
mod depth;
mod doc;
mod fields;
mod lazy;
mod point;
mod row;
mod run;
mod shared;

pub use best::{Best, Headline, headline};
pub use class::{ClassView, class_views};
pub use depth::DeviceView;
pub use doc::LazyDoc;
pub use lazy::{Context, Views};
pub use point::{DirView, Point, PointView, point_views};
pub use row::{ClassRow, Row};
pub use run::{run_view, shell_join};
pub use shared::Shared;
