//! Loading run folders: whole, interrupted (rebuilt from plan.json + results.jsonl), newer, broken.

use super::super::{ReportError, load_run_folder, load_run_folder_status};
use super::fixture;
use crate::plan::SCHEMA_VERSION;

fn doc() -> crate::stats::ResultsDoc {
    fixture::build(&fixture::scenarios().remove(0).1)
}

#[test]
fn a_closed_run_loads_from_results_json() {
    let dir = tempfile::tempdir().unwrap();
    let d = doc();
    std::fs::write(
        dir.path().join("results.json"),
        serde_json::to_string(&d).unwrap(),
    )
    .unwrap();
    let f = load_run_folder_status(dir.path()).unwrap();
    assert!(f.complete, "{:?}", f.notes);
    assert!(f.notes.is_empty());
    assert_eq!(
        (&f.doc.plan, &f.doc.command, f.doc.points.len()),
        (&d.plan, &d.command, d.points.len())
    );
}

#[test]
fn an_interrupted_run_is_rebuilt_and_said_to_be_incomplete() {
    let dir = tempfile::tempdir().unwrap();
    let d = doc();
    std::fs::write(
        dir.path().join("plan.json"),
        serde_json::to_string_pretty(&d.plan).unwrap(),
    )
    .unwrap();
    std::fs::write(dir.path().join("spec.toml"), &d.spec_toml).unwrap();
    let mut jsonl = String::new();
    for p in &d.points[..3] {
        jsonl.push_str(&serde_json::to_string(p).unwrap());
        jsonl.push('\n');
    }
    jsonl.push_str("{\"point\": {\"id\": 4, \"sw"); // killed mid-write
    std::fs::write(dir.path().join("results.jsonl"), jsonl).unwrap();
    let f = load_run_folder_status(dir.path()).unwrap();
    assert!(!f.complete);
    let ids: Vec<u32> = f.doc.points.iter().map(|p| p.point.id).collect();
    assert_eq!(ids, [1, 2, 3]);
    assert_eq!(f.doc.plan, d.plan);
    assert_eq!(f.doc.spec_toml, d.spec_toml);
    assert_eq!(f.doc.started, d.points[0].started);
    let notes = f.notes.join("\n");
    assert!(
        notes.contains("results.json is missing: the run did not finish"),
        "{notes}"
    );
    assert!(notes.contains("line 4 is cut short"), "{notes}");
    assert!(notes.contains("3 of 7 planned points finished"), "{notes}");
    // And the reports say so.
    let md = super::super::render_to_strings(
        &f.doc,
        &super::super::ReportOptions {
            formats: vec![super::super::Format::Markdown],
            ..super::super::ReportOptions::new("x")
        },
    )
    .unwrap();
    assert!(
        md[0]
            .1
            .contains("**Incomplete run.** 3 of 7 planned points finished")
    );
}

#[test]
fn a_newer_schema_is_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let mut v = serde_json::to_value(doc()).unwrap();
    v["schema_version"] = serde_json::json!(SCHEMA_VERSION + 1);
    v["something_new"] = serde_json::json!({"shape": "unknown"});
    std::fs::write(dir.path().join("results.json"), v.to_string()).unwrap();
    let err = load_run_folder(dir.path()).unwrap_err();
    assert!(matches!(err, ReportError::NewerSchema { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("newer than this rigel understands"),
        "{err}"
    );
}

#[test]
fn not_a_run_folder_and_bad_json_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let err = load_run_folder(dir.path()).unwrap_err();
    assert!(matches!(err, ReportError::NotARunFolder { .. }), "{err:?}");
    std::fs::write(
        dir.path().join("results.json"),
        "{\n  \"schema_version\": 1,\n  oops\n}",
    )
    .unwrap();
    let err = load_run_folder(dir.path()).unwrap_err();
    let ReportError::BadJson { line, .. } = err else {
        panic!("{err:?}")
    };
    assert_eq!(line, 3);
}
