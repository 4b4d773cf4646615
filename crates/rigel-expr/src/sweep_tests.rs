//! Unit tests of load sweeps and ORION's level rule.

use super::*;

const ONE_DISK: Names = Names {
    targets: 1,
    cores: 2,
};
const THREE_DISKS: Names = Names {
    targets: 3,
    cores: 2,
};

fn levels(s: &str, names: &Names) -> Vec<u64> {
    match parse_sweep(s).and_then(|sweep| sweep.eval(names)) {
        Ok(v) => v,
        Err(e) => panic!("{s:?}: {e} {:?} at {:?}", e.hint, e.span),
    }
}

fn error(s: &str) -> ExprError {
    match parse_sweep(s).and_then(|sweep| sweep.eval(&ONE_DISK)) {
        Ok(v) => panic!("{s:?} gave {v:?}"),
        Err(e) => e,
    }
}

#[test]
fn orion_rule_matches_the_published_runs() {
    assert_eq!(orion_levels(0), Vec::<u64>::new());
    assert_eq!(orion_levels(1), vec![1]);
    assert_eq!(orion_levels(5), vec![1, 2, 3, 4, 5]);
    let forty = orion_levels(40);
    assert_eq!(forty.len(), 21);
    assert_eq!(&forty[..4], &[1, 2, 4, 6]);
    assert_eq!(forty.last(), Some(&40));
    let sixty = orion_levels(60);
    assert_eq!(sixty.len(), 22);
    assert_eq!(&sixty[..5], &[1, 2, 3, 6, 9]);
    assert_eq!(sixty.last(), Some(&60));
    assert_eq!(orion_levels(45).last(), Some(&45));
    assert_eq!(orion_levels(45)[22], 44);
    assert_eq!(orion_levels(45).len(), 24);
    for m in 0..500 {
        assert_eq!(
            orion_level_count(m),
            orion_levels(m).len() as u64,
            "m = {m}"
        );
    }
}

#[test]
fn orion_items_evaluate_their_maximum() {
    assert_eq!(levels("orion(5 * targets)", &ONE_DISK), vec![1, 2, 3, 4, 5]);
    assert_eq!(levels("orion(20 * targets)", &THREE_DISKS).len(), 22);
    assert_eq!(levels("ORION(2)", &ONE_DISK), vec![1, 2]);
    assert_eq!(levels("orion(0)", &ONE_DISK), Vec::<u64>::new());
    let err = error("orion(100000000)");
    assert!(err.message.contains("more than"), "{}", err.message);
    assert_eq!(err.span, 0..16);
}

#[test]
fn plain_counts_and_zero() {
    assert_eq!(levels("0", &ONE_DISK), vec![0]);
    assert_eq!(levels("4", &ONE_DISK), vec![4]);
    assert_eq!(levels("2*targets, 1", &THREE_DISKS), vec![1, 6]);
    assert_eq!(levels("8, 1, 4, 1,", &ONE_DISK), vec![1, 4, 8]);
}

#[test]
fn ranges_inclusive_exclusive_and_steps() {
    assert_eq!(levels("1..=4", &ONE_DISK), vec![1, 2, 3, 4]);
    assert_eq!(levels("1..4", &ONE_DISK), vec![1, 2, 3]);
    assert_eq!(levels("1..=32 x2", &ONE_DISK), vec![1, 2, 4, 8, 16, 32]);
    assert_eq!(levels("1..32 x2", &ONE_DISK), vec![1, 2, 4, 8, 16]);
    assert_eq!(levels("1..=30 x2", &ONE_DISK), vec![1, 2, 4, 8, 16]);
    assert_eq!(levels("1..=100 x10", &ONE_DISK), vec![1, 10, 100]);
    assert_eq!(levels("1..=10 step 4", &ONE_DISK), vec![1, 5, 9]);
    assert_eq!(levels("1..9 step 4", &ONE_DISK), vec![1, 5]);
    assert_eq!(levels("0..=8 STEP 4", &ONE_DISK), vec![0, 4, 8]);
    assert_eq!(
        levels("targets..=2*targets", &THREE_DISKS),
        vec![3, 4, 5, 6]
    );
    assert_eq!(levels("5..=5", &ONE_DISK), vec![5]);
    let top = u64::MAX;
    assert_eq!(levels(&format!("{top}..={top}"), &ONE_DISK), vec![top]);
    assert_eq!(
        levels(&format!("{}..={top} x2", 1u64 << 63), &ONE_DISK),
        vec![1 << 63]
    );
}

#[test]
fn items_of_any_kind_combine_sorted_and_distinct() {
    assert_eq!(
        levels("1, 2, 4..=64 x2, 100", &ONE_DISK),
        vec![1, 2, 4, 8, 16, 32, 64, 100]
    );
    assert_eq!(
        levels("100, orion(5), 1..=8 x2, 3", &ONE_DISK),
        vec![1, 2, 3, 4, 5, 8, 100]
    );
}

#[test]
fn empty_ranges_are_errors_with_a_hint() {
    let err = error("32..=1");
    assert_eq!(err.message, "the range 32..=1 is empty");
    assert_eq!(err.span, 0..6);
    assert_eq!(
        err.hint.as_deref(),
        Some("write the smaller bound first, e.g. 1..=32")
    );
    assert_eq!(error("1..1").message, "the range 1..1 is empty");
    assert_eq!(error("0..0").message, "the range 0..0 is empty");
    assert_eq!(error("4, 3..2").span, 3..7);
}

#[test]
fn bad_steps_are_errors() {
    let err = error("1..=8 step 0");
    assert_eq!(err.message, "a step of 0 never advances");
    assert_eq!(err.span, 11..12);
    let err = error("1..=8 x1");
    assert_eq!(err.message, "a geometric step of x1 never advances");
    assert_eq!(err.span, 6..8);
    assert!(error("1..=8 x0").message.contains("x0"));
    let err = error("0..=8 x2");
    assert!(err.message.contains("cannot start at 0"));
    assert!(err.hint.unwrap().contains("0, 1..=64 x2"));
}

#[test]
fn huge_ranges_are_refused_not_allocated() {
    let err = error("1..=10000000000");
    assert!(err.message.contains("more than 1000000 levels"));
    assert_eq!(
        levels("1..=10000000000 step 100000", &ONE_DISK).len(),
        100_000
    );
    assert_eq!(
        levels(&format!("0..={} step {}", u64::MAX, 1u64 << 62), &ONE_DISK).len(),
        4
    );
    let many = ["1..=600000"; 2].join(", ");
    assert!(error(&many).message.contains("more than"));
}

#[test]
fn errors_inside_items_keep_their_spans() {
    let err = error("1, 2, 4 / (targets - 1)");
    assert_eq!(err.span, 10..23);
    let err = error("1, taregts");
    assert_eq!(err.span, 3..10);
    assert_eq!(err.hint.as_deref(), Some("did you mean `targets`?"));
    let err = error("1..=targets - 2");
    assert_eq!(err.span, 4..15);
}

#[test]
fn malformed_sweeps_say_what_was_expected() {
    let err = error("1, , 2");
    assert!(
        err.message.starts_with("expected a sweep such as"),
        "{}",
        err.message
    );
    assert_eq!(err.span, 3..4);
    let err = error("1..=");
    assert!(err.message.contains("ends here"));
    let err = error("orion(5");
    assert!(err.message.contains("ends here"), "{}", err.message);
    let err = error("1..=8 x");
    assert_eq!(err.span, 7..7);
    assert!(err.message.contains("ends here"));
    let err = error("1 2");
    assert_eq!(err.message, "unexpected `2` after `1`");
    assert!(error("").message.contains("empty"));
}
