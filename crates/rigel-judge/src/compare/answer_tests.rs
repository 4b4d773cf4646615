//! The answers of two runs compared (issue 42): each is a line with its verdict, and two runs with
//! nothing in common say so.

use super::*;
use rigel_plan::{AnswerAt, AnswerPlan};

fn basic() -> ResultsDoc {
    serde_json::from_str(rigel_testkit::fixtures::BASIC).expect("fixture parses")
}

#[test]
fn every_answer_is_a_compared_line_and_a_drop_regresses() {
    let base = basic();
    let mut new = base.clone();
    for p in new.points_mut() {
        for c in &mut p.classes {
            c.total.iops *= 0.5;
        }
    }
    let c = compare(&base, &new, &CompareOptions::default());
    let names: Vec<&str> = c.answers.iter().map(|a| a.answer.as_str()).collect();
    assert_eq!(names, ["Max IOPS", "Max MiB/s", "Min mean latency"]);
    let iops = &c.answers[0];
    assert_eq!(iops.verdict, Change::Regressed, "{iops:?}");
    assert!(iops.change_text.starts_with("-50.0%"), "{iops:?}");
    assert!(c.answer_regressions >= 1);
    assert!(!c.nothing_in_common);
    assert!(text(&c).contains("Max IOPS"), "{}", text(&c));
    // The HTML page has the answers table the Markdown one has, the regressed answer marked.
    let page = html(&c, None);
    assert!(page.contains("<h2>Answers</h2>"), "{page}");
    assert!(
        page.contains("<tr class=\"bad\"><td>Max IOPS</td>"),
        "{page}"
    );
    assert!(page.contains("Min mean latency"), "{page}");
}

#[test]
fn two_runs_with_nothing_in_common_say_so() {
    let base = basic();
    let mut new = base.clone();
    new.points_mut().clear();
    let mut plan = new.plan().clone();
    plan.answers = vec![AnswerPlan {
        name: "something else".into(),
        question: String::new(),
        figure: "small.iops".into(),
        at: AnswerAt::Best,
        load: Vec::new(),
        per: None,
        when: None,
    }];
    let new = new.with_plan(plan);
    let c = compare(&base, &new, &CompareOptions::default());
    assert!(c.nothing_in_common);
    assert!(c.answers.is_empty());
    assert!(
        c.warnings.iter().any(|w| w.contains("nothing in common")),
        "{:?}",
        c.warnings
    );
}

#[test]
fn a_flagged_answer_shows_the_validity_warnings_at_its_point() {
    let base = basic();
    let mut new = base.clone();
    for p in new.points_mut() {
        for c in &mut p.classes {
            c.total.iops *= 0.5;
        }
        // rigel itself CPU-bound at the answer's point (5) of NEW: the `cpu` warning there.
        if p.point.id == 5 {
            p.cpu.user_s = p.elapsed_s * 4.0;
        }
    }
    let c = compare(&base, &new, &CompareOptions::default());
    let iops = &c.answers[0];
    // rigel's CPU per I/O grew with the drop at that point: its IOPS line is put down to the
    // host, and the answer (that line) with it.
    assert_eq!(iops.verdict, Change::Inconclusive, "{iops:?}");
    assert!(iops.note.starts_with("NEW used"), "{iops:?}");
    assert!(
        iops.warnings.iter().any(|w| w.starts_with("NEW: ")),
        "{iops:?}"
    );
    assert!(text(&c).contains("Max IOPS: NEW: "), "{}", text(&c));
    // A line within the threshold is not flagged and carries none.
    assert!(
        c.answers
            .iter()
            .filter(|a| a.verdict == Change::Within)
            .all(|a| a.warnings.is_empty())
    );
}

#[test]
fn a_best_that_moved_names_both_points_even_when_its_figure_barely_changed() {
    let base = basic();
    let best = crate::answers::evaluate(&base)[0]
        .point_id
        .expect("max IOPS has a point");
    let top = |doc: &ResultsDoc, id: u32| {
        doc.points()
            .iter()
            .find(|p| p.point.id == id)
            .map_or(0.0, |p| p.classes[0].total.iops)
    };
    let peak = top(&base, best);
    let other = base
        .points()
        .iter()
        .map(|p| p.point.id)
        .find(|&id| id != best && top(&base, id) > 0.0)
        .expect("another point with IOPS");
    // NEW: the best point halved, another now 1% under the old best (a change inside 5%).
    let mut new = base.clone();
    for p in new.points_mut() {
        if p.point.id == best {
            p.classes[0].total.iops *= 0.5;
        } else if p.point.id == other {
            p.classes[0].total.iops = peak * 0.99;
        }
    }
    let c = compare(&base, &new, &CompareOptions::default());
    let iops = &c.answers[0];
    assert_eq!(iops.verdict, Change::Within, "{iops:?}");
    assert!(iops.note.starts_with("taken at "), "{iops:?}");
    assert!(text(&c).contains(" in BASE, "), "{}", text(&c));
}

/// An answer of `figure` taken at point 1, worth `value` ns.
fn answer(figure: &str, value: f64) -> rigel_results::Answer {
    serde_json::from_value(serde_json::json!({
        "name": "Min mean latency", "question": "", "figure": figure, "value": value,
        "unit": "ns", "text": "-", "point_id": 1, "point": "small=1", "load": 1,
        "p99_ns": null, "mean_ns": null, "rule": "", "declared": false
    }))
    .expect("an answer")
}

#[test]
fn an_answer_is_judged_by_its_own_line_s_band_and_excuse() {
    use super::band::Band;
    use super::point_lines::metric_change;
    use rigel_expr::{Direction, LatencyStat, Stat};
    // At the point, a narrow IOPS line first and the mean latency's wide one (benches/noise.sh:
    // ±33.3% and ±64.8%, a +46.5% mean flagged regressed by the IOPS line's band).
    let line = |stat: Stat, (b, n): (f64, f64), percent: f64| {
        let band = Band {
            percent,
            basis: "ticks",
            typical: None,
        };
        metric_change(("small", Direction::Total, stat), b, n, 5.0, Ok(band))
    };
    let mean = Stat::Latency(LatencyStat::Mean);
    let mut point = PointComparison {
        label: "small=1".into(),
        base_id: 1,
        new_id: 1,
        status: None,
        regressed: false,
        metrics: vec![
            line(Stat::Iops, (2873.0, 1971.0), 33.3),
            line(mean, (348e3, 510e3), 64.8),
        ],
    };
    let (b, n) = (
        answer("small.latency.mean", 348e3),
        answer("small.latency.mean", 510e3),
    );
    let opts = CompareOptions::default();
    let a = super::answers::judge(&b, &n, std::slice::from_ref(&point), &opts);
    assert_eq!(a.verdict, Change::Inconclusive, "{a:?}");
    assert_eq!(a.note, "inside the noise band (±64.8%)");
    // The line put down to the host: the answer too, with the line's words.
    point.metrics[1].verdict = Change::Inconclusive;
    point.metrics[1].host = Some("NEW ran while other work took 97% of the host's CPU".into());
    let a = super::answers::judge(&b, &n, std::slice::from_ref(&point), &opts);
    assert_eq!(a.verdict, Change::Inconclusive);
    assert!(a.note.starts_with("NEW ran while"), "{a:?}");
    // Beyond its own line's band, it regresses.
    point.metrics[1] = line(mean, (348e3, 800e3), 64.8);
    let far = answer("small.latency.mean", 800e3);
    let a = super::answers::judge(&b, &far, &[point], &opts);
    assert_eq!(a.verdict, Change::Regressed, "{a:?}");
}

/// A Max IOPS answer taken at point `id`, worth `value`.
fn best_iops(id: u32, value: f64) -> rigel_results::Answer {
    serde_json::from_value(serde_json::json!({
        "name": "Max IOPS", "question": "", "figure": "small.iops", "value": value,
        "unit": "IOPS", "text": "-", "point_id": id, "point": format!("small={id}"), "load": id,
        "p99_ns": null, "mean_ns": null, "rule": "", "declared": false
    }))
    .expect("an answer")
}

#[test]
fn a_best_taken_at_other_points_is_judged_by_the_line_that_decides_it() {
    use super::band::Band;
    use super::point_lines::metric_change;
    use rigel_expr::{Direction, Stat};
    // benches/noise.sh at load 3.4: Max IOPS at QD 1 in BASE (2,815), at QD 8 in NEW (2,478),
    // −12.0%; NEW's QD 1 line read −24.5% but its typical tick −2.7% (a few stalled ticks).
    let point = |id: u32, (b, n): (f64, f64)| {
        let band = Band {
            percent: 14.2,
            basis: "ticks",
            typical: Some(-2.7),
        };
        PointComparison {
            label: format!("small={id}"),
            base_id: id,
            new_id: id,
            status: None,
            regressed: false,
            metrics: vec![metric_change(
                ("small", Direction::Total, Stat::Iops),
                b,
                n,
                5.0,
                Ok(band),
            )],
        }
    };
    let mut points = vec![point(1, (2815.0, 2124.0)), point(8, (2758.0, 2478.0))];
    assert_eq!(points[0].metrics[0].verdict, Change::Inconclusive);
    let (b, n) = (best_iops(1, 2815.0), best_iops(8, 2478.0));
    let opts = CompareOptions::default();
    let a = super::answers::judge(&b, &n, &points, &opts);
    assert_eq!(a.verdict, Change::Inconclusive, "{a:?}");
    assert!(
        a.note.starts_with("the typical 100 ms tick moved -2.7%"),
        "{a:?}"
    );
    // A best that got better, +10.6%, at QD 8 in BASE and QD 1 in NEW: NEW's QD 1 line, +17.2%,
    // inside its ±26.4%, decides: inside that band, not the floor's ±10%.
    let mut up = vec![point(1, (2451.0, 2874.0)), point(8, (2598.0, 2476.0))];
    up[0].metrics[0].ticks = None;
    let mut wide = up.clone();
    wide[0].metrics[0].noise_percent = Some(26.4);
    wide[0].metrics[0].verdict = Change::Inconclusive;
    let (b8, n1) = (best_iops(8, 2598.0), best_iops(1, 2874.0));
    let a = super::answers::judge(&b8, &n1, &wide, &opts);
    assert_eq!(a.verdict, Change::Inconclusive, "{a:?}");
    assert_eq!(a.note, "taken at small=8 in BASE, small=1 in NEW");
    // The same with a narrow band at QD 1: the floor's ±10% judges it, improved.
    let mut narrow = up;
    narrow[0].metrics[0].noise_percent = Some(5.0);
    narrow[0].metrics[0].verdict = Change::Improved;
    let a = super::answers::judge(&b8, &n1, &narrow, &opts);
    assert_eq!(a.verdict, Change::Improved, "{a:?}");
    // A real drop at QD 1 (its line regressed): the best regresses with it.
    points[0].metrics[0].verdict = Change::Regressed;
    points[0].metrics[0].ticks = None;
    let a = super::answers::judge(&b, &n, &points, &opts);
    assert_eq!(a.verdict, Change::Regressed, "{a:?}");
    // Taken at one point whose line its typical tick flagged (a throttled 20% drop read −11.3%,
    // inside ±12.2%, its ticks −20%): the answer is flagged with it, not left in the band.
    let mut drop = point(4, (2000.0, 1773.0));
    drop.metrics[0] = metric_change(
        ("small", Direction::Total, Stat::Iops),
        2000.0,
        1773.0,
        5.0,
        Ok(Band {
            percent: 12.2,
            basis: "ticks",
            typical: Some(-20.0),
        }),
    );
    assert_eq!(drop.metrics[0].verdict, Change::Regressed);
    let (b, n) = (best_iops(4, 2000.0), best_iops(4, 1773.0));
    let a = super::answers::judge(&b, &n, &[drop], &opts);
    assert_eq!(a.verdict, Change::Regressed, "{a:?}");
    assert!(
        a.note.starts_with("the typical 100 ms tick moved -20.0%"),
        "{a:?}"
    );
}
