//! A real run of a spec with `[sweep]` over size and mix: every report names each row's effective
//! size, ORION's summary per combination shows its swept size, the 70% read class has read and
//! write rows, no percentile exceeds the maximum, and every output names the same headline point.

use super::builder::rigel;
use super::scenario::Scenario;
use serde_json::Value;

const SPEC: &str = r#"[spec]
name = "sweep"

[[target]]
path = "DIR/data.bin"
size = "64MiB"

[run]
duration = "200ms"

[class.small]
size = "8KiB"
mix = "read"

[matrix]
small = "1, 2"

[sweep]
"small.size" = "4KiB, 64KiB"
"small.mix" = "read, 70% read"
"#;

fn percentiles_within_max(d: &Value) {
    let l = &d["latency"];
    let max = l["max_ns"].as_u64().expect("max_ns");
    for p in ["p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns"] {
        let v = l[p].as_u64().expect("percentile");
        assert!(v <= max, "{p} = {v} above max {max}");
    }
}

#[test]
#[serial_test::parallel]
fn a_sweep_over_size_and_mix_is_reported_right_everywhere() {
    let tmp = Scenario::new();
    let spec = tmp.path().join("sweep.toml");
    std::fs::write(
        &spec,
        SPEC.replace("DIR", &tmp.path().display().to_string()),
    )
    .expect("spec written");
    let out_dir = tmp.path().join("run");
    let out = rigel()
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(&out_dir)
        .run()
        .code(0);
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(out_dir.join("results.json")).expect("results.json"),
    )
    .expect("results.json parses");
    let points = doc["points"].as_array().expect("points");
    assert_eq!(points.len(), 8);
    // The best small IOPS over every point, by the model's rule (ok points with I/O).
    let mut best: Option<(f64, String, u64)> = None;
    for p in points {
        for c in p["classes"].as_array().expect("classes") {
            for dir in ["total", "read", "write"] {
                if c[dir].is_object() {
                    percentiles_within_max(&c[dir]);
                }
            }
            let iops = c["total"]["iops"].as_f64().expect("iops");
            if p["status"]["state"] == "ok" && best.as_ref().is_none_or(|b| iops > b.0) {
                let sweep: Vec<String> = p["point"]["sweep"]
                    .as_array()
                    .expect("sweep")
                    .iter()
                    .map(|b| {
                        format!(
                            "{}={}",
                            b["key"].as_str().unwrap(),
                            b["value"].as_str().unwrap()
                        )
                    })
                    .collect();
                let load = p["point"]["classes"][0]["load"].as_u64().expect("load");
                best = Some((iops, sweep.join(" "), load));
            }
        }
    }
    let (iops, sweep, load) = best.expect("a best point");
    let label = format!("small={load} {sweep}");
    // Terminal.
    let terminal = format!(
        "Maximum Small IOPS={iops:.0} @ Small={load} and Large=0 ({})",
        sweep.replace(" small.mix", ", small.mix")
    );
    assert!(out.stdout.contains(&terminal), "{terminal}\n{}", out.stdout);
    // Markdown and HTML: every combination a group headed by its effective size and mix.
    let md = std::fs::read_to_string(out_dir.join("report.md")).expect("report.md");
    let html = std::fs::read_to_string(out_dir.join("report.html")).expect("report.html");
    for (size, mix, mix_text) in [
        ("4KiB", "read", "100% read"),
        ("64KiB", "read", "100% read"),
        ("4KiB", "70% read", "70% read, 30% write"),
        ("64KiB", "70% read", "70% read, 30% write"),
    ] {
        let size_text = size.replace("KiB", " KiB");
        let heading =
            format!("small: {size_text} random, {mix_text} (small.size={size}, small.mix={mix})");
        assert!(md.contains(&format!("### {heading}")), "{heading}\n{md}");
        assert!(html.contains(&format!("<h3>{heading}</h3>")), "{heading}");
    }
    let md_lines: Vec<&str> = md.lines().collect();
    assert!(
        md_lines.iter().any(|l| l.contains(" write |")),
        "write rows\n{md}"
    );
    assert!(
        md_lines.iter().any(|l| l.contains(" read |")),
        "read rows\n{md}"
    );
    assert!(html.contains(r#"<td class="l">write</td>"#));
    let md_headline = md_lines
        .iter()
        .find(|l| l.starts_with("- **Max IOPS: "))
        .expect("a Max IOPS line");
    assert!(md_headline.contains(&label), "{md_headline} names {label}");
    assert!(
        html.contains(&format!("taken at {label} (class small)")),
        "HTML names {label}"
    );
    // ORION: one summary per combination, with its swept size; the best one's headline matches.
    let mut summaries = 0;
    for entry in std::fs::read_dir(&out_dir).expect("run folder") {
        let path = entry.expect("entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with("_summary.txt") {
            continue;
        }
        summaries += 1;
        let text = std::fs::read_to_string(&path).expect("summary");
        let kb = if name.contains("small.size-64KiB") {
            64
        } else {
            4
        };
        assert!(
            text.contains(&format!("Small IO size: {kb} KB")),
            "{name}\n{text}"
        );
        let slug_size = if sweep.contains("64KiB") {
            "small.size-64KiB"
        } else {
            "small.size-4KiB-"
        };
        // Plain file names: the mix in words, `%` spelt out, no doubled or trailing dashes.
        assert!(!name.contains("--") && !name.contains('%'), "{name}");
        let slug_mix = if sweep.contains("70%") {
            "small.mix-70pct-read_"
        } else {
            "small.mix-read_"
        };
        if name.contains(slug_size) && name.contains(slug_mix) {
            let line = format!("Maximum Small IOPS={iops:.0} @ Small={load} and Large=0");
            assert!(text.contains(&line), "{name}: {line}\n{text}");
        }
    }
    assert_eq!(summaries, 4);
    // Charts keep each combination: one latency chart per combination.
    let latency_charts = std::fs::read_dir(&out_dir)
        .expect("run folder")
        .filter_map(Result::ok)
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with("chart-latency-small-small.size-") && n.ends_with(".svg")
        })
        .count();
    assert_eq!(latency_charts, 4);
    for text in [&md, &html] {
        assert!(
            !text.contains("8 KiB random"),
            "the declared size names no row"
        );
    }
}
