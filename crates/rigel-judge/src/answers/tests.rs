//! Answers over the report fixtures (synthetic results whose figures are known).

use super::*;
use rigel_expr::parse_comparison;
use rigel_plan::Requirement;

fn doc(answers: Vec<AnswerPlan>) -> ResultsDoc {
    let doc: ResultsDoc =
        serde_json::from_str(rigel_testkit::fixtures::BASIC).expect("fixture parses");
    let mut plan = doc.plan().clone();
    plan.answers = answers;
    doc.with_plan(plan)
}

fn plan(figure: &str, at: AnswerAt) -> AnswerPlan {
    AnswerPlan {
        name: "a".to_owned(),
        question: String::new(),
        figure: figure.to_owned(),
        at,
        load: Vec::new(),
        per: None,
        when: None,
    }
}

#[test]
fn latency_is_the_worst_unless_the_best_is_asked() {
    let worst = evaluate(&doc(vec![plan("small.latency.p99", AnswerAt::Worst)])).remove(0);
    assert_eq!(worst.value, Some(221_695.0));
    assert_eq!(worst.point_id, Some(5));
    assert_eq!(worst.load, Some(5));
    assert_eq!(worst.text, "222 µs");
    assert!(worst.declared);
    let best = evaluate(&doc(vec![plan("small.latency.p99", AnswerAt::Best)])).remove(0);
    assert_eq!((best.value, best.point_id), (Some(186_879.0), Some(1)));
    let top = evaluate(&doc(vec![plan("small.latency.p99", AnswerAt::HighestLoad)])).remove(0);
    assert_eq!(top.point_id, Some(5), "{top:?}");
}

/// An answer's `where`: `key` holding `comparison`.
fn holding(key: &str, comparison: &str) -> Option<Requirement> {
    Some(Requirement {
        key: key.to_owned(),
        comparison: parse_comparison(comparison).unwrap(),
    })
}

#[test]
fn where_admits_only_points_that_hold_it() {
    let mut a = plan("small.iops", AnswerAt::HighestLoad);
    a.when = holding("small.latency.p99", "<= 200us");
    let got = evaluate(&doc(vec![a.clone()])).remove(0);
    let p99 = got.p99_ns.unwrap();
    assert!(p99 <= 200_000, "{got:?}");
    assert!(got.point_id.unwrap() < 5, "{got:?}");
    assert!(got.latency.starts_with("p99 "), "{}", got.latency);
    a.when = holding("small.latency.p99", "<= 1us");
    let none = evaluate(&doc(vec![a])).remove(0);
    assert_eq!(none.value, None);
    assert!(
        none.note.contains("held small.latency.p99 <= 1us"),
        "{}",
        none.note
    );
}

#[test]
fn each_load_gives_one_answer_per_load() {
    let got = evaluate(&doc(vec![plan("small.latency.p99", AnswerAt::EachLoad)]));
    let groups: Vec<&str> = got.iter().map(|a| a.group.as_str()).collect();
    assert!(
        groups.contains(&"small=1") && groups.contains(&"small=5"),
        "{groups:?}"
    );
}

/// No point holds the `where`: each load still has its line, saying so (not one line without a
/// load, as if the loads had not run).
#[test]
fn each_load_where_no_point_counts_says_so_at_each_load() {
    let mut a = plan("small.latency.p99", AnswerAt::EachLoad);
    a.when = holding("small.latency.p99", "<= 1us");
    let got = evaluate(&doc(vec![a]));
    let groups: Vec<&str> = got.iter().map(|a| a.group.as_str()).collect();
    assert!(
        groups.contains(&"small=1") && groups.contains(&"small=5"),
        "{got:?}"
    );
    for line in &got {
        assert_eq!(line.value, None, "{line:?}");
        assert!(line.note.contains("small.latency.p99 <= 1us"), "{line:?}");
    }
}

#[test]
fn orion_shapes_keep_orions_three_lines() {
    let got = evaluate(&doc(Vec::new()));
    let names: Vec<&str> = got.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["Max IOPS", "Max MiB/s", "Min mean latency"]);
    assert_eq!(got[0].point_id, Some(5));
    assert_eq!(got[1].point_id, Some(7));
    assert!(got.iter().all(|a| !a.declared));
}
