//! Requirement keys: the accepted forms, the spans and hints of mistakes, class and unit checks.

use super::*;
use crate::{ExprError, parse_comparison};

fn key(s: &str) -> RequirementKey {
    match parse_requirement_key(s) {
        Ok(k) => k,
        Err(e) => panic!("{s:?}: {e} at {:?} ({:?})", e.span, e.hint),
    }
}

fn err(s: &str) -> ExprError {
    match parse_requirement_key(s) {
        Ok(k) => panic!("{s:?} parsed: {k:?}"),
        Err(e) => e,
    }
}

fn class_metric(k: &RequirementKey) -> (&str, Direction, Stat) {
    match &k.metric {
        Metric::Class {
            class,
            direction,
            stat,
        } => (class.name.as_str(), *direction, *stat),
        Metric::Errors => panic!("errors"),
    }
}

#[test]
fn metrics_with_and_without_direction() {
    let k = key("small.iops");
    assert_eq!(class_metric(&k), ("small", Direction::Total, Stat::Iops));
    assert_eq!(k.selector.pick, Pick::Best);
    assert!(k.selector.filters.is_empty());
    assert_eq!(
        class_metric(&key("large.write.mbps")),
        ("large", Direction::Write, Stat::Mbps)
    );
    assert_eq!(
        class_metric(&key("small.read.latency.p99.9")),
        ("small", Direction::Read, Stat::Latency(LatencyStat::P99_9))
    );
    assert_eq!(
        class_metric(&key("my-class.total.latency.p99.99")),
        (
            "my-class",
            Direction::Total,
            Stat::Latency(LatencyStat::P99_99)
        )
    );
    for l in LatencyStat::ALL {
        let k = key(&format!("small.latency.{}", l.name()));
        assert_eq!(class_metric(&k).2, Stat::Latency(l));
        assert_eq!(k.metric.to_string(), format!("small.latency.{}", l.name()));
    }
    let k = key("errors");
    assert_eq!(k.metric, Metric::Errors);
    assert_eq!(k.selector.pick, Pick::Every);
}

#[test]
fn selectors() {
    let k = key("small.latency.p99 @ small=1");
    assert_eq!(k.selector.pick, Pick::Every);
    assert_eq!(k.selector.filters.len(), 1);
    assert_eq!(k.selector.filters[0].class.name, "small");
    assert_eq!(k.selector.filters[0].class.span, 20..25);
    assert_eq!(k.selector.filters[0].condition, Condition::Load(1));
    let k = key("small.iops @ small=1, large=0");
    assert_eq!(k.selector.filters.len(), 2);
    let k = key("small.iops@small=1 large=0");
    assert_eq!(k.selector.filters[1].condition, Condition::Load(0));
    assert_eq!(key("large.mbps @ all").selector.pick, Pick::Every);
    assert_eq!(key("large.mbps @ ALL").selector.pick, Pick::Every);
    assert_eq!(key("large.mbps @ best").selector.pick, Pick::Best);
    let k = key("small.iops @ best small.size=8KiB");
    assert_eq!(k.selector.pick, Pick::Best);
    assert_eq!(k.selector.filters[0].condition, Condition::Size(8192));
    let k = key("small.iops @ small.mix=70/30 small.access=seq small.per_stream=2");
    let c: Vec<Condition> = k.selector.filters.iter().map(|f| f.condition).collect();
    assert_eq!(
        c,
        vec![
            Condition::Mix(Mix::reads_of(70)),
            Condition::Access(Access::Sequential),
            Condition::PerStream(2)
        ]
    );
    assert_eq!(
        key("errors @ small=4").selector.filters[0].condition,
        Condition::Load(4)
    );
    assert_eq!(key("errors @ all").selector.pick, Pick::Every);
}

#[test]
fn mistakes_are_spanned_with_hints() {
    let e = err("small.iosp");
    assert_eq!(
        (e.message.as_str(), e.span.clone()),
        ("unknown metric `iosp`", 6..10)
    );
    assert_eq!(e.hint.as_deref(), Some("did you mean `iops`?"));
    let e = err("small.latency.p999");
    assert_eq!(e.message, "unknown latency statistic `p999`");
    assert_eq!(e.span, 14..18);
    assert_eq!(e.hint.as_deref(), Some("did you mean `p99.9`?"));
    let e = err("small.latency.p99.5");
    assert_eq!(e.span, 14..19);
    let e = err("small.latency");
    assert_eq!(e.message, "a latency requirement needs a statistic");
    assert_eq!(e.span, 6..13);
    let e = err("iops");
    assert_eq!(e.hint.as_deref(), Some("name the class first: small.iops"));
    let e = err("small.iops.p99");
    assert_eq!(e.span, 11..14);
    let e = err("small.read");
    assert!(e.message.contains("needs a metric"), "{}", e.message);
    let e = err("small.iops @ small=x");
    assert_eq!(e.span, 19..20);
    assert!(e.message.contains("whole number"));
    let e = err("small.iops @ small.sise=8KiB");
    assert_eq!(e.span, 19..23);
    assert_eq!(e.hint.as_deref(), Some("did you mean `size`?"));
    let e = err("small.iops @ small.size=8kB");
    assert_eq!(e.span, 25..27);
    let e = err("small.iops @ all best");
    assert_eq!(e.span, 17..21);
    let e = err("errors @ best");
    assert!(e.message.contains("does not apply"));
    let e = err("small.iops @");
    assert!(e.message.contains("ends here"), "{}", e.message);
    let e = err("small.iops small=1");
    assert_eq!(e.span, 11..16);
    let e = err("small..iops");
    assert_eq!(e.span, 6..11, "{e:?}");
    assert!(err("").message.starts_with("empty value"));
}

#[test]
fn no_rule_name_leaks() {
    for input in [
        "small.iops @",
        "small.",
        "@",
        "small.iops @ =1",
        "a.b @ c=",
        "x y",
    ] {
        let e = err(input);
        let text = format!("{} {:?}", e.message, e.hint);
        for leak in ["Rule", "EOI", "select_", "key_word", "metric_path"] {
            assert!(!text.contains(leak), "{input:?}: {text}");
        }
    }
}

fn facts() -> Vec<ClassFacts<'static>> {
    vec![
        ClassFacts {
            name: "small",
            reads: true,
            writes: false,
            commits: false,
        },
        ClassFacts {
            name: "large",
            reads: true,
            writes: true,
            commits: true,
        },
    ]
}

#[test]
fn class_names_are_checked_against_the_spec() {
    assert!(check_key(&key("small.iops @ large=0"), &facts()).is_empty());
    let errors = check_key(&key("smal.iops @ larg=1"), &facts());
    assert_eq!(errors.len(), 2);
    assert_eq!(errors[0].span, 0..4);
    assert_eq!(errors[0].hint.as_deref(), Some("did you mean `small`?"));
    assert_eq!(errors[1].span, 12..16);
    let errors = check_key(&key("other.iops"), &facts());
    assert_eq!(
        errors[0].hint.as_deref(),
        Some("the classes are: small, large")
    );
    let errors = check_key(&key("small.write.iops"), &facts());
    assert_eq!(errors[0].message, "class `small` never writes");
    assert!(check_key(&key("large.write.iops"), &facts()).is_empty());
    assert!(check_key(&key("errors"), &facts()).is_empty());
}

#[test]
fn commits_are_a_direction_of_a_class_that_commits() {
    let k = key("large.commit.latency.p99 @ large=1");
    assert_eq!(
        k.metric,
        Metric::Class {
            class: Named {
                name: "large".into(),
                span: 0..5
            },
            direction: Direction::Commit,
            stat: Stat::Latency(LatencyStat::P99),
        }
    );
    assert_eq!(k.metric.to_string(), "large.commit.latency.p99");
    assert!(check_key(&k, &facts()).is_empty());
    assert!(check_key(&key("large.commit.iops"), &facts()).is_empty());
    assert!(check_key(&key("large.commit.service.p99.9"), &facts()).is_empty());
    let errors = check_key(&key("small.commit.latency.p99"), &facts());
    assert_eq!(errors[0].message, "class `small` never commits");
    assert_eq!(errors[0].span, 0..5);
    let errors = check_key(&key("large.commit.mbps"), &facts());
    assert_eq!(errors[0].message, "a commit moves no bytes of its own");
}

#[test]
fn units_must_fit_the_metric() {
    let ok = |k: &str, c: &str| check_unit(&key(k).metric, &parse_comparison(c).unwrap());
    assert!(ok("small.iops", ">= 40000").is_ok());
    assert!(ok("small.iops", ">= 40000 IOPS").is_ok());
    assert!(ok("large.mbps", ">= 200MiB/s").is_ok());
    assert!(ok("small.latency.p99", "<= 500us").is_ok());
    assert!(ok("errors", "== 0").is_ok());
    let (message, hint) = ok("large.mbps", ">= 200").unwrap_err();
    assert_eq!(message, "expected a rate here, found a plain number");
    assert_eq!(hint, "write >= 200MiB/s (rigel's MB/s are MiB/s)");
    let (message, hint) = ok("small.latency.p99", "<= 500").unwrap_err();
    assert_eq!(message, "expected a time here, found a plain number");
    assert!(hint.contains("<= 500us"));
    assert!(ok("small.iops", "<= 2ms").is_err());
    assert!(ok("small.latency.max", "<= 1MiB").is_err());
    assert!(ok("errors", "<= 1s").is_err());
}

#[test]
fn stat_names_round_trip() {
    for s in ["iops", "mbps", "latency.p99", "latency.p99.99"] {
        assert_eq!(Stat::from_name(s).map(Stat::name).as_deref(), Some(s));
    }
    assert_eq!(
        Stat::from_name("p99"),
        Some(Stat::Latency(LatencyStat::P99))
    );
    assert_eq!(Stat::from_name("latency"), None);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any text gives a key or a mistake whose span lies inside the text, on character bounds.
        #[test]
        fn no_key_text_panics_and_spans_stay_inside(s in "[a-z0-9 .@=,_%/\\-µ]{0,40}") {
            if let Err(e) = parse_requirement_key(&s) {
                prop_assert!(e.span.start <= e.span.end && e.span.end <= s.len(), "{:?} {:?}", s, e);
                prop_assert!(s.is_char_boundary(e.span.start) && s.is_char_boundary(e.span.end));
            }
        }

        /// Keys the parser accepts print back as the same metric.
        #[test]
        fn metrics_print_back(
            class in "[a-z][a-z0-9_]{0,8}",
            dir in prop::sample::select(vec!["", ".read", ".write"]),
            stat in prop::sample::select(vec!["iops", "mbps", "latency.p99.9", "latency.mean", "latency.max"]),
        ) {
            let text = format!("{class}{dir}.{stat}");
            let key = parse_requirement_key(&text);
            prop_assert!(key.is_ok(), "{}", text);
            if let Ok(key) = key {
                prop_assert_eq!(key.metric.to_string(), text);
            }
        }
    }
}
