//! The template context as an object read on demand: each top-level name is converted when a
//! template first reads it, and the lists that grow with the points (`points`, a class's `rows`, a
//! group's `rows`, ORION's `points` and `hist`) hand out one item at a time, each read a field at a
//! time (`fields`). The whole context converted up front took about 90 KB a point, per page:
//! 100,000 points did not fit in 11 GB. docs/report-context.md documents the names.

use super::doc::plan_value;
use super::fields::{Fields, Seq, none};
use super::run::{RigelInfo, RunView};
use crate::chart::Chart;
use crate::fleet::FleetView;
use crate::handover::Handover;
use crate::orion::OrionView;
use crate::rows::{ClassView, Headline, Point, Row, Shared};
use minijinja::Value;
use minijinja::value::{Enumerator, Object};
use rigel_results::ResultsDoc;
use rigel_results::stats::Warning;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// The views a report is rendered from, computed once and shared by every page.
pub struct Views {
    pub run: RunView,
    pub points: Vec<Point>,
    pub classes: Vec<Shared<ClassView>>,
    pub headline: Headline,
    pub charts: Vec<Chart>,
    /// What the charts leave out and why (`chart::chart_notes`).
    pub chart_notes: Vec<String>,
    /// One per `[sweep]` combination; never empty.
    pub orion: Vec<OrionView>,
    pub requirements: Option<serde_json::Value>,
    pub fleet: Option<FleetView>,
    pub warnings: Vec<Warning>,
    pub si_units: bool,
    pub handover: Handover,
}

/// The context's names, in the order `{{ __context__ }}`-style dumps list them.
const KEYS: [&str; 20] = [
    "rigel",
    "format",
    "doc",
    "plan",
    "run",
    "host",
    "targets",
    "classes",
    "points",
    "headline",
    "charts",
    "chart",
    "chart_notes",
    "orion",
    "orion_matrices",
    "requirements",
    "fleet",
    "warnings",
    "si_units",
    "handover",
];

/// Everything a template sees, for one page: `format` is the output being rendered, `orion` the
/// ORION matrix its `orion` names.
pub struct Context {
    views: Arc<Views>,
    doc: Arc<ResultsDoc>,
    doc_value: Value,
    format: String,
    orion: usize,
    values: [OnceLock<Value>; KEYS.len()],
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Context")
    }
}

impl Context {
    pub fn value(
        views: Arc<Views>,
        doc: Arc<ResultsDoc>,
        doc_value: Value,
        format: &str,
        orion: usize,
    ) -> Value {
        Value::from_object(Context {
            views,
            doc,
            doc_value,
            format: format.to_string(),
            orion,
            values: Default::default(),
        })
    }

    fn convert(&self, key: &str) -> Option<Value> {
        let v = &self.views;
        Some(match key {
            "rigel" => Value::from_serialize(RigelInfo {
                version: env!("CARGO_PKG_VERSION"),
            }),
            "format" => Value::from(self.format.as_str()),
            "doc" => self.doc_value.clone(),
            "plan" => plan_value(&self.doc),
            "run" => Value::from_serialize(&v.run),
            "host" => Value::from_serialize(self.doc.host()),
            "targets" => Value::from_serialize(self.doc.targets()),
            "classes" => {
                let views = v.clone();
                Seq::value(v.classes.len(), move |i| class_value(&views.classes[i]))
            }
            "points" => {
                let views = v.clone();
                Seq::value(v.points.len(), move |i| point_value(&views.points[i]))
            }
            "headline" => Value::from_serialize(&v.headline),
            "charts" => Value::from_serialize(&v.charts),
            "chart" => Value::from_serialize(
                v.charts
                    .iter()
                    .map(|c| (c.name.as_str(), c))
                    .collect::<BTreeMap<_, _>>(),
            ),
            "chart_notes" => Value::from_serialize(&v.chart_notes),
            "orion" => orion_value(v.clone(), self.orion),
            "orion_matrices" => {
                let views = v.clone();
                Seq::value(v.orion.len(), move |i| orion_value(views.clone(), i))
            }
            "requirements" => Value::from_serialize(&v.requirements),
            "fleet" => Value::from_serialize(&v.fleet),
            "warnings" => Value::from_serialize(&v.warnings),
            "si_units" => Value::from(v.si_units),
            "handover" => Value::from_serialize(&v.handover),
            _ => return None,
        })
    }
}

impl Object for Context {
    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        let i = KEYS.iter().position(|k| Some(*k) == key.as_str())?;
        if let Some(v) = self.values[i].get() {
            return Some(v.clone());
        }
        let v = self.convert(KEYS[i])?;
        Some(self.values[i].get_or_init(|| v).clone())
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Str(&KEYS)
    }
}

/// A class row, read a field at a time.
pub fn row_value(r: &Row) -> Value {
    Fields::value(r.0.clone(), 0, |r, _| r, none)
}

/// A point: its `classes` one row at a time.
fn point_value(p: &Point) -> Value {
    Fields::value(
        p.0.clone(),
        0,
        |p, _| p,
        |p, _, key| {
            (key == "classes").then(|| {
                let p = p.clone();
                Seq::value(p.classes.len(), move |i| row_value(&p.classes[i]))
            })
        },
    )
}

/// A class: its `rows` and each group's `rows` one at a time.
fn class_value(c: &Shared<ClassView>) -> Value {
    Fields::value(
        c.0.clone(),
        0,
        |c, _| c,
        |c, _, key| match key {
            "rows" => {
                let c = c.clone();
                Some(Seq::value(c.rows.len(), move |i| row_value(&c.rows[i])))
            }
            "groups" => {
                let c = c.clone();
                Some(Seq::value(c.groups.len(), move |j| {
                    Fields::value(
                        c.clone(),
                        j,
                        |c, j| &c.groups[j],
                        |c, j, key| {
                            (key == "rows").then(|| {
                                let c = c.clone();
                                Seq::value(c.groups[j].rows.len(), move |k| {
                                    row_value(&c.groups[j].rows[k])
                                })
                            })
                        },
                    )
                }))
            }
            _ => None,
        },
    )
}

/// ORION matrix `i`: its `points` and `hist` blocks one at a time.
fn orion_value(views: Arc<Views>, i: usize) -> Value {
    Fields::value(
        views,
        i,
        |v, i| &v.orion[i],
        |v, i, key| match key {
            "points" => {
                let v = v.clone();
                let n = v.orion[i].points.len();
                Some(Seq::value(n, move |j| point_value(&v.orion[i].points[j])))
            }
            "hist" => {
                let v = v.clone();
                let n = v.orion[i].hist.len();
                Some(Seq::value(n, move |j| {
                    Value::from_serialize(&v.orion[i].hist[j])
                }))
            }
            _ => None,
        },
    )
}
