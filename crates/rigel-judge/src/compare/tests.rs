//! Comparisons of the report fixtures with edited copies of themselves.

use super::*;
use rigel_results::{IoFailure, PointStatus};

fn fixture(name: &str) -> ResultsDoc {
    let text = match name {
        "basic" => rigel_testkit::fixtures::BASIC,
        _ => rigel_testkit::fixtures::DETAILED,
    };
    serde_json::from_str(text).expect("fixture parses")
}

fn flagged(c: &RunComparison, verdict: Change) -> Vec<String> {
    c.points
        .iter()
        .flat_map(|p| {
            p.metrics
                .iter()
                .filter(move |m| m.verdict == verdict)
                .map(move |m| {
                    format!(
                        "{} {} {} {}",
                        p.base_id,
                        m.class,
                        m.direction.name(),
                        m.stat
                    )
                })
        })
        .collect()
}

#[test]
fn a_run_against_itself_changes_nothing() {
    for name in ["basic", "detailed"] {
        let doc = fixture(name);
        let c = compare(&doc, &doc, &CompareOptions::default());
        assert_eq!(c.regressions, 0, "{name}");
        assert_eq!(c.improvements, 0);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        assert!(c.only_in_base.is_empty() && c.only_in_new.is_empty());
        assert!(
            c.points
                .iter()
                .flat_map(|p| &p.metrics)
                .all(|m| m.change_percent == Some(0.0))
        );
    }
    let c = compare(
        &fixture("basic"),
        &fixture("basic"),
        &CompareOptions::default(),
    );
    assert_eq!(c.points.len(), 7);
    // Four figures for the one class of each point.
    assert_eq!(c.points[0].metrics.len(), 4);
}

#[test]
fn exactly_the_edited_figures_are_flagged() {
    let base = fixture("basic");
    let mut new = base.clone();
    new.points_mut()[2].classes[0].total.iops *= 0.70; // point 3: 30% fewer IOPS
    new.points_mut()[3].classes[0].total.iops *= 0.97; // point 4: within 5%
    new.points_mut()[4].classes[0].total.iops *= 0.92; // point 5: 8%, inside the noise
    new.points_mut()[5].classes[0].total.latency.p99_ns *= 2; // point 6: twice the p99
    new.points_mut()[6].classes[0].total.latency.mean_ns *= 0.5; // point 7: half the mean latency
    let c = compare(&base, &new, &CompareOptions::default());
    assert_eq!(
        flagged(&c, Change::Regressed),
        ["3 small total iops", "6 large total latency.p99"]
    );
    assert_eq!(
        flagged(&c, Change::Improved),
        ["7 large total latency.mean"]
    );
    assert_eq!(flagged(&c, Change::Inconclusive), ["5 small total iops"]);
    assert_eq!((c.regressions, c.improvements), (2, 1));
    assert_eq!((c.lines, c.judged, c.inconclusive), (28, 27, 1));
    let m = &c.points[2].metrics[0];
    // 5 seconds a run (no ticks in this older fixture): the floor of 10% and the seconds' spread
    // (winsorized, their long-run variance: see `rate`).
    assert_eq!(m.change_text, "-30.0% (noise ±10.1%)");
    assert_eq!(m.noise_basis, "ticks");
    assert!(c.points[2].regressed && !c.points[3].regressed);
    // A stricter threshold makes the 3% inconclusive (inside the noise), not a regression.
    let strict = CompareOptions {
        threshold_percent: 2.0,
        ..CompareOptions::default()
    };
    let s = compare(&base, &new, &strict);
    assert_eq!(s.regressions, 2);
    assert_eq!(s.points[3].metrics[0].verdict, Change::Inconclusive);
    // Without the floor (a quiet device whose runs agree), the seconds alone judge the 8%.
    let no_floor = CompareOptions {
        drift_floor_percent: 0.0,
        ..CompareOptions::default()
    };
    let f = compare(&base, &new, &no_floor);
    let band = f.points[4].metrics[0].noise_percent.expect("a band");
    let want = if band < 8.0 {
        Change::Regressed
    } else {
        Change::Inconclusive
    };
    assert_eq!(f.points[4].metrics[0].verdict, want, "±{band:.1}%");
    // A per-metric threshold looser than the change lets that metric pass.
    let loose = CompareOptions {
        thresholds: vec![(m.stat.clone(), 35.0)],
        ..CompareOptions::default()
    };
    assert!(!compare(&base, &new, &loose).points[2].regressed);
}

#[test]
fn mixed_classes_compare_reads_and_writes_too() {
    let base = fixture("detailed");
    let mut new = base.clone();
    if let Some(w) = new.points_mut()[0].classes[0].write.as_mut() {
        w.iops *= 0.5;
    }
    let c = compare(&base, &new, &CompareOptions::default());
    // Results without ticks: the seconds count both directions together, so the write line has
    // no band and the halving cannot be judged.
    assert_eq!(flagged(&c, Change::Inconclusive), ["1 small write iops"]);
    let m = &c.points[0].metrics[8];
    assert_eq!(m.noise_percent, None);
    assert!(
        m.noise_basis.starts_with("too few sub-second samples"),
        "{m:?}"
    );
    // small mixes reads and writes: total, read and write, four figures each.
    assert_eq!(c.points[0].metrics.len(), 12);
    // With ticks per direction, it is judged.
    let (mut base, mut new) = (base, new);
    for doc in [&mut base, &mut new] {
        let p = &mut doc.points_mut()[0];
        let secs = p.elapsed_s;
        let c = &mut p.classes[0];
        c.ticks = Some(ticks(
            secs,
            c.read.as_ref().map_or(0, |d| d.ios),
            c.write.as_ref().map_or(0, |d| d.ios),
        ));
    }
    let c = compare(&base, &new, &CompareOptions::default());
    assert_eq!(flagged(&c, Change::Regressed), ["1 small write iops"]);
    assert!(c.points[0].metrics.iter().all(|m| m.noise_basis == "ticks"));
}

/// 100 ms ticks holding `reads` and `writes` over `secs`, each within ±2% of the mean.
fn ticks(secs: f64, reads: u64, writes: u64) -> rigel_results::Ticks {
    let n = (secs * 10.0).round() as usize;
    let spread = |total: u64| -> Vec<u64> {
        let each = total as f64 / n as f64;
        (0..n)
            .map(|i| (each * (1.0 + 0.02 * ((i * 7 % 5) as f64 - 2.0) / 2.0)).round() as u64)
            .collect()
    };
    let lat = |ios: &[u64]| ios.iter().map(|n| n * 100_000).collect();
    let (r, w) = (spread(reads), spread(writes));
    rigel_results::Ticks {
        ms: 100,
        read_latency_ns: lat(&r),
        write_latency_ns: lat(&w),
        read_ios: r,
        write_ios: w,
    }
}

#[test]
fn points_are_matched_by_workload_not_by_id() {
    let base = fixture("basic");
    let mut new = base.clone();
    new.points_mut().reverse();
    new.points_mut().remove(0); // large=2 ran only in BASE
    let mut extra = new.points()[0].clone();
    extra.point.classes[1].load = 3;
    extra.point.id = 99;
    new.points_mut().push(extra);
    let c = compare(&base, &new, &CompareOptions::default());
    assert_eq!(c.regressions, 0);
    assert_eq!(c.points.len(), 6);
    assert_eq!(c.points[0].base_id, 1);
    assert_eq!(c.points[0].new_id, 1);
    assert_eq!(c.only_in_base, ["small=0 large=2"]);
    assert_eq!(c.only_in_new, ["small=0 large=3"]);
}

#[test]
fn a_point_failing_only_in_new_is_a_regression() {
    let base = fixture("basic");
    let mut new = base.clone();
    new.points_mut()[1].status = PointStatus::Failed {
        error: IoFailure {
            target: "/dev/x".into(),
            offset: 4096,
            errno: 5,
            message: "Input/output error".into(),
        },
    };
    let c = compare(&base, &new, &CompareOptions::default());
    assert_eq!(c.regressions, 1);
    assert!(c.points[1].regressed);
    assert_eq!(
        c.points[1].status.as_deref(),
        Some("failed in NEW: Input/output error at offset 4096")
    );
    let back = compare(&new, &base, &CompareOptions::default());
    assert_eq!(back.regressions, 0);
}

#[test]
fn differing_specs_are_warned_about() {
    let base = fixture("basic");
    // A comment changes nothing measured; a new key does, and is named.
    let spec = format!("{}\n# edited\n[zz_edit]\nkey = 1\n", base.spec_toml());
    let mut plan = base.plan().clone();
    plan.run.duration_ms = 1000;
    plan.points.push(plan.points[0].clone());
    let new = ResultsDoc::new(
        base.header(),
        spec,
        plan,
        base.points().to_vec(),
        base.finished().to_owned(),
    );
    let c = compare(&base, &new, &CompareOptions::default());
    assert_eq!(c.warnings.len(), 3, "{:?}", c.warnings);
    assert!(c.warnings[0].contains("different specs"));
    assert!(
        c.warnings[0].ends_with("zz_edit.key: - → 1"),
        "{}",
        c.warnings[0]
    );
    assert!(c.warnings[1].starts_with("the duration per point differs: BASE"));
    assert_eq!(c.warnings[2], "NEW is incomplete: 7 of 8 points ran");
}

#[test]
fn renderings() {
    let base = fixture("basic");
    let mut new = base.clone();
    new.points_mut()[2].classes[0].total.iops *= 0.70;
    new.points_mut()[3].classes[0].total.iops *= 0.92;
    let mut c = compare(&base, &new, &CompareOptions::default());
    c.base.path = "runs/a".into();
    c.new.path = "runs/b".into();
    let t = text(&c);
    assert!(
        t.starts_with("BASE  runs/a (orion-simple, 7 points,"),
        "{t}"
    );
    assert!(t.contains("REGRESSED"), "{t}");
    assert!(
        t.trim_end()
            .ends_with("1 regression in 1 point (threshold 5%); 0 improvements; 27 of 28 lines judged, 1 inconclusive (too noisy to judge); answers: 0 of 3 regressed, 0 inconclusive"),
        "{t}"
    );
    let regressed_line = t.lines().find(|l| l.contains("REGRESSED")).expect("a line");
    assert!(
        regressed_line.starts_with("small=3 large=0"),
        "{regressed_line}"
    );
    assert!(regressed_line.contains("-30.0%"));
    let unsure = t
        .lines()
        .find(|l| l.contains("inconclusive"))
        .expect("a line");
    assert!(
        unsure.starts_with("small=4 large=0")
            && unsure.contains("-8.0% (noise ±")
            && unsure.ends_with("inconclusive: too noisy to judge"),
        "{unsure}"
    );
    let md = markdown(&c);
    assert!(md.starts_with("### rigel compare: 1 regression\n"), "{md}");
    assert!(md.contains("#### Regressions"));
    assert!(md.contains("| `small=3 large=0` | small | iops |"), "{md}");
    assert!(md.contains("**regressed**"));
    assert!(md.contains("<details><summary>All 28 figures of 7 matched points</summary>"));
    let same = markdown(&compare(&base, &base, &CompareOptions::default()));
    assert!(same.starts_with("### rigel compare: no regression\n"));
    assert!(!same.contains("#### Regressions"));
}

#[test]
fn nothing_in_common_is_said() {
    let base = fixture("basic");
    let mut new = base.clone();
    for p in new.points_mut() {
        for c in &mut p.point.classes {
            c.size *= 2;
        }
    }
    let c = compare(&base, &new, &CompareOptions::default());
    assert!(c.points.is_empty());
    assert_eq!((c.only_in_base.len(), c.only_in_new.len()), (7, 7));
    assert!(
        c.warnings.iter().any(|w| w.starts_with("no point of NEW")),
        "{:?}",
        c.warnings
    );
}

#[test]
fn html_marks_regressions_and_escapes_what_it_quotes() {
    let base = fixture("basic");
    let mut new = base.clone();
    new.points_mut()[2].classes[0].total.iops *= 0.5;
    let mut c = compare(&base, &new, &CompareOptions::default());
    c.base.path = "runs/<a&b>".into();
    let page = html(&c, Some("<svg id=\"overlay\"></svg>"));
    assert!(page.starts_with("<!doctype html>") && page.ends_with("</html>\n"));
    assert!(page.contains("&lt;a&amp;b&gt;") && !page.contains("<a&b>"));
    assert_eq!(page.matches("<tr class=\"bad\">").count(), 1, "{page}");
    assert!(page.contains("REGRESSED") && page.contains("<svg id=\"overlay\">"));
    assert!(html(&c, None).matches("<svg").count() == 0);
}

#[test]
fn figures_taken_by_different_engines_are_warned_about() {
    let base = fixture("basic");
    let mut points = base.points().to_vec();
    for p in &mut points {
        p.engines = vec![rigel_results::EngineRecord {
            class: "small".into(),
            name: "libaio".into(),
            requested: "auto".into(),
            fallback: Some("io_uring is refused here".into()),
            options: Default::default(),
        }];
    }
    let new = ResultsDoc::new(
        base.header(),
        base.spec_toml().to_owned(),
        base.plan().clone(),
        points,
        base.finished().to_owned(),
    );
    let c = compare(&base, &new, &CompareOptions::default());
    assert_eq!(
        c.warnings,
        ["the engine differs: BASE io_uring, NEW libaio"],
        "results written before engines were recorded were taken by io_uring"
    );
    assert!(
        compare(&new, &new, &CompareOptions::default())
            .warnings
            .is_empty()
    );
}

#[test]
fn other_targets_are_said_in_english() {
    let base = fixture("basic");
    let mut plan = base.plan().clone();
    plan.targets[0].path = "/dev/other".into();
    let new = ResultsDoc::new(
        base.header(),
        base.spec_toml().to_owned(),
        plan,
        base.points().to_vec(),
        base.finished().to_owned(),
    );
    let c = compare(&base, &new, &CompareOptions::default());
    assert!(
        c.warnings
            .iter()
            .any(|w| w.starts_with("the targets differ: BASE ") && w.ends_with("NEW /dev/other")),
        "{:?}",
        c.warnings
    );
}

/// BASIC with every IOPS figure (and I/O count) scaled by `iops` and rigel's CPU time by `cpu`.
fn host_changed(iops: f64, cpu: f64) -> RunComparison {
    let base = fixture("basic");
    let mut new = base.clone();
    for p in new.points_mut() {
        for c in &mut p.classes {
            c.total.iops *= iops;
            c.total.ios = (c.total.ios as f64 * iops) as u64;
            if let Some(r) = c.read.as_mut() {
                r.iops *= iops;
                r.ios = (r.ios as f64 * iops) as u64;
            }
        }
        p.cpu.user_s *= cpu;
        p.cpu.system_s *= cpu;
    }
    compare(&base, &new, &CompareOptions::default())
}

/// Every point's IOPS line of `c`.
fn iops_changes(c: &RunComparison) -> Vec<&MetricChange> {
    c.points
        .iter()
        .flat_map(|p| &p.metrics)
        .filter(|m| m.stat == "iops")
        .collect()
}

#[test]
fn a_change_the_host_explains_is_inconclusive_with_both_cpu_figures() {
    // 30% fewer IOPS while rigel burned twice the CPU per second: 2.9× the CPU per I/O, which
    // explains up to 65% fewer.
    let c = host_changed(0.7, 2.0);
    let iops = iops_changes(&c);
    assert!(!iops.is_empty());
    for m in &iops {
        assert_eq!(m.verdict, Change::Inconclusive, "{m:?}");
        let host = m.host.as_deref().expect("the host named");
        assert!(
            host.starts_with("NEW used 2.9× rigel's CPU per I/O (")
                && host.ends_with("the host, not the storage, may have changed"),
            "{host}"
        );
    }
    assert!(
        text(&c).contains("inconclusive: NEW used 2.9×"),
        "{}",
        text(&c)
    );
    // The same drop on an unchanged host is a regression.
    let plain = host_changed(0.7, 1.0);
    assert!(
        flagged(&plain, Change::Regressed)
            .iter()
            .any(|l| l.ends_with(" iops"))
    );
    // 70% fewer at 2.7× the CPU per I/O (explains 62.5%): beyond the host, still regressed.
    let beyond = host_changed(0.3, 0.8);
    let regressed = flagged(&beyond, Change::Regressed);
    assert!(
        regressed.iter().any(|l| l.ends_with(" iops")),
        "{regressed:?}"
    );
}

#[test]
fn storage_that_slowed_leaves_rigel_idle_and_is_not_the_host() {
    // A twentieth of the I/Os with 75% of the CPU per second (its fixed costs, polling): each
    // I/O 15× as dear, which would explain the drop, but rigel less busy: the storage.
    let c = host_changed(0.05, 0.75);
    let iops = iops_changes(&c);
    assert!(
        iops.iter()
            .all(|m| m.verdict == Change::Regressed && m.host.is_none()),
        "{iops:?}"
    );
}

#[test]
fn a_rigel_that_was_nearly_idle_says_nothing_of_the_host() {
    // A device held at a few hundred IOPS: rigel's CPU is a few percent of a core on each side,
    // and twice the CPU per I/O is its fixed costs over fewer I/Os.
    let mut base = fixture("basic");
    for p in base.points_mut() {
        p.cpu.user_s *= 0.05;
        p.cpu.system_s *= 0.05;
    }
    let mut new = base.clone();
    for p in new.points_mut() {
        for c in &mut p.classes {
            c.total.iops *= 0.7;
            c.total.ios = (c.total.ios as f64 * 0.7) as u64;
        }
        p.cpu.user_s *= 2.0;
        p.cpu.system_s *= 2.0;
    }
    let c = compare(&base, &new, &CompareOptions::default());
    let regressed = flagged(&c, Change::Regressed);
    assert!(
        regressed.iter().any(|l| l.ends_with(" iops")),
        "{regressed:?}"
    );
}
