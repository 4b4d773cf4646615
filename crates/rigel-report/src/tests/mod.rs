//! Report tests: fixtures, snapshots of every built-in format, ORION's published samples byte for
//! byte, CSVs parsed back, SVG/HTML well-formed, user templates, run folders.

mod chart_fit;
mod fixture;
mod headline_rules;
mod many_points;
mod new_charts;
mod orion_samples;
mod page_order;
mod run_folder;
mod user_templates;

use super::{Dialect, Format, ReportError, ReportOptions, render_to_bytes};
use rigel_results::ResultsDoc;
use std::path::{Path, PathBuf};

/// The outputs of `opts` as text: every format but the PDF is text, and these tests read it.
pub(super) fn render_to_strings(
    doc: &ResultsDoc,
    opts: &ReportOptions,
) -> Result<Vec<(PathBuf, String)>, ReportError> {
    Ok(render_to_bytes(doc, opts)?
        .into_iter()
        .map(|(name, bytes)| {
            let text = String::from_utf8(bytes)
                .unwrap_or_else(|e| panic!("{} is not text: {e}", name.display()));
            (name, text)
        })
        .collect())
}

fn fixtures_dir() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures")
}

fn all_formats(dialect: Dialect) -> ReportOptions {
    ReportOptions {
        formats: Format::ALL.to_vec(),
        dialect,
        ..ReportOptions::new("unused")
    }
}

fn load_fixture(path: &Path) -> ResultsDoc {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Asserts that `text` is well-formed XML (every element closed and matched).
pub(super) fn assert_well_formed(name: &str, text: &str) {
    let mut reader = quick_xml::Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    let mut depth = 0i64;
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Start(_)) => depth += 1,
            Ok(quick_xml::events::Event::End(_)) => depth -= 1,
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!(
                "{name} is not well-formed at byte {}: {e}",
                reader.error_position()
            ),
        }
    }
    assert_eq!(depth, 0, "{name}: unbalanced elements");
}

/// Every built-in format of every checked-in fixture, as snapshots (file names without the date
/// prefix, so the snapshot names say what they hold).
#[test]
fn snapshots_of_every_format() {
    insta::glob!("../../../../tests/fixtures", "results-*.json", |path| {
        let doc = load_fixture(path);
        // ORION 11.1 and 12c write the same IOPS and MB/s tables and the same trace (only the
        // latency table's unit, the summary and 12c's histograms differ): 11.1's are held equal to
        // 12c's snapshots rather than snapshotted again.
        let mut same_in_both = std::collections::HashMap::new();
        for dialect in [Dialect::V12, Dialect::V11] {
            let mut opts = all_formats(dialect);
            if dialect == Dialect::V11 {
                opts.formats = vec![Format::Orion];
            }
            opts.orion_version = Some(format!("{} (rigel test)", dialect.orion_release()));
            for (file, text) in render_to_strings(&doc, &opts).unwrap() {
                let file = file.to_string_lossy().into_owned();
                // `<name>_<yyyymmdd>_<hhmm>_<kind>` → `<name>_<kind>`: stable across fixtures' dates.
                let parts: Vec<&str> = file.rsplitn(4, '_').collect();
                let kind = if parts.len() == 4 {
                    format!("{}_{}", parts[3], parts[0])
                } else {
                    file.clone()
                };
                if file.ends_with(".svg") || file.ends_with(".html") {
                    assert_well_formed(&file, &text);
                }
                if file.ends_with(".json") {
                    let back: ResultsDoc = serde_json::from_str(&text).unwrap();
                    assert_eq!(back, doc, "report.json is the document itself");
                    continue;
                }
                let shared = ["_iops.csv", "_mbps.csv", "_trace.txt"];
                if shared.iter().any(|s| kind.ends_with(s)) {
                    if dialect == Dialect::V11 {
                        assert_eq!(
                            Some(&text),
                            same_in_both.get(&kind),
                            "{kind}: ORION 11.1 writes the same file as 12c"
                        );
                        continue;
                    }
                    same_in_both.insert(kind.clone(), text.clone());
                }
                insta::assert_snapshot!(format!("{}-{kind}", dialect.name()), text);
            }
        }
    });
}

/// A simple reader as ORION users write them: split on commas, trim, key on `Large/Small`.
pub(super) fn parse_orion_csv(text: &str) -> Vec<(u32, u32, f64)> {
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(|c| c.trim().to_string())
        .collect();
    assert_eq!(header[0], "Large/Small");
    let columns: Vec<u32> = header[1..].iter().map(|c| c.parse().unwrap()).collect();
    let mut cells = Vec::new();
    for line in lines {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let large: u32 = fields[0].parse().unwrap();
        for (i, v) in fields[1..].iter().enumerate() {
            if !v.is_empty() {
                cells.push((columns[i], large, v.parse().unwrap()));
            }
        }
    }
    cells
}

#[test]
fn orion_csvs_parse_back_to_the_measured_values() {
    let doc = load_fixture(&fixtures_dir().join("results-detailed.json"));
    let files = render_to_strings(&doc, &all_formats(Dialect::V12)).unwrap();
    let get = |kind: &str| {
        &files
            .iter()
            .find(|(f, _)| f.to_string_lossy().ends_with(kind))
            .unwrap()
            .1
    };
    let iops = parse_orion_csv(get("_iops.csv"));
    let mbps = parse_orion_csv(get("_mbps.csv"));
    let lat = parse_orion_csv(get("_lat.csv"));
    let at = |p: &rigel_results::PointResult, c: &str| p.point.load_of(c);
    let mut checked = 0;
    for p in doc
        .points()
        .iter()
        .filter(|p| matches!(p.status, rigel_results::PointStatus::Ok))
    {
        let (s, l) = (at(p, "small"), at(p, "large"));
        if let Some(c) = p.class("small").filter(|c| c.outstanding > 0) {
            let cell = iops.iter().find(|x| (x.0, x.1) == (s, l)).unwrap();
            assert_eq!(cell.2, c.total.iops.round());
            let cell = lat.iter().find(|x| (x.0, x.1) == (s, l)).unwrap();
            assert!((cell.2 - c.total.latency.mean_ns / 1e3).abs() <= 0.005);
            checked += 1;
        }
        if let Some(c) = p.class("large").filter(|c| c.outstanding > 0) {
            let cell = mbps.iter().find(|x| (x.0, x.1) == (s, l)).unwrap();
            assert!((cell.2 - c.total.mbps).abs() <= 0.005);
            checked += 1;
        }
    }
    assert!(checked >= 20, "checked {checked} cells");
    // The failed point (id 9) has no cell, and nothing else is invented.
    let failed = doc.points().iter().find(|p| p.point.id == 9).unwrap();
    assert!(
        !iops
            .iter()
            .any(|x| (x.0, x.1) == (at(failed, "small"), at(failed, "large")))
    );
    let ok_small = doc
        .points()
        .iter()
        .filter(|p| {
            matches!(p.status, rigel_results::PointStatus::Ok) && p.point.load_of("small") > 0
        })
        .count();
    assert_eq!(iops.len(), ok_small);
}

/// Renders every fixture's HTML and screenshots it in headless chromium at desktop and phone widths
/// (`crates/rigel-report/templates/html/check-in-chromium.sh` runs this; look at the PNGs). Skips when chromium is absent.
#[test]
#[ignore = "needs chromium; run crates/rigel-report/templates/html/check-in-chromium.sh"]
fn html_screenshots_in_chromium() {
    let out = std::env::var_os("RIGEL_SCREENSHOT_DIR")
        .map_or_else(|| std::env::temp_dir().join("rigel-shots"), PathBuf::from);
    std::fs::create_dir_all(&out).unwrap();
    let browser = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            std::process::Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    let browser = browser.expect("no chromium on PATH (apt-get install chromium; .ci/run does)");
    insta::glob!("../../../../tests/fixtures", "results-*.json", |path| {
        let doc = load_fixture(path);
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let opts = ReportOptions {
            formats: vec![Format::Html],
            ..ReportOptions::new("unused")
        };
        let html = &render_to_strings(&doc, &opts).unwrap()[0].1;
        let page = out.join(format!("{stem}.html"));
        std::fs::write(&page, html).unwrap();
        let sizes = std::env::var("RIGEL_SCREENSHOT_SIZES")
            .unwrap_or_else(|_| "desktop=1280,3600 phone=390,7000".into());
        for (label, size) in sizes.split_whitespace().filter_map(|s| s.split_once('=')) {
            let png = out.join(format!("{stem}-{label}.png"));
            let status = std::process::Command::new(browser)
                .args(CHROMIUM_FLAGS)
                .arg("--hide-scrollbars")
                .arg(format!("--user-data-dir={}", out.join("profile").display()))
                .arg(format!("--screenshot={}", png.display()))
                .arg(format!("--window-size={size}"))
                .arg(format!("file://{}", page.display()))
                .output()
                .unwrap();
            assert!(
                status.status.success(),
                "{browser} failed: {}",
                String::from_utf8_lossy(&status.stderr)
            );
            assert!(
                std::fs::metadata(&png).unwrap().len() > 10_000,
                "{} is nearly empty",
                png.display()
            );
            eprintln!("wrote {}", png.display());
        }
        // Printed to A4: the print stylesheet keeps every chart whole on a page.
        let pdf = out.join(format!("{stem}.pdf"));
        let status = std::process::Command::new(browser)
            .args(CHROMIUM_FLAGS)
            .arg(format!("--user-data-dir={}", out.join("profile").display()))
            .arg("--no-pdf-header-footer")
            .arg(format!("--print-to-pdf={}", pdf.display()))
            .arg(format!("file://{}", page.display()))
            .output()
            .unwrap();
        assert!(status.status.success(), "{browser} could not print");
        assert!(
            std::fs::metadata(&pdf).unwrap().len() > 10_000,
            "{} is nearly empty",
            pdf.display()
        );
        eprintln!("wrote {}", pdf.display());
    });
}

/// `--format json` computes no ORION view and no chart: a histogram that ORION's `_hist.txt` cannot
/// decode stops the ORION exporter, not the JSON one.
#[test]
fn json_alone_builds_no_view() {
    let mut doc = load_fixture(&fixtures_dir().join("results-basic.json"));
    doc.points_mut()[0].classes[0].total.histogram = "not base64!".into();
    if let Some(r) = doc.points_mut()[0].classes[0].read.as_mut() {
        r.histogram = "not base64!".into();
    }
    let only = |f: Format| ReportOptions {
        formats: vec![f],
        ..ReportOptions::new("unused")
    };
    assert!(render_to_strings(&doc, &only(Format::Orion)).is_err());
    let out = render_to_strings(&doc, &only(Format::Json)).expect("JSON needs no view");
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0, PathBuf::from("report.json"));
}

/// Every format `--format` takes is a row of the exporter table, the PDF too: each renders files
/// in memory (hlog's row runs and refuses results without per-interval histograms, as these are).
#[test]
fn every_format_renders_through_the_exporter_table() {
    let doc = load_fixture(&fixtures_dir().join("results-basic.json"));
    for format in Format::CHOICES {
        let opts = ReportOptions {
            formats: vec![format],
            ..ReportOptions::new("unused")
        };
        match render_to_bytes(&doc, &opts) {
            Err(ReportError::Histogram { reason, .. }) if format == Format::Hlog => {
                assert!(reason.contains("no per-interval histograms"), "{reason}")
            }
            Ok(files) => assert!(!files.is_empty(), "{format} rendered no file"),
            Err(e) => panic!("{format}: {e}"),
        }
    }
    let opts = ReportOptions {
        formats: vec![Format::Pdf],
        ..ReportOptions::new("unused")
    };
    let files = render_to_bytes(&doc, &opts).unwrap();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].0, PathBuf::from("report.pdf"));
    assert!(files[0].1.starts_with(b"%PDF-"));
}

/// Headless, offline, and leaving no state behind.
const CHROMIUM_FLAGS: [&str; 9] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
];
