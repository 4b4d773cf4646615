//! The spec JSON Schema: `rigel schema` is the checked-in file, every shipped spec validates
//! against it (with a JSON Schema validator, as an editor would), and a key typo does not.

use super::builder::{repo, rigel, shipped_specs};
use serde_json::Value;

const FILE: &str = "schema/rigel-spec.schema.json";

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join(FILE)).expect("the checked-in schema");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::draft202012::new(&schema).expect("a valid draft 2020-12 schema")
}

/// A spec as the validator sees it: TOML turned into JSON, as taplo does.
fn as_json(toml_text: &str) -> Value {
    toml::from_str(toml_text).expect("the spec is TOML")
}

fn errors(v: &jsonschema::Validator, toml_text: &str) -> Vec<String> {
    v.iter_errors(&as_json(toml_text))
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
#[serial_test::parallel]
fn rigel_schema_prints_the_checked_in_file() {
    let out = rigel().arg("schema").run().code(0);
    let on_disk = std::fs::read_to_string(repo().join(FILE)).unwrap();
    assert!(
        out.stdout == on_disk,
        "{FILE} is stale: run `cargo run -- schema > {FILE}`"
    );
}

#[test]
#[serial_test::parallel]
fn every_shipped_spec_validates() {
    let v = validator();
    let mut checked = 0;
    for path in shipped_specs() {
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            errors(&v, &text),
            Vec::<String>::new(),
            "{}",
            path.display()
        );
        checked += 1;
    }
    assert!(checked >= 9);
}

#[test]
#[serial_test::parallel]
fn a_spec_with_a_schema_line_validates_and_a_key_typo_does_not() {
    let v = validator();
    let good = "#:schema ../schema/rigel-spec.schema.json\n[[target]]\npath = \"/dev/sdb\"\n\n[run]\nduration = \"10s\"\n\n[class.small]\nsize = \"8KiB\"\naccess = \"random\"\n\n[matrix]\nshape = \"basic\"\nsmall = \"1..=8 x2\"\n";
    assert_eq!(errors(&v, good), Vec::<String>::new());
    let typo = good.replace("duration", "duraton");
    let found = errors(&v, &typo);
    assert!(
        found
            .iter()
            .any(|e| e.contains("duraton") && e.contains("/run")),
        "{found:?}"
    );
    let bad_value = good.replace("\"random\"", "\"randon\"");
    assert!(!errors(&v, &bad_value).is_empty(), "an unknown access word");
    let top_typo = good.replace("[matrix]", "[matrx]");
    assert!(!errors(&v, &top_typo).is_empty(), "an unknown table");
}
