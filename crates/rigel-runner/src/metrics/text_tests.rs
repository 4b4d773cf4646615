//! The exposition of a snapshot: the families it holds, in order, each typed and helped, and the
//! escapes of the values a user writes (a spec's name).

use super::*;

fn snapshot() -> Snapshot {
    Snapshot {
        spec: "acme \"oltp\"\\x\nline".into(),
        sha256: "ab".repeat(32),
        points: 4,
        done: 1,
        point: Some(PointNow {
            place: 2,
            id: 7,
            loads: vec![("small".into(), 32), ("large".into(), 8)],
        }),
        second: Some(SecondNow {
            point: 7,
            index: 3,
            classes: vec![ClassSecond {
                class: "small".into(),
                iops: 12345.0,
                mbps: 48.22265625,
                mean_s: 0.000_25,
                max_s: 0.004,
                quantiles: QUANTILES.iter().map(|&q| (q, q / 1000.0)).collect(),
            }],
        }),
        progress: 0.375,
        eta_s: 50.0,
        cpu_user_s: 1.5,
        cpu_system_s: 2.25,
        time_s: 1_700_000_000.5,
    }
}

#[test]
fn every_family_is_typed_and_helped_before_its_samples_and_the_text_ends_in_eof() {
    let text = render(&snapshot());
    assert!(text.ends_with("# EOF\n"), "{text}");
    let mut typed = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            typed.push(rest.split(' ').next().unwrap_or_default().to_owned());
        } else if !line.starts_with('#') {
            let name = line.split(['{', ' ']).next().unwrap_or_default();
            assert!(
                typed.iter().any(|t| name.starts_with(t.as_str())),
                "{name} before its # TYPE:\n{text}"
            );
        }
    }
    for family in [
        "rigel_run info",
        "rigel_cpu_seconds counter",
        "rigel_iops gauge",
        "rigel_latency_seconds gauge",
        "rigel_point_load gauge",
        "rigel_eta_seconds gauge",
    ] {
        assert!(
            text.contains(&format!("# TYPE {family}\n")),
            "{family}:\n{text}"
        );
    }
}

#[test]
fn the_figures_come_out_as_given() {
    let text = render(&snapshot());
    for line in [
        "rigel_iops{class=\"small\"} 12345\n",
        "rigel_mbps{class=\"small\"} 48.22265625\n",
        "rigel_latency_seconds{class=\"small\",quantile=\"0.99\"} 0.00099\n",
        "rigel_point_load{class=\"large\"} 8\n",
        "rigel_second_point_id 7\n",
        "rigel_second_index 3\n",
        "rigel_cpu_seconds_total{mode=\"system\"} 2.25\n",
        "rigel_progress_ratio 0.375\n",
        "rigel_points 4\n",
    ] {
        assert!(text.contains(line), "{line}:\n{text}");
    }
}

#[test]
fn a_spec_name_is_escaped_in_its_label() {
    let text = render(&snapshot());
    let sha = "ab".repeat(32);
    assert!(
        text.contains(&format!(
            "rigel_run_info{{spec=\"acme \\\"oltp\\\"\\\\x\\nline\",sha256=\"{sha}\",version="
        )),
        "{text}"
    );
}

#[test]
fn before_a_point_runs_no_per_point_or_per_second_family_is_served() {
    let s = Snapshot {
        point: None,
        second: None,
        ..snapshot()
    };
    let text = render(&s);
    assert!(!text.contains("rigel_iops"), "{text}");
    assert!(!text.contains("rigel_point_load"), "{text}");
    assert!(text.contains("rigel_run_info{"), "{text}");
}

#[test]
fn special_values_are_spelt_as_openmetrics_spells_them() {
    assert_eq!(number(f64::NAN), "NaN");
    assert_eq!(number(f64::INFINITY), "+Inf");
    assert_eq!(number(f64::NEG_INFINITY), "-Inf");
    assert_eq!(number(0.5), "0.5");
}
