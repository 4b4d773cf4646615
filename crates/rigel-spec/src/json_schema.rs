//! The JSON Schema (draft 2020-12) of a spec, generated from the key table the loader checks
//! against ([`super::keys`]): editors (taplo, Even Better TOML) complete keys and show descriptions.

use super::keys::{self, Key, Kind};
use serde_json::{Map, Value, json};

/// Where the checked-in schema lives in the repository.
pub const FILE: &str = "schema/rigel-spec.schema.json";

/// The schema as pretty-printed JSON text with a final newline (what `rigel schema` prints).
pub fn text() -> String {
    serde_json::to_string_pretty(&schema()).unwrap_or_default() + "\n"
}

pub fn schema() -> Value {
    let table_doc = |name: &str| {
        keys::TABLES
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("", |(_, d)| *d)
    };
    let mut top = Map::new();
    top.insert("spec".into(), object(keys::SPEC, table_doc("spec")));
    top.insert(
        "vars".into(),
        json!({
            "description": table_doc("vars"),
            "type": "object",
            "additionalProperties": {"type": ["string", "integer", "number", "boolean"]}
        }),
    );
    let mut target = object(keys::TARGET, "One target");
    target["required"] = json!(["path"]);
    top.insert(
        "target".into(),
        json!({"description": table_doc("target"), "type": "array", "minItems": 1, "items": target}),
    );
    top.insert("volume".into(), object(keys::VOLUME, table_doc("volume")));
    let mut run = object(keys::RUN, table_doc("run"));
    run["properties"]["steady"]["required"] = json!(["metric"]);
    top.insert("run".into(), run);
    let mut class = object(keys::CLASS, "One I/O class");
    class["required"] = json!(["size"]);
    class["properties"]["burst"]["required"] = json!(["ios", "idle"]);
    top.insert(
        "class".into(),
        json!({"description": table_doc("class"), "type": "object", "additionalProperties": class}),
    );
    top.insert(
        "matrix".into(),
        json!({
            "description": table_doc("matrix"),
            "type": "object",
            "properties": {"shape": with_doc(one_of(keys::SHAPES), "Which combinations of the classes' levels run", Some("basic"))},
            "additionalProperties": {
                "description": "A load sweep: \"1..=32 x2\", \"1, 2, 4\", \"orion(5 * targets)\"; 0 = idle",
                "type": ["string", "integer"]
            }
        }),
    );
    let params = keys::SWEEP_PARAMS.join("|");
    top.insert(
        "sweep".into(),
        json!({
            "description": table_doc("sweep"),
            "type": "object",
            "propertyNames": {"pattern": format!("^[^.]+\\.({params})$")},
            "additionalProperties": {"type": ["string", "integer"]}
        }),
    );
    top.insert(
        "expect".into(),
        json!({
            "description": table_doc("expect"),
            "type": "object",
            "additionalProperties": {"type": ["string", "object"]}
        }),
    );
    top.insert(
        "answers".into(),
        json!({
            "description": table_doc("answers"),
            "type": "object",
            "additionalProperties": object(keys::ANSWERS, "One answer")
        }),
    );
    let mut search = object(keys::SEARCH, table_doc("search"));
    search["required"] = json!(["target", "low", "high"]);
    top.insert("search".into(), search);
    top.insert(
        "precondition".into(),
        object(keys::PRECONDITION, table_doc("precondition")),
    );
    top.insert("drain".into(), object(keys::DRAIN, table_doc("drain")));
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "rigel spec",
        "description": "A rigel workload spec (TOML): targets, I/O classes, load matrix, sweeps and requirements",
        "type": "object",
        "properties": top,
        "additionalProperties": false
    })
}

/// A table with exactly `keys`.
fn object(keys: &[Key], description: &str) -> Value {
    let properties: Map<String, Value> = keys
        .iter()
        .map(|k| {
            (
                k.name.to_owned(),
                with_doc(value(k.kind), k.description, k.default),
            )
        })
        .collect();
    json!({
        "description": description,
        "type": "object",
        "properties": properties,
        "additionalProperties": false
    })
}

fn with_doc(mut v: Value, description: &str, default: Option<&str>) -> Value {
    v["description"] = json!(description);
    if let Some(d) = default {
        // Defaults are shown as written in a spec: `true` and numbers as TOML values, others as text.
        v["default"] = serde_json::from_str(d).unwrap_or_else(|_| json!(d));
    }
    v
}

/// `${var}` may stand for any value a string can hold.
const VAR: &str = "\\$\\{";

fn value(kind: Kind) -> Value {
    match kind {
        Kind::Text | Kind::Mix => json!({"type": "string"}),
        Kind::Paths | Kind::Names => {
            json!({"type": ["string", "array"], "items": {"type": "string"}})
        }
        Kind::Bool => json!({"type": "boolean"}),
        Kind::Integer => json!({"type": "integer", "minimum": 0}),
        Kind::Size | Kind::Duration | Kind::Count | Kind::Rate => {
            json!({"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0}]})
        }
        Kind::OneOf(words) => one_of(words),
        Kind::BoolOr(words) => {
            json!({"anyOf": [{"type": "boolean"}, {"enum": words}, {"type": "string", "pattern": VAR}]})
        }
        Kind::Table(keys) => object(keys, ""),
    }
}

fn one_of(words: &[&str]) -> Value {
    json!({"anyOf": [{"enum": words}, {"type": "string", "pattern": VAR}]})
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_checked_in_schema_is_current() {
        let path =
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(super::FILE);
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == super::text(),
            "{} is stale: run `cargo run -- schema > {}`",
            super::FILE,
            super::FILE
        );
    }
}
