//! Tests of `[search]`: the bisection on synthetic capacities, its worst case, trial points, and
//! searches compiled or refused.

use super::model::{ClassLoad, DataPoint, Knob, Requirement, RunPlan, SearchPlan, Tolerance};
use super::search::*;
use rigel_expr::Access;

fn plan(low: f64, high: f64, tolerance: Tolerance, max_trials: u32) -> SearchPlan {
    SearchPlan {
        target: Requirement {
            key: "small.latency.p99".into(),
            comparison: rigel_expr::parse_comparison("<= 2ms").unwrap(),
        },
        class: "small".into(),
        knob: Knob::Rate,
        low,
        high,
        tolerance,
        max_trials,
        worst_trials: 0,
        template: DataPoint {
            id: 0,
            sweep: Vec::new(),
            classes: Vec::new(),
        },
    }
}

/// Runs the search against "passes up to `capacity`".
fn search(p: &SearchPlan, capacity: f64) -> (Option<f64>, Vec<Tried>) {
    let mut trials = Vec::new();
    while let Some(v) = p.next(&trials) {
        trials.push(Tried {
            value: v,
            passed: v <= capacity,
            figure: None,
            spoiled: false,
        });
    }
    (bracket(&trials).0, trials)
}

#[test]
fn finds_a_capacity_within_the_precision() {
    let p = plan(1000.0, 100_000.0, Tolerance::Percent(2.0), 30);
    for capacity in [1000.0, 1234.0, 41_200.0, 77_777.0, 99_999.0] {
        let (answer, trials) = search(&p, capacity);
        let a = answer.unwrap();
        assert!(a <= capacity && capacity - a <= a * 0.02, "{capacity}: {a}");
        assert!(trials.len() as u32 <= worst_trials(&p), "{capacity}");
    }
}

#[test]
fn absolute_tolerance_and_the_ends() {
    let p = plan(1.0, 64.0, Tolerance::Absolute(1.0), 30);
    let (a, _) = search(&p, 17.0);
    assert_eq!(a, Some(17.0));
    // Passing at `high` ends after three trials (`high` confirmed); failing at `low` after two
    // (a pass at `high` would have contradicted it), with no answer.
    let (a, t) = search(&p, 100.0);
    assert_eq!((a, t.len()), (Some(64.0), 3));
    let (a, t) = search(&p, 0.5);
    assert_eq!((a, t.len()), (None, 2));
}

fn t(value: f64, passed: bool, figure: f64) -> Tried {
    Tried {
        value,
        passed,
        figure: Some(figure),
        spoiled: false,
    }
}

#[test]
fn the_answer_is_confirmed_and_a_failed_confirmation_runs_again_then_contradicts() {
    let p = plan(1000.0, 2000.0, Tolerance::Percent(10.0), 50);
    let mut trials = vec![
        t(1000.0, true, 1.0),
        t(2000.0, false, 9.0),
        t(1500.0, true, 1.5),
        t(1750.0, false, 5.0),
        t(1625.0, false, 3.0),
        t(1563.0, true, 1.8),
    ];
    // Bracket 1563..1625 within 10%: 1563 runs again.
    assert_eq!(p.next(&trials), Some(1563.0));
    trials.push(t(1563.0, false, 2.1));
    // It held once and failed once (issue 42): it runs again rather than the latest deciding.
    assert_eq!(p.next(&trials), Some(1563.0));
    trials.push(t(1563.0, false, 2.2));
    // Still split after three trials: a contradiction, and no answer.
    assert!(matches!(
        p.contradiction(&trials),
        Some(Contradiction::Split {
            passed: 1,
            runs: 3,
            ..
        })
    ));
    assert_eq!(p.next(&trials), None);
}

#[test]
fn a_trial_spoiled_by_rigels_lag_runs_again_and_is_not_counted() {
    let p = plan(1000.0, 2000.0, Tolerance::Percent(10.0), 50);
    let spoiled = Tried {
        spoiled: true,
        ..t(2000.0, false, 9.0)
    };
    let mut trials = vec![t(1000.0, true, 1.0), spoiled];
    assert_eq!(p.next(&trials), Some(2000.0), "the spoiled trial again");
    trials.push(t(2000.0, true, 1.2));
    // The storage held it: the spoiled miss is not counted against it, nor a split.
    assert_eq!(bracket(&trials), (Some(2000.0), None));
    assert_eq!(p.contradiction(&trials), None);
    // Spoiled every time: after MAX_SPOILED_AT reruns its (spoiled) verdict stands.
    let trials = vec![t(1000.0, true, 1.0), spoiled, spoiled, spoiled];
    assert_ne!(p.next(&trials), Some(2000.0));
    assert_eq!(bracket(&trials), (Some(1000.0), Some(2000.0)));
}

#[test]
fn a_pass_above_a_fail_runs_both_again_and_a_standing_one_ends_the_search() {
    // A latency that falls with the load (interrupt coalescing): fails at low, holds at high.
    let p = plan(100.0, 1000.0, Tolerance::Percent(5.0), 12);
    let mut trials = vec![t(100.0, false, 10.0), t(1000.0, true, 1.2)];
    assert!(matches!(
        p.contradiction(&trials),
        Some(Contradiction::PassAboveFail { .. })
    ));
    assert_eq!(p.next(&trials), Some(100.0));
    trials.push(t(100.0, false, 10.1));
    assert_eq!(p.next(&trials), Some(1000.0));
    trials.push(t(1000.0, true, 1.3));
    assert_eq!(p.next(&trials), None);
    assert!(p.contradiction(&trials).is_some());
    // A repeat that disagrees with the first trial at 100 splits it: 100 runs a third time.
    let mut trials = vec![t(100.0, false, 10.0), t(1000.0, true, 1.2)];
    trials.push(t(100.0, true, 1.0));
    assert_eq!(p.next(&trials), Some(100.0), "the split value again");
}

#[test]
fn a_flat_figure_on_both_sides_of_the_target_is_a_contradiction() {
    // The search: 2.13 ms held, 2.14 ms failed, five times the load apart.
    let p = plan(1000.0, 50_000.0, Tolerance::Percent(5.0), 12);
    let trials = vec![
        t(1000.0, true, 2.13e6),
        t(50_000.0, false, 2.16e6),
        t(25_500.0, false, 2.15e6),
        t(13_250.0, false, 2.14e6),
    ];
    assert!(matches!(
        p.contradiction(&trials),
        Some(Contradiction::Flat { .. })
    ));
    assert_eq!(p.next(&trials), None);
    // A figure that grows with the load is no contradiction, however close the bracket's ends.
    let trials = vec![
        t(1000.0, true, 0.5e6),
        t(50_000.0, false, 40e6),
        t(25_500.0, false, 9e6),
        t(13_250.0, false, 2.01e6),
        t(7125.0, true, 1.99e6),
    ];
    assert_eq!(p.contradiction(&trials), None);
    // All failing (or all passing) contradicts nothing: the target fails (holds) everywhere.
    let trials = vec![t(1000.0, false, 2.13e6), t(50_000.0, false, 2.14e6)];
    assert_eq!(p.contradiction(&trials), None);
    assert_eq!(p.next(&trials), None);
}

#[test]
fn the_trial_cap_holds_and_bounds_the_worst_case() {
    let p = plan(1000.0, 1_000_000.0, Tolerance::Absolute(1.0), 6);
    let (_, t) = search(&p, 333_333.0);
    assert_eq!(t.len(), 6);
    assert_eq!(worst_trials(&p), 6);
    let p = plan(1000.0, 2000.0, Tolerance::Percent(10.0), 50);
    // 1000 pass, 2000 fail, then 1500, 1250, 1125, 1063 (bracket 63 < 100), 1000 confirmed.
    assert_eq!(worst_trials(&p), 7);
}

#[test]
fn a_trial_point_sets_the_knob_and_names_it() {
    let mut p = plan(1.0, 8.0, Tolerance::Absolute(1.0), 8);
    p.knob = Knob::Load;
    p.template.classes.push(ClassLoad {
        class: "small".into(),
        size: 8192,
        access: Access::Sequential,
        mix: rigel_expr::parse_mix("read").unwrap(),
        load: 1,
        per_stream: 4,
        outstanding: 4,
        rate: None,
        arrival: Default::default(),
        pattern: Default::default(),
        engine: Default::default(),
    });
    let t = p.point(3, 5.0);
    assert_eq!(
        (t.id, t.classes[0].load, t.classes[0].outstanding),
        (3, 5, 20)
    );
    assert_eq!(t.label(), "small=5 small.load=5");
}

fn compiled(search: &str, matrix: &str) -> Result<RunPlan, Vec<String>> {
    let text = format!(
        "[[target]]\npath = \"a\"\nsize = \"64MiB\"\n[class.small]\nsize = \"8KiB\"\n\
         rate = \"100 iops\"\n[class.big]\nsize = \"1MiB\"\n[matrix]\n{matrix}\n[search]\n{search}\n"
    );
    let loaded = rigel_spec::load(
        rigel_spec::SpecInput::Text {
            name: "t",
            text: &text,
        },
        &[],
        2,
    )
    .map_err(|d| {
        d.errors
            .iter()
            .map(|e| e.message.clone())
            .collect::<Vec<_>>()
    })?;
    super::compile(&loaded.spec, 2).map_err(|e| e.iter().map(|e| e.message.clone()).collect())
}

const POINT: &str = "shape = \"point\"\nsmall = \"16\"\nbig = \"2\"";

#[test]
fn a_search_compiles_to_its_worst_case() {
    let p = compiled(
        "target = \"small.read.latency.p99 <= 2ms\"\nlow = \"1000 iops\"\nhigh = \"64000 iops\"\nprecision = \"1000 iops\"",
        POINT,
    )
    .unwrap();
    let s = p.search.as_ref().unwrap();
    assert_eq!(
        (s.knob, s.low, s.high, s.max_trials),
        (Knob::Rate, 1000.0, 64000.0, 12)
    );
    // low, high, then 63,000 halved to under 1,000: 6 more, and the answer confirmed.
    assert_eq!(s.worst_trials, 9);
    assert!(p.points.is_empty());
    assert_eq!(p.estimated_seconds, (9 * (60_000 + 5) + 500) / 1000);
    let p = compiled(
        "target = \"big.iops >= 100\"\nlow = 1\nhigh = 32\nprecision = 1\nmax_trials = 4",
        POINT,
    )
    .unwrap();
    let s = p.search.unwrap();
    assert_eq!((s.knob, s.worst_trials), (Knob::Load, 4));
}

#[test]
fn bad_searches_are_refused_with_a_reason() {
    let bad = |search: &str, matrix: &str, wanted: &str| {
        let e = compiled(search, matrix).expect_err(search);
        assert!(e.iter().any(|m| m.contains(wanted)), "{search}: {e:?}");
    };
    let t = "target = \"small.read.latency.p99 <= 2ms\"\n";
    bad("low = 1\nhigh = 2", POINT, "needs `target`");
    bad(
        &format!("{t}low = \"9000 iops\"\nhigh = \"100 iops\""),
        POINT,
        "`low` below `high`",
    );
    bad(
        &format!("{t}low = 1\nhigh = 2\nmax_trials = 100"),
        POINT,
        "between 2 and 64",
    );
    bad(
        &format!("{t}low = 1\nhigh = 2\nprecision = \"150%\""),
        POINT,
        "not a share",
    );
    bad(
        &format!("{t}low = 1\nhigh = 2"),
        "shape = \"basic\"\nsmall = \"1,2\"\nbig = \"1\"",
        "one point",
    );
    bad(
        "target = \"smal.read.latency.p99 <= 2ms\"\nlow = 1\nhigh = 2",
        POINT,
        "smal",
    );
    bad(
        "target = \"small.latency.p99 2ms\"\nlow = 1\nhigh = 2",
        POINT,
        "needs a comparison",
    );
    bad(
        "target = \"small.iops <= 2ms\"\nlow = 1\nhigh = 2",
        POINT,
        "I/Os per second",
    );
    bad(
        "target = \"big.iops >= 5\"\nlow = \"1MiB/s\"\nhigh = 2",
        POINT,
        "load is searched",
    );
    bad(
        "target = \"big.iops >= 5\"\nlow = 1\nhigh = 100000",
        POINT,
        "more than rigel keeps",
    );
}
