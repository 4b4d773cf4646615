//! Rate caps found from the points' figures: flat throughput with latency growing as the load
//! says it must, per device where the volume has several; growth, scatter and latency that does
//! not follow the load are not caps.

use super::*;
use crate::ResultsDoc;
use serde_json::{Value, json};

/// ORION's simple run (small at loads 1–5, large at 1–2) with the small points' IOPS and mean
/// latency replaced, each second at the point's rate.
fn doc_with(small: &[(f64, f64)]) -> Value {
    let mut doc: Value = serde_json::from_str(rigel_testkit::fixtures::BASIC).expect("fixture");
    for (i, (iops, mean_ns)) in small.iter().enumerate() {
        let c = &mut doc["points"][i]["classes"][0];
        assert_eq!(c["class"], "small");
        for dir in ["total", "read"] {
            if c[dir].is_object() {
                c[dir]["iops"] = json!(iops);
                c[dir]["mbps"] = json!(iops * 8192.0 / 1048576.0);
                c[dir]["latency"]["mean_ns"] = json!(mean_ns);
            }
        }
        let secs: Vec<Value> = (1..=5)
            .map(|t| {
                json!({"t_s": t, "ios": *iops as u64, "iops": iops, "mbps": 0.0,
                "mean_ns": mean_ns, "p99_ns": 0})
            })
            .collect();
        c["intervals"] = secs.into();
    }
    doc
}

fn caps(doc: Value) -> Vec<RateCap> {
    let doc: ResultsDoc = serde_json::from_value(doc).expect("a document");
    rate_caps(&crate::view::ResultsView::new(&doc), 0.85)
}

/// Latency as a closed loop at `iops` gives it at each load 1..: load / iops.
fn closed_loop(iops: &[f64]) -> Vec<(f64, f64)> {
    (1..)
        .zip(iops)
        .map(|(load, x)| (*x, f64::from(load) / x * 1e9))
        .collect()
}

#[test]
fn flat_iops_with_latency_in_proportion_is_a_cap_from_where_it_flattens() {
    let found = caps(doc_with(&closed_loop(&[
        700.0, 1000.0, 1004.0, 998.0, 1006.0,
    ])));
    assert_eq!(found.len(), 1, "{found:#?}");
    let c = &found[0];
    assert_eq!((c.class.as_str(), c.metric), ("small", CapMetric::Iops));
    assert_eq!((c.from_load, c.to_load), (2, 5));
    assert_eq!(c.points, vec![2, 3, 4, 5]);
    assert!((c.mean - 1002.0).abs() < 1e-9);
    assert!((c.within - 4.0).abs() < 1e-9);
    assert_eq!(
        c.message,
        "small: IOPS held at 1,002 ± 4 from load 2 to 5 while latency grew 2.5×: a rate limit \
         (provisioned IOPS or a throttle), not the device's capacity"
    );
}

#[test]
fn growth_scatter_or_latency_off_the_load_is_no_cap() {
    // The fixture's own run: IOPS grow with the load.
    assert_eq!(caps(doc_with(&[])), vec![]);
    // Flat at the top over too small a step (4 to 5): a knee, not a cap.
    let knee = closed_loop(&[300.0, 600.0, 900.0, 1000.0, 1010.0]);
    assert_eq!(caps(doc_with(&knee)), vec![]);
    // A noisy host's scatter of ±15%: wider than any noise band allows.
    let scatter = closed_loop(&[1000.0, 1150.0, 870.0, 1000.0, 1150.0]);
    assert_eq!(caps(doc_with(&scatter)), vec![]);
    // Flat IOPS, but latency that did not grow with the load (not a closed loop's figures).
    let flat: Vec<(f64, f64)> = [1000.0; 5].iter().map(|x| (*x, 1e6)).collect();
    assert_eq!(caps(doc_with(&flat)), vec![]);
}

#[test]
fn several_devices_give_each_share_and_the_sum() {
    let mut doc = doc_with(&closed_loop(&[1000.0, 1000.0, 1002.0, 998.0, 1000.0]));
    for i in 0..5 {
        let devices: Vec<Value> = (0..4)
            .map(|d| {
                json!({"name": format!("loop{d}"), "reads": 1250 + d, "writes": 0,
                "read_bytes": (1250 + d) * 8192, "write_bytes": 0, "busy_ms": 100,
                "in_flight_ms": 100, "span_ms": 5000.0})
            })
            .collect();
        doc["points"][i]["devices"] = devices.into();
    }
    let found = caps(doc);
    assert_eq!(found.len(), 1, "{found:#?}");
    let c = &found[0];
    assert_eq!((c.from_load, c.to_load), (1, 5));
    assert_eq!(c.devices.len(), 4);
    assert!((c.devices[3].mean - 250.6).abs() < 1e-9, "{:?}", c.devices);
    assert!(
        c.message.ends_with(
            "; per device loop0 250 ± 0, loop1 250 ± 0, loop2 250 ± 0, loop3 251 ± 0: the sum \
             of per-device caps, 1,001 IOPS"
        ),
        "{}",
        c.message
    );
}

#[test]
fn a_bandwidth_cap_shows_in_the_large_class_as_mib_per_s() {
    let mut doc = doc_with(&[]);
    for (i, load) in [(5, 1.0), (6, 2.0)] {
        let c = &mut doc["points"][i]["classes"][0];
        for dir in ["total", "read"] {
            if c[dir].is_object() {
                c[dir]["mbps"] = json!(200.0);
                c[dir]["iops"] = json!(200.0);
                c[dir]["latency"]["mean_ns"] = json!(load / 200.0 * 1e9);
            }
        }
        c["intervals"] = json!([]);
    }
    let found = caps(doc);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(
        (found[0].class.as_str(), found[0].metric),
        ("large", CapMetric::Mbps)
    );
    assert!(
        found[0]
            .message
            .starts_with("large: MiB/s held at 200 ± 0 from load 1 to 2"),
        "{}",
        found[0].message
    );
}
