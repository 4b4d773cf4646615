//! Run folders written by `record` and read back through its reader (`rigel_record::load`, the
//! one every command uses): closed, interrupted, newer, broken; and the reports an interrupted run
//! renders.

use super::super::{Format, ReportOptions};
use super::{fixture, render_to_strings};
use rigel_plan::SCHEMA_VERSION;
use rigel_record::{self as record, RecordError};
use rigel_results::ResultsDoc;
use std::path::Path;

fn doc() -> ResultsDoc {
    fixture::build(&fixture::scenarios().remove(0).1)
}

/// A run folder as `rigel run` leaves it after `points` finished (closed when `close`).
fn write_folder(dir: &Path, d: &ResultsDoc, points: usize, close: bool) {
    let header = d.header();
    let mut folder = record::RunFolder::create(dir, d.spec_toml(), d.plan(), &header).unwrap();
    for p in &d.points()[..points] {
        folder.append(p).unwrap();
    }
    if close {
        folder
            .finish(
                d,
                &rigel_judge::expect::evaluate(d),
                &rigel_judge::answers::evaluate(d),
            )
            .unwrap();
    }
}

#[test]
fn a_closed_run_loads_from_results_json() {
    let dir = tempfile::tempdir().unwrap();
    let d = doc();
    write_folder(dir.path(), &d, d.points().len(), true);
    let f = record::load(dir.path()).unwrap();
    assert!(f.complete, "{:?}", f.notes);
    assert!(f.notes.is_empty());
    assert_eq!(
        (&f.doc.plan(), &f.doc.command(), f.doc.points().len()),
        (&d.plan(), &d.command(), d.points().len())
    );
}

#[test]
fn an_interrupted_run_is_rebuilt_and_said_to_be_incomplete() {
    let dir = tempfile::tempdir().unwrap();
    let d = doc();
    write_folder(dir.path(), &d, 3, false);
    let f = record::load(dir.path()).unwrap();
    assert!(!f.complete);
    let ids: Vec<u32> = f.doc.points().iter().map(|p| p.point.id).collect();
    assert_eq!(ids, [1, 2, 3]);
    assert_eq!(
        (&f.doc.plan(), &f.doc.spec_toml(), &f.doc.host()),
        (&d.plan(), &d.spec_toml(), &d.host())
    );
    let notes = f.notes.join("\n");
    assert!(
        notes.contains("results.json is missing: the run did not finish"),
        "{notes}"
    );
    assert!(notes.contains("3 of 7 planned points finished"), "{notes}");
    // And the reports say so.
    let opts = ReportOptions {
        formats: vec![Format::Markdown, Format::Html],
        ..ReportOptions::new("x")
    };
    let files = render_to_strings(&f.doc, &opts).unwrap();
    assert!(
        files[0]
            .1
            .contains("**Incomplete run.** 3 of 7 planned points finished")
    );
    assert!(files.iter().any(|(_, t)| {
        t.contains("<strong>Incomplete run.</strong> 3 of 7 planned points finished")
    }));
}

#[test]
fn a_newer_schema_is_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let mut v = serde_json::to_value(doc()).unwrap();
    v["schema_version"] = serde_json::json!(SCHEMA_VERSION + 1);
    v["points"] = serde_json::json!("a shape this rigel does not know");
    std::fs::write(dir.path().join("results.json"), v.to_string()).unwrap();
    let err = record::load(dir.path()).unwrap_err();
    assert!(matches!(err, RecordError::NewerSchema { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("newer than this rigel understands"),
        "{err}"
    );
}

#[test]
fn not_a_run_folder_and_bad_json_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let err = record::load(dir.path()).unwrap_err();
    assert!(
        err.to_string().contains("is not a rigel run folder"),
        "{err}"
    );
    std::fs::write(
        dir.path().join("results.json"),
        "{\n  \"schema_version\": 1,\n  oops\n}",
    )
    .unwrap();
    let err = record::load(dir.path()).unwrap_err();
    let RecordError::Invalid { message, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(message.contains("line 3"), "{err}");
}
