//! The handover in the order its reader needs (issue 42): page 1 the verdict, the answers with
//! the warnings that concern them beside them, then the system under test; page 2 the answers'
//! charts; then the appendix; no Headline cards repeating the answers; one unit for MiB/s.

use super::super::{Format, ReportOptions};
use super::render_to_strings;
use super::{fixtures_dir, load_fixture};

fn report(format: Format, file: &str) -> String {
    let doc = load_fixture(&fixtures_dir().join("results-quick-real-run.json"));
    render(&doc, format, file)
}

fn render(doc: &rigel_results::ResultsDoc, format: Format, file: &str) -> String {
    let opts = ReportOptions {
        formats: vec![format],
        ..ReportOptions::new("unused")
    };
    render_to_strings(doc, &opts)
        .unwrap()
        .into_iter()
        .find(|(f, _)| f.to_string_lossy() == file)
        .expect("the report")
        .1
}

fn at(text: &str, what: &str) -> usize {
    text.find(what)
        .unwrap_or_else(|| panic!("no {what:?} in\n{text}"))
}

#[test]
fn page_1_is_the_verdict_the_answers_and_the_system_page_2_the_answers_charts() {
    let md = report(Format::Markdown, "report.md");
    let pages: Vec<&str> = md.split("<!-- page -->").collect();
    let one = pages[0];
    assert!(
        at(one, "## Verdict") < at(one, "## Answers")
            && at(one, "## Answers") < at(one, "## System under test"),
        "{one}"
    );
    // The cache warning concerns every answer: said once, right after them, on page 1.
    assert!(
        at(one, "Warnings about every answer:") < at(one, "Warning (cache)")
            && at(one, "Warning (cache)") < at(one, "## System under test"),
        "{one}"
    );
    let two = pages[1];
    assert!(
        two.trim_start().starts_with("## Charts of the answers"),
        "{two}"
    );
    assert!(
        two.contains("(chart-iops.svg)") && two.contains("(chart-mbps.svg)"),
        "{two}"
    );
    assert!(
        !two.contains("chart-hockey"),
        "the hockey sticks are the appendix's: {two}"
    );
    let rest = pages[2..].join("");
    assert!(rest.contains("## Results per class") && rest.contains("## More charts"));
    assert!(rest.contains("(chart-hockey-small.svg)"), "{rest}");
    // Nothing repeats the answers, and MiB/s has one label.
    assert!(
        !md.contains("## Headline") && !md.contains("MB/s (MiB/s)"),
        "{md}"
    );
    let html = report(Format::Html, "report.html");
    assert!(!html.contains("class=\"card") && !html.contains("MB/s (MiB/s)"));
    assert!(
        at(&html, "<h2>Verdict</h2>") < at(&html, "<h2>Answers</h2>")
            && at(&html, "<h2>Answers</h2>") < at(&html, "<h2>System under test</h2>")
            && at(&html, "<h2>System under test</h2>")
                < at(&html, "<h2>Charts of the answers</h2>")
            && at(&html, "<h2>Charts of the answers</h2>")
                < at(&html, "<h2>Results per class</h2>"),
        "HTML order"
    );
}

/// A warning about several answers but not all (rigel's CPU at four points, two of them answers' points) is said
/// once after the answers, numbered, and each of those answers names it by its number; the
/// answers at the other points carry nothing.
#[test]
fn a_warning_about_several_answers_is_said_once_and_named_beside_each() {
    let path = fixtures_dir().join("results-quick-real-run.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("JSON");
    for p in json["points"].as_array_mut().expect("points") {
        if [2, 3, 4, 5].contains(&p["point"]["id"].as_u64().expect("id")) {
            p["cpu"]["user_s"] = 3.0.into();
        }
    }
    let doc = serde_json::from_value(json).expect("the results");
    for (format, file) in [
        (Format::Markdown, "report.md"),
        (Format::Html, "report.html"),
    ] {
        let text = render(&doc, format, file);
        let one = text.split("System under test").next().expect("page 1");
        assert_eq!(one.matches("the tool, not the storage").count(), 1, "{one}");
        assert!(
            at(one, "see warning 1 (cpu) below") < at(one, "Warnings about several answers:")
                && at(one, "Warnings about several answers:") < at(one, "Warning 1 (cpu)"),
            "{one}"
        );
    }
}

#[test]
fn the_sign_off_has_lines_to_write_on_and_says_when_no_one_was_named() {
    let md = report(Format::Markdown, "report.md");
    let sign = &md[at(&md, "## Sign-off")..];
    assert!(sign.contains("**Measured by**: not given"), "{sign}");
    assert_eq!(sign.matches("Name \\_\\_\\_").count(), 3, "{sign}");
    assert_eq!(sign.matches("Signature \\_\\_\\_").count(), 3, "{sign}");
    assert!(
        !sign.contains("| Role |"),
        "no table of 1 cm columns: {sign}"
    );
}
