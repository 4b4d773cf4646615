//! The views templates list, built once per render from the results model
//! (`rigel_results::view`), one file per view: a point (`point`, the loads and `[sweep]` values it
//! ran with in `load`, the depth and devices under it in `depth`), a class at a point (`row`: every
//! row carries its class's effective parameters after `[sweep]` and every direction's figures), a
//! class over the plan (`class`) and the best points and headline (`best`, the model's one rule),
//! shared between the lists that show them (`shared`). The context (`context/`) hands them to
//! templates; the charts, ORION's files and the handover read them too.

mod best;
mod class;
mod depth;
mod load;
mod point;
mod row;
mod shared;

pub use best::{Headline, headline};
pub use class::{ClassView, class_views};
pub use point::{Point, PointView, point_views};
pub use row::{ClassRow, DirView, Row};
pub use shared::Shared;
