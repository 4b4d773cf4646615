//! The verdicts as JUnit XML, the file GitLab, Jenkins and GitHub test reporters read: one test
//! suite for the run, one test case per requirement. A failed requirement, and one without data
//! (it cannot be met, and the run exits 3 for it too), is a `<failure>` whose message carries the
//! measured value and the margin. quick-xml writes the document and escapes every value. The
//! verdicts themselves are judged by `rigel_judge::expect`; this only writes them.

use crate::ReportError;
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};
use rigel_judge::expect::{Status, Verdict, evaluate};
use rigel_results::ResultsDoc;
use std::io;
use std::path::Path;

/// The file `--format junit` writes into the output folder (`rigel run --junit FILE` picks its own).
pub const JUNIT_FILE: &str = "junit.xml";

/// The JUnit XML of the verdicts judged on `doc`; `name` is the file it goes to (for errors).
pub fn junit_text(doc: &ResultsDoc, name: &Path) -> Result<String, ReportError> {
    junit(doc, &evaluate(doc)).map_err(|source| ReportError::Write {
        path: name.to_path_buf(),
        source,
    })
}

/// Writes the JUnit XML of `doc`'s verdicts to `path` (any folder, e.g. where CI collects it).
pub fn write_junit(doc: &ResultsDoc, path: &Path) -> Result<(), ReportError> {
    let xml = junit_text(doc, path)?;
    write_at(path, xml.as_bytes())
}

/// A file the user named (`--junit FILE`, `rigel fio --output FILE`), replaced atomically beneath
/// its folder: a link planted under its name is not followed.
pub(crate) fn write_at(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    let parent = path.parent().unwrap_or(Path::new(""));
    let Some(name) = path.file_name() else {
        return Err(ReportError::Write {
            path: path.to_path_buf(),
            source: io::ErrorKind::InvalidInput.into(),
        });
    };
    Ok(rigel_fs::Dir::open(parent)?.write_atomic(name, bytes)?)
}

/// The JUnit XML document of `verdicts`, judged on `doc`.
fn junit(doc: &ResultsDoc, verdicts: &[Verdict]) -> io::Result<String> {
    let failures = verdicts.iter().filter(|v| !v.passed).count().to_string();
    let tests = verdicts.len().to_string();
    let suite = clean(&doc.plan().name);
    let class = format!("rigel.{suite}");
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    w.create_element("testsuites")
        .with_attributes([
            ("name", "rigel"),
            ("tests", tests.as_str()),
            ("failures", failures.as_str()),
            ("errors", "0"),
        ])
        .write_inner_content(|w| {
            let mut s = w.create_element("testsuite").with_attributes([
                ("name", suite.as_str()),
                ("tests", tests.as_str()),
                ("failures", failures.as_str()),
                ("errors", "0"),
                ("skipped", "0"),
            ]);
            if !doc.started().is_empty() {
                s = s.with_attribute(("timestamp", clean(doc.started()).as_str()));
            }
            s.write_inner_content(|w| {
                w.create_element("properties").write_inner_content(|w| {
                    let version = clean(doc.rigel_version());
                    let command = clean(&doc.command().join(" "));
                    for (name, value) in [("rigel_version", version), ("command", command)] {
                        w.create_element("property")
                            .with_attributes([("name", name), ("value", value.as_str())])
                            .write_empty()?;
                    }
                    Ok(())
                })?;
                verdicts.iter().try_for_each(|v| case(w, &class, v))
            })?;
            Ok(())
        })?;
    let mut xml = w.into_inner();
    xml.push(b'\n');
    String::from_utf8(xml).map_err(io::Error::other)
}

/// One requirement: a test case named by its key and comparison, failed when not met.
fn case(w: &mut Writer<Vec<u8>>, class: &str, v: &Verdict) -> io::Result<()> {
    let name = clean(&format!("{} {}", v.key, v.requirement));
    let details = clean(&details(v));
    w.create_element("testcase")
        .with_attributes([("classname", class), ("name", name.as_str()), ("time", "0")])
        .write_inner_content(|w| {
            let kind = match v.status {
                Status::Pass => {
                    w.create_element("system-out")
                        .write_text_content(BytesText::new(&details))?;
                    return Ok(());
                }
                Status::NoData => "no_data",
                Status::Fail => "fail",
            };
            w.create_element("failure")
                .with_attributes([("message", clean(&summary(v)).as_str()), ("type", kind)])
                .write_text_content(BytesText::new(&details))?;
            Ok(())
        })?;
    Ok(())
}

/// One line: what was measured against what was required, and by how much it misses.
fn summary(v: &Verdict) -> String {
    match v.status {
        Status::NoData => format!(
            "no data for {} {}: {}",
            v.key,
            v.requirement,
            if v.note.is_empty() {
                "no value"
            } else {
                &v.note
            }
        ),
        _ => {
            let mut s = format!("measured {}, required {}", v.measured_text, v.requirement);
            if !v.margin_text.is_empty() {
                s.push_str(&format!(", margin {}", v.margin_text));
            }
            if let Some(p) = &v.point {
                s.push_str(&format!(" at {p}"));
            }
            s
        }
    }
}

/// Every field of the verdict, one per line (the body of the failure and of the case's output).
fn details(v: &Verdict) -> String {
    let num = |x: Option<f64>| x.map_or_else(|| "-".to_owned(), |x| format!("{x}"));
    let mut lines = vec![
        format!("requirement: {} {}", v.key, v.requirement),
        format!("status: {}", v.status.word()),
        format!(
            "measured: {} ({} {})",
            v.measured_text,
            num(v.measured),
            v.unit
        ),
    ];
    if v.margin.is_some() {
        let text = if v.margin_text.is_empty() { "" } else { " " };
        lines.push(format!(
            "margin:{text}{} ({} {})",
            v.margin_text,
            num(v.margin),
            v.unit
        ));
    }
    if let Some(p) = &v.point {
        lines.push(format!(
            "point: {p} (id {})",
            num(v.point_id.map(f64::from))
        ));
    }
    lines.push(format!("points checked: {}", v.points_checked));
    if !v.note.is_empty() {
        lines.push(format!("note: {}", v.note));
    }
    lines.join("\n")
}

/// XML 1.0 has no place for most control characters, escaped or not: drop them.
fn clean(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r'))
        .collect()
}
