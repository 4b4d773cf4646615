//! User templates: a file or a folder gets the documented context; errors name the file and line.

use super::super::{Format, ReportError, ReportOptions, render};
use super::{fixture, fixtures_dir, load_fixture};

fn opts(dir: &std::path::Path, template: std::path::PathBuf) -> ReportOptions {
    ReportOptions {
        formats: vec![],
        template: Some(template),
        ..ReportOptions::new(dir.join("out"))
    }
}

#[test]
fn a_user_template_file_renders_with_the_documented_context() {
    let doc = load_fixture(&fixtures_dir().join("results-basic.json"));
    let dir = tempfile::tempdir().unwrap();
    let tpl = dir.path().join("brief.txt.j2");
    std::fs::write(
        &tpl,
        "{{ run.name }} on {{ host.hostname }}: {{ headline.max_iops.value | thousands }} IOPS at {{ headline.max_iops.label }}\n\
         {% for c in classes %}{{ c.name }}={{ c.size | bytes }} {% endfor +%}\n\
         {{ orion.prefix }} {{ chart.iops.file }} {{ points | length }} points; {{ 97677 | lat }}; {{ printf('%05.1f', 3.14159) }}\n\
         {{ doc.schema_version }} {{ plan.matrix.shape }} {{ format }} {{ requirements is none }}\n",
    )
    .unwrap();
    let written = render(&doc, &opts(dir.path(), tpl)).unwrap();
    let out = dir.path().join("out/brief.txt");
    assert!(written.contains(&out), "{written:?}");
    let text = std::fs::read_to_string(out).unwrap();
    let best = doc
        .points()
        .iter()
        .flat_map(|p| &p.classes)
        .map(|c| c.total.iops)
        .fold(0.0, f64::max);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(
            format!(
                "orion-simple on db-test-01: {} IOPS at small=5 large=0",
                rigel_expr::units::thousands(best)
            )
            .as_str()
        )
    );
    assert_eq!(lines.next(), Some("small=8 KiB large=1 MiB "));
    assert_eq!(
        lines.next(),
        Some("orion-simple_20261129_2122 chart-iops.svg 7 points; 97.7 µs; 003.1")
    );
    // The basic fixture states requirements: they arrive judged.
    assert_eq!(lines.next(), Some("1 basic user False"));
    // The charts a user template may link to are written beside it.
    assert!(dir.path().join("out/chart-iops.svg").is_file());
}

#[test]
fn a_user_template_folder_renders_every_file_and_uses_partials() {
    let doc = fixture::build(&fixture::scenarios().remove(0).1);
    let dir = tempfile::tempdir().unwrap();
    let tpl = dir.path().join("tpl");
    std::fs::create_dir_all(tpl.join("_parts")).unwrap();
    std::fs::create_dir_all(tpl.join("csv")).unwrap();
    std::fs::write(tpl.join("_parts/row.txt"), "{{ p.id }};{{ p.label }}").unwrap();
    std::fs::write(
        tpl.join("csv/{{ orion.testname }}-points.csv.jinja"),
        "{% for p in points %}\n{% include '_parts/row.txt' %}\n\n{% endfor %}",
    )
    .unwrap();
    std::fs::write(tpl.join("index.md"), "# {{ run.name }}\n").unwrap();
    let written = render(&doc, &opts(dir.path(), tpl)).unwrap();
    let csv = dir.path().join("out/csv/orion-simple-points.csv");
    assert!(written.contains(&csv), "{written:?}");
    assert_eq!(
        std::fs::read_to_string(csv).unwrap().lines().next(),
        Some("1;small=1 large=0")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out/index.md")).unwrap(),
        "# orion-simple\n"
    );
    assert!(
        !dir.path().join("out/_parts").exists(),
        "partials are not outputs"
    );
}

fn broken(source: &str) -> ReportError {
    let doc = fixture::build(&fixture::scenarios().remove(0).1);
    let dir = tempfile::tempdir().unwrap();
    let tpl = dir.path().join("broken.md");
    std::fs::write(&tpl, source).unwrap();
    render(&doc, &opts(dir.path(), tpl)).unwrap_err()
}

#[test]
fn a_syntax_error_names_the_template_and_line() {
    let err = broken("# {{ run.name }}\n\nfine\n{% for p in points %}\n{{ p.id }\n{% endfor %}\n");
    let ReportError::Template { name, line, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!((name.as_str(), *line), ("broken.md", Some(5)));
    assert!(
        err.to_string()
            .starts_with("template broken.md, line 5: syntax error"),
        "{err}"
    );
}

#[test]
fn an_unknown_variable_names_the_template_and_line() {
    let err = broken("# {{ run.name }}\n{{ run.nmae }}\n");
    let ReportError::Template { name, line, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!((name.as_str(), *line), ("broken.md", Some(2)));
    assert!(err.to_string().contains("undefined"), "{err}");
}

#[test]
fn a_bad_format_string_is_an_error_not_a_panic() {
    let err = broken("ok\n{{ 5 | fmt('%q') }}\n");
    assert!(
        err.to_string().contains("line 2") && err.to_string().contains("unknown conversion"),
        "{err}"
    );
}

#[test]
fn a_missing_template_path_is_an_error() {
    let doc = fixture::build(&fixture::scenarios().remove(0).1);
    let dir = tempfile::tempdir().unwrap();
    let err = render(&doc, &opts(dir.path(), dir.path().join("nope.j2"))).unwrap_err();
    assert!(matches!(err, ReportError::Read { .. }), "{err:?}");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let err = render(&doc, &opts(dir.path(), empty)).unwrap_err();
    assert!(err.to_string().contains("holds no template files"), "{err}");
}

#[test]
fn built_in_formats_write_their_files() {
    let doc = load_fixture(&fixtures_dir().join("results-detailed.json"));
    let dir = tempfile::tempdir().unwrap();
    let o = ReportOptions {
        formats: Format::ALL.to_vec(),
        ..ReportOptions::new(dir.path())
    };
    let written = render(&doc, &o).unwrap();
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for expected in [
        "mixed_20261130_0805_summary.txt",
        "mixed_20261130_0805_hist.txt",
        "report.md",
        "chart-heatmap.svg",
        "chart-latency-small.svg",
        "report.html",
        "report.json",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} missing from {names:?}"
        );
    }
    assert!(written.iter().all(|p| p.is_file()));
}

/// The example of docs/report-context.md renders as the documentation says.
#[test]
fn the_documented_example_renders() {
    let doc = load_fixture(&fixtures_dir().join("results-basic.json"));
    let dir = tempfile::tempdir().unwrap();
    let tpl = dir.path().join("brief.txt.j2");
    let example = "{# brief.txt.j2: one line per finished point of the small class #}\n\
        {{ run.name }} on {{ host.hostname }} ({{ run.date }})\n\
        {% for r in classes[0].rows %}\n\
        {{ r.label | fmt(\"%-20s\") }} {{ r.iops | fmt(\"%9.0f\") }} IOPS  p99 {{ r.latency.p99_ns | lat }}\n\
        {% endfor %}\n\
        Best: {{ headline.max_iops.value | thousands }} IOPS at {{ headline.max_iops.label }}\n\
        {{ doc.host | tojson }}\n";
    let docs = std::fs::read_to_string(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("docs/report-context.md"),
    )
    .unwrap();
    let documented: String = example.lines().take(6).map(|l| format!("{l}\n")).collect();
    assert!(
        docs.contains(&documented),
        "docs/report-context.md shows another example"
    );
    std::fs::write(&tpl, example).unwrap();
    render(&doc, &opts(dir.path(), tpl)).unwrap();
    let text = std::fs::read_to_string(dir.path().join("out/brief.txt")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "orion-simple on db-test-01 (2026-11-29 21:22 UTC+01:00)"
    );
    assert_eq!(lines.len(), 1 + 5 + 1 + 1, "{text}");
    assert!(
        lines[1].starts_with("small=1 large=0          "),
        "{}",
        lines[1]
    );
    assert!(
        lines[1].contains(" IOPS  p99 ") && lines[1].ends_with(" µs"),
        "{}",
        lines[1]
    );
    assert!(lines[6].starts_with("Best: ") && lines[6].ends_with(" IOPS at small=5 large=0"));
    assert!(
        lines[7].contains("\"hostname\":\"db-test-01\""),
        "{}",
        lines[7]
    );
}

#[test]
fn output_names_cannot_leave_the_output_folder() {
    let doc = fixture::build(&fixture::scenarios().remove(0).1);
    let dir = tempfile::tempdir().unwrap();
    let tpl = dir.path().join("tpl");
    std::fs::create_dir_all(&tpl).unwrap();
    std::fs::write(tpl.join("{{ '..' }}.txt"), "x").unwrap();
    std::fs::write(tpl.join("ok.txt"), "x").unwrap();
    // `{{ '..' }}.txt` renders to `...txt`, a plain name; a test name with `..` is refused.
    assert!(render(&doc, &opts(dir.path(), tpl.clone())).is_ok());
    let o = ReportOptions {
        formats: vec![Format::Orion],
        testname: Some("../escape".into()),
        ..ReportOptions::new(dir.path().join("out2"))
    };
    let err = render(&doc, &o).unwrap_err();
    assert!(
        err.to_string()
            .contains("must stay inside the output folder"),
        "{err}"
    );
    assert!(!dir.path().join("escape_20261129_2122_summary.txt").exists());
}
