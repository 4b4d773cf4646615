//! Verdicts in files: a real run with requirements writes them into results.json and, with
//! `--junit FILE`, as JUnit XML that parses and holds one failing test case per failed requirement;
//! `rigel report --format junit` writes the same from the folder alone; `rigel check --format json`
//! prints diagnostics for editors and CI.

use super::builder::{repo, rigel};
use super::scenario::Scenario;
use quick_xml::Reader;
use quick_xml::events::Event;
use serde_json::Value;
use std::path::Path;

/// A test case of a JUnit file: its name, and its failure's message when it failed.
#[derive(Debug)]
struct Case {
    name: String,
    failure: Option<String>,
}

/// Parses a JUnit XML file (failing the test on malformed XML) into its test cases.
fn cases(path: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path).expect("the JUnit file");
    let mut reader = Reader::from_str(&text);
    let mut out: Vec<Case> = Vec::new();
    let attr = |e: &quick_xml::events::BytesStart<'_>, name: &str| -> Option<String> {
        e.attributes()
            .map(|a| a.expect("a well-formed attribute"))
            .find(|a| a.key.as_ref() == name.as_bytes())
            .map(|a| a.unescape_value().expect("an escaped value").into_owned())
    };
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == b"testcase" => {
                out.push(Case {
                    name: attr(&e, "name").expect("a test case name"),
                    failure: None,
                });
            }
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == b"failure" => {
                let case = out.last_mut().expect("a failure inside a test case");
                case.failure = Some(attr(&e, "message").expect("a failure message"));
            }
            Event::Eof => return out,
            _ => {}
        }
    }
}

#[test]
#[serial_test::parallel]
fn a_failed_requirement_is_a_failing_junit_case_and_a_verdict_in_results_json() {
    let tmp = Scenario::new();
    let spec = tmp.path().join("j.toml");
    // Two requirements no storage meets (a trillion IOPS, every I/O within a nanosecond) and one
    // every run that completes meets.
    let text = format!(
        "[spec]\nname = \"j & <co>\"\n\n[[target]]\npath = \"{}/data.bin\"\nsize = \"16MiB\"\n\n\
         [run]\nduration = \"300ms\"\n\n[class.small]\nsize = \"4KiB\"\n\n[matrix]\nsmall = \"1\"\n\n\
         [expect]\n\"small.iops\" = \">= 1000000000000\"\n\"small.latency.max @ all\" = \"<= 1ns\"\n\
         errors = \"== 0\"\n",
        tmp.path().display()
    );
    std::fs::write(&spec, text).expect("spec written");
    let dir = tmp.path().join("run");
    let xml = tmp.path().join("out.xml");
    rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(&dir)
        .arg("--junit")
        .arg(&xml)
        .run()
        .code(3);

    let got = cases(&xml);
    assert_eq!(got.len(), 3, "{got:?}");
    let failed: Vec<&str> = got
        .iter()
        .filter(|c| c.failure.is_some())
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(
        failed,
        [
            "small.iops >= 1000000000000",
            "small.latency.max @ all <= 1ns"
        ],
        "{got:?}"
    );
    for c in got.iter().filter(|c| c.failure.is_some()) {
        let m = c.failure.as_deref().unwrap_or_default();
        assert!(
            m.starts_with("measured ") && m.contains(", margin -"),
            "{m}"
        );
    }
    let raw = std::fs::read_to_string(&xml).expect("the JUnit file");
    assert!(raw.contains("name=\"j &amp; &lt;co&gt;\""), "{raw}");

    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("results.json")).expect("results.json"),
    )
    .expect("results.json parses");
    let verdicts = doc["verdicts"]
        .as_array()
        .expect("verdicts in results.json");
    let status: Vec<&str> = verdicts
        .iter()
        .map(|v| v["status"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(status, ["fail", "fail", "pass"]);
    let iops = &verdicts[0];
    assert_eq!(iops["key"], "small.iops");
    assert!(iops["measured"].as_f64().is_some_and(|x| x > 0.0), "{iops}");
    assert!(iops["margin"].as_f64().is_some_and(|x| x < 0.0), "{iops}");
    assert_eq!(iops["point"], "small=1");

    // The folder alone gives the same cases.
    rigel()
        .arg("report")
        .arg(&dir)
        .args(["--format", "junit"])
        .run()
        .code(0);
    let again = cases(&dir.join("junit.xml"));
    let names = |c: &[Case]| -> Vec<(String, bool)> {
        c.iter()
            .map(|c| (c.name.clone(), c.failure.is_some()))
            .collect()
    };
    assert_eq!(names(&again), names(&got));
}

#[test]
#[serial_test::parallel]
fn check_prints_diagnostics_as_json() {
    let out = rigel()
        .cwd(repo().join("tests/broken"))
        .args([
            "check",
            "--format",
            "json",
            "duration-sub-millisecond.toml",
            "workers-too-many.toml",
        ])
        .run()
        .code(2);
    let records: Value = serde_json::from_str(&out.stdout).expect("JSON on stdout");
    let records = records.as_array().expect("an array of diagnostics");
    assert_eq!(records.len(), 2, "{records:?}");
    let first = &records[0];
    assert_eq!(first["file"], "duration-sub-millisecond.toml");
    assert_eq!(first["line"], 10);
    assert_eq!(first["column"], 12);
    assert_eq!(first["severity"], "error");
    assert!(first["hint"].as_str().is_some_and(|h| !h.is_empty()));
    assert_eq!(records[1]["file"], "workers-too-many.toml");
    assert_eq!(records[1]["line"], 11);
    // A valid spec prints an empty array and exits 0.
    let out = rigel()
        .args(["check", "--format", "json"])
        .arg(repo().join("specs/quick.toml"))
        .run()
        .code(0);
    assert_eq!(out.stdout.trim(), "[]");
}
