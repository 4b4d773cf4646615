//! Verdicts over the report fixtures (synthetic results whose figures are known).

use super::*;
use rigel_expr::parse_comparison;

fn doc(name: &str, expect: &[(&str, &str)]) -> ResultsDoc {
    let text = match name {
        "basic" => rigel_testkit::fixtures::BASIC,
        _ => rigel_testkit::fixtures::DETAILED,
    };
    let doc: ResultsDoc = serde_json::from_str(text).expect("fixture parses");
    let mut plan = doc.plan().clone();
    plan.expect = expect
        .iter()
        .map(|(k, c)| Requirement {
            key: (*k).to_owned(),
            comparison: parse_comparison(c).expect("comparison"),
        })
        .collect();
    doc.with_plan(plan)
}

fn one(name: &str, key: &str, cmp: &str) -> Verdict {
    evaluate(&doc(name, &[(key, cmp)])).remove(0)
}

#[test]
fn best_point_by_default_for_throughput_and_latency() {
    let v = one("basic", "small.iops", ">= 48000");
    assert_eq!(v.status, Status::Pass);
    assert_eq!(v.point.as_deref(), Some("small=5 large=0"));
    assert_eq!(v.points_checked, 5);
    let m = v.measured.unwrap();
    assert!((48100.0..48200.0).contains(&m), "{m}");
    assert!((v.margin.unwrap() - (m - 48000.0)).abs() < 1e-9);
    assert!(v.margin_text.starts_with('+'), "{}", v.margin_text);
    let v = one("basic", "small.iops", ">= 48200");
    assert_eq!((v.status, v.passed), (Status::Fail, false));
    assert!(v.margin.unwrap() < 0.0);
    // The lowest p99 of small is at its lightest load.
    let v = one("basic", "small.latency.p99", "<= 190us");
    assert_eq!(v.status, Status::Pass);
    assert_eq!(v.measured, Some(186_879.0));
    assert_eq!(v.point_id, Some(1));
    assert_eq!(v.measured_text, "187 µs");
    let v = one("basic", "large.mbps", ">= 1GiB/s");
    assert_eq!(v.status, Status::Pass);
    assert_eq!(v.point_id, Some(7));
}

#[test]
fn every_point_reports_the_worst() {
    let v = one("basic", "small.latency.p99 @ all", "<= 220us");
    assert_eq!(v.status, Status::Fail);
    assert_eq!(v.measured, Some(221_695.0));
    assert_eq!(v.point_id, Some(5));
    let v = one("basic", "small.latency.p99 @ all", "<= 222us");
    assert_eq!(v.status, Status::Pass);
    assert_eq!(v.point_id, Some(5));
    let v = one("basic", "small.iops @ all", ">= 11000");
    assert_eq!((v.status, v.point_id), (Status::Pass, Some(1)));
}

#[test]
fn named_points() {
    let v = one("basic", "small.latency.p99 @ small=3", "<= 201us");
    assert_eq!((v.status, v.point_id), (Status::Fail, Some(3)));
    assert_eq!(v.measured, Some(201_087.0));
    assert_eq!(v.points_checked, 1);
    // Several points hold small=1 in the detailed matrix: all of them must pass.
    let v = one("detailed", "small.iops @ small=1", ">= 3000");
    assert_eq!(v.points_checked, 3);
    assert_eq!((v.status, v.point_id), (Status::Fail, Some(11)));
    let v = one("detailed", "small.iops @ best small=1", ">= 3000");
    assert_eq!((v.status, v.point_id), (Status::Pass, Some(1)));
    let v = one("detailed", "small.iops @ small=1 large=2", ">= 2700");
    assert_eq!((v.status, v.point_id), (Status::Pass, Some(11)));
    let v = one("basic", "small.iops @ small.size=8KiB small=2", ">= 1");
    assert_eq!(v.point_id, Some(2));
}

#[test]
fn directions() {
    let v = one("detailed", "small.write.iops @ small=1 large=0", ">= 1");
    let d = doc("detailed", &[]);
    let p = &d.points()[0];
    let writes = p.classes[0].write.as_ref().unwrap().iops;
    assert_eq!(v.measured, Some(writes));
    let v = one("detailed", "large.write.iops", ">= 1");
    assert_eq!(v.status, Status::NoData);
    assert!(
        v.note
            .ends_with("no selected point finished with class `large` writing"),
        "{}",
        v.note
    );
}

#[test]
fn no_data_fails() {
    let v = one("basic", "small.iops @ small=7", ">= 1");
    assert_eq!((v.status, v.passed), (Status::NoData, false));
    assert_eq!(v.note, "no point ran with small=7");
    assert_eq!(v.measured_text, "-");
    let v = one("basic", "nosuch.iops", ">= 1");
    assert_eq!(v.status, Status::NoData);
    let v = one("basic", "small.iops", ">= 1ms");
    assert_eq!(v.status, Status::NoData);
    assert!(v.note.contains("expected a number"), "{}", v.note);
}

#[test]
fn errors_count_failed_points() {
    let v = one("basic", "errors", "== 0");
    assert_eq!((v.status, v.measured), (Status::Pass, Some(0.0)));
    assert_eq!(v.measured_text, "0 failed points");
    let v = one("detailed", "errors", "== 0");
    assert_eq!((v.status, v.measured), (Status::Fail, Some(1.0)));
    assert_eq!(v.point_id, Some(9));
    assert!(!v.note.is_empty());
    let v = one("detailed", "errors @ large=2", "== 0");
    assert_eq!(v.status, Status::Pass);
    assert_eq!(v.points_checked, 5);
    // A failed point gives no figures: it is not taken as the best.
    let v = one("detailed", "small.iops @ small=4 large=1", ">= 1");
    assert_eq!(v.status, Status::NoData);
    assert!(
        v.note
            .starts_with("1 selected points failed and were not judged; "),
        "{}",
        v.note
    );
    let v = one("detailed", "small.iops @ all", ">= 1");
    assert_eq!((v.status, v.points_checked), (Status::Pass, 11));
    assert_eq!(v.note, "1 selected points failed and were not judged");
}

#[test]
fn verdicts_in_order_and_all_passed() {
    let d = doc(
        "basic",
        &[("small.iops", ">= 1"), ("large.mbps", ">= 1TiB/s")],
    );
    let v = evaluate(&d);
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].key, "small.iops");
    assert_eq!(v[1].requirement, ">= 1048576MiB/s");
    assert!(!all_passed(&v));
    assert!(all_passed(&v[..1]));
    assert!(all_passed(&[]));
    let text = table(&v);
    assert!(text.starts_with("requirements: 1 of 2 met\n"), "{text}");
    assert!(text.contains("FAIL  large.mbps"), "{text}");
    assert!(text.contains("at small=5 large=0"), "{text}");
}

#[test]
fn margins_are_relative_to_the_limit() {
    let v = one("basic", "small.latency.p99 @ small=1", "<= 200us");
    let m = v.margin_percent.unwrap();
    assert!((m - (200_000.0 - 186_879.0) / 200_000.0 * 100.0).abs() < 1e-9);
    assert_eq!(v.margin_text, "+6.6%");
    let v = one("basic", "errors", "<= 0");
    assert_eq!((v.margin_text.as_str(), v.margin), ("", Some(0.0)));
}
