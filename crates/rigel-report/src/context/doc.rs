//! The results document as templates see it (`doc`): each top-level field becomes a template value
//! when a template first reads it, instead of the whole document up front for every page. The
//! built-in templates read three small fields; a fleet's document holds every host's row at every
//! point, which a deep copy per rendered page held in memory (150 MB at 1,000 hosts). The two
//! fields that grow with the points, `plan` (its `points`) and `points`, are lists made one item
//! at a time (`fields`): reading `doc.points` of 100,000 points as one value took gigabytes.

use super::fields::{Fields, Seq, none};
use minijinja::Value;
use minijinja::value::{Enumerator, Object};
use rigel_results::ResultsDoc;
use std::sync::{Arc, OnceLock};

/// The document's fields in `results.json` order.
const FIELDS: [&str; 13] = [
    "schema_version",
    "rigel_version",
    "command",
    "started",
    "finished",
    "host",
    "targets",
    "spec_toml",
    "plan",
    "points",
    "fleet",
    "search",
    "provenance",
];

#[derive(Debug)]
pub struct LazyDoc {
    doc: Arc<ResultsDoc>,
    values: [OnceLock<Value>; FIELDS.len()],
}

/// The plan, its `points` made one at a time.
pub fn plan_value(doc: &Arc<ResultsDoc>) -> Value {
    Fields::value(
        doc.clone(),
        0,
        |d, _| d.plan(),
        |d, _, key| {
            (key == "points").then(|| {
                let d = d.clone();
                Seq::value(d.plan().points.len(), move |i| {
                    Value::from_serialize(&d.plan().points[i])
                })
            })
        },
    )
}

/// Every point's results, each read a field at a time.
fn points_value(doc: &Arc<ResultsDoc>) -> Value {
    let d = doc.clone();
    Seq::value(doc.points().len(), move |i| {
        Fields::value(d.clone(), i, |d, i| &d.points()[i], none)
    })
}

impl LazyDoc {
    pub fn value(doc: Arc<ResultsDoc>) -> Value {
        Value::from_object(LazyDoc {
            doc,
            values: Default::default(),
        })
    }

    /// Field `i` as a template value; none where `results.json` leaves it out.
    fn convert(&self, i: usize) -> Option<Value> {
        let d = &*self.doc;
        Some(match FIELDS[i] {
            "schema_version" => Value::from(d.schema_version()),
            "rigel_version" => Value::from(d.rigel_version()),
            "command" => Value::from_serialize(d.command()),
            "started" => Value::from(d.started()),
            "finished" => Value::from(d.finished()),
            "host" => Value::from_serialize(d.host()),
            "targets" => Value::from_serialize(d.targets()),
            "spec_toml" => Value::from(d.spec_toml()),
            "plan" => plan_value(&self.doc),
            "points" => points_value(&self.doc),
            "fleet" => Value::from_serialize(d.fleet()?),
            "search" => Value::from_serialize(d.search()?),
            "provenance" => Value::from_serialize(d.provenance()?),
            _ => return None,
        })
    }

    fn present(&self, i: usize) -> bool {
        match FIELDS[i] {
            "fleet" => self.doc.fleet().is_some(),
            "search" => self.doc.search().is_some(),
            "provenance" => self.doc.provenance().is_some(),
            _ => true,
        }
    }
}

impl Object for LazyDoc {
    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        let i = FIELDS.iter().position(|f| Some(*f) == key.as_str())?;
        if !self.present(i) {
            return None;
        }
        let cell = &self.values[i];
        if let Some(v) = cell.get() {
            return Some(v.clone());
        }
        let v = self.convert(i)?;
        Some(cell.get_or_init(|| v).clone())
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Values(
            (0..FIELDS.len())
                .filter(|i| self.present(*i))
                .map(|i| Value::from(FIELDS[i]))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_as_the_whole_document_would() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../..",
            "/tests/fixtures/results-basic.json"
        );
        let text = std::fs::read_to_string(path).expect("fixture");
        let mut doc: ResultsDoc = serde_json::from_str(&text).expect("a results document");
        doc.set_fleet(Some(rigel_results::FleetInfo {
            ranks: 2,
            hosts: Vec::new(),
        }));
        let lazy = LazyDoc::value(Arc::new(doc.clone()));
        let eager = Value::from_serialize(&doc);
        let json = |v: &Value| serde_json::to_value(v).expect("serializes");
        assert_eq!(json(&lazy), json(&eager));
        for key in ["rigel_version", "points", "plan", "fleet", "nothing"] {
            assert_eq!(
                lazy.get_attr(key).ok().map(|v| json(&v)),
                eager.get_attr(key).ok().map(|v| json(&v)),
                "{key}"
            );
        }
    }
}
