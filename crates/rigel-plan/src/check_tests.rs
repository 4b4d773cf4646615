//! Tests of `check`: a partial spec told apart (and refused where a plan is needed), and the
//! requirements' selectors held against the plan, each mistake underlined in its key.

use super::check::{Checked, check};
use super::selectors::check_selectors;
use rigel_spec::{Builtins, SpecInput};

/// ORION's basic shape: small alone at 1..=5 (70% reads), then large alone at 1, 2 (reads).
const BASIC: &str = "[[target]]\npath = \"a\"\nsize = \"1GiB\"\n\
    [class.small]\nsize = \"8KiB\"\nmix = \"70% read\"\n\
    [class.large]\nsize = \"1MiB\"\nmix = \"read\"\n\
    [matrix]\nshape = \"basic\"\nsmall = \"1..=5\"\nlarge = \"1, 2\"\n";

fn checked(text: &str) -> Result<Checked, Vec<String>> {
    check(
        SpecInput::Text { name: "t", text },
        &[],
        2,
        &Builtins::single(),
    )
    .map_err(|d| d.errors.iter().map(|e| e.message.clone()).collect())
}

fn with_expect(expect: &[(&str, &str)]) -> String {
    let lines: String = expect
        .iter()
        .map(|(k, c)| format!("\"{k}\" = \"{c}\"\n"))
        .collect();
    format!("{BASIC}[expect]\n{lines}")
}

#[test]
fn selectors_are_checked_against_the_plan() {
    let text = with_expect(&[
        ("small.iops @ small=2", ">= 1"),
        ("small.iops @ small=7", ">= 1"),
        ("small.iops @ large=2", ">= 1"),
        ("small.write.iops @ large=1", ">= 1"),
        ("errors @ large=9", "== 0"),
        ("large.mbps @ all", ">= 1MiB/s"),
    ]);
    let errors = checked(&text).err().expect("four selectors pick nothing");
    assert_eq!(
        errors,
        [
            "no point of the plan has small=7",
            "`small` runs at no point with large=2",
            "`small` writes at no point with large=1",
            "no point of the plan has large=9",
        ]
    );
    // The spans, in the keys (what the diagnostics underline).
    let loaded = rigel_spec::load(
        SpecInput::Text {
            name: "t",
            text: &text,
        },
        &[],
        2,
    )
    .expect("the spec loads");
    let plan = crate::compile(&loaded.spec, 2).expect("the plan compiles");
    let found: Vec<(usize, std::ops::Range<usize>)> = check_selectors(&plan)
        .into_iter()
        .map(|(i, e)| (i, e.span))
        .collect();
    assert_eq!(found, [(1, 13..20), (2, 13..20), (3, 19..26), (4, 9..16)]);
}

#[test]
fn a_spec_whose_selectors_all_pick_points_checks() {
    let text = with_expect(&[
        ("small.iops @ small=2", ">= 1"),
        ("large.mbps", ">= 1MiB/s"),
    ]);
    let Ok(Checked {
        plan: Some(plan), ..
    }) = checked(&text)
    else {
        panic!("the spec checks")
    };
    assert_eq!(plan.points.len(), 7);
}

#[test]
fn a_partial_spec_checks_and_is_refused_where_a_plan_is_needed() {
    let text = "[spec]\nname = \"base\"\npartial = true\n[[target]]\npath = \"a\"\n";
    let Ok(partial @ Checked { plan: None, .. }) = checked(text) else {
        panic!("a partial spec checks, with no plan")
    };
    let refused = partial.runnable().expect_err("refused");
    assert_eq!(refused.errors.len(), 1);
    assert_eq!(
        refused.errors[0].message,
        "`base` is a partial spec (a base to extend), not a runnable one"
    );
}
