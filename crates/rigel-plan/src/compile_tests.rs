//! Tests of the compiler: what a spec compiles to, and the errors it reports.

use super::*;
use crate::Buffers;
use rigel_expr::Arrival;
use rigel_spec::{SpecInput, load};

fn plan(text: &str) -> Result<RunPlan, Vec<String>> {
    let loaded = load(SpecInput::Text { name: "t", text }, &[], 2).map_err(|d| {
        d.errors
            .iter()
            .map(|e| e.message.clone())
            .collect::<Vec<_>>()
    })?;
    compile(&loaded.spec, 2).map_err(|e| e.iter().map(|e| e.message.clone()).collect())
}

fn two_classes(shape: &str, small: &str, large: &str) -> String {
    format!(
        "[[target]]\npath = \"a\"\n[[target]]\npath = \"b\"\n[class.small]\nsize = \"8KiB\"\n[class.large]\nsize = \"1MiB\"\naccess = \"sequential\"\n[matrix]\nshape = \"{shape}\"\nsmall = \"{small}\"\nlarge = \"{large}\"\n"
    )
}

fn loads(p: &RunPlan) -> Vec<(u32, u32)> {
    p.points
        .iter()
        .map(|p| (p.load_of("small"), p.load_of("large")))
        .collect()
}

#[test]
fn rates_reach_the_points_and_sweep() {
    let one = |rate: &str, sweep: &str| {
        plan(&format!(
            "[[target]]\npath = \"a\"\n[class.small]\nsize = \"8KiB\"\nrate = \"{rate}\"\n\
                 arrival = \"poisson\"\n[matrix]\nsmall = \"16\"\n{sweep}"
        ))
    };
    let p = one("80MiB/s", "").unwrap();
    let c = &p.points[0].classes[0];
    assert_eq!(c.rate_iops(), Some(10240.0));
    assert_eq!(c.arrival, Arrival::Poisson);
    assert_eq!(c.outstanding, 16, "the load caps what is outstanding");
    let p = one(
        "1000 iops",
        "[sweep]\n\"small.rate\" = \"5000..=15000 step 5000\"",
    )
    .unwrap();
    let rates: Vec<_> = p.points.iter().map(|p| p.classes[0].rate_iops()).collect();
    assert_eq!(rates, [Some(5000.0), Some(10000.0), Some(15000.0)]);
    assert_eq!(p.points[1].sweep[0].value, "10000 iops");
    // Less than one 8 KiB I/O per second.
    let errors = one("4KiB/s", "").unwrap_err();
    assert!(errors[0].contains("less than one"), "{errors:?}");
}

#[test]
fn points_list_idle_classes_only_while_the_classes_are_few() {
    // Two classes: every point lists both, the idle one at 0 (labels read `small=1 large=0`).
    let p = plan(&two_classes("basic", "1", "1")).unwrap();
    assert!(p.points.iter().all(|p| p.classes.len() == 2));
    assert_eq!(p.points[0].label(), "small=1 large=0");
    // Many classes: a point lists the classes that run, readers find the others idle.
    let n = crate::LISTED_IDLE_CLASSES + 1;
    let mut text = "[[target]]\npath = \"a\"\n".to_owned();
    for i in 0..n {
        text.push_str(&format!("[class.c{i}]\nsize = \"8KiB\"\n"));
    }
    text.push_str("[matrix]\nshape = \"detailed\"\n");
    for i in 0..n {
        let load = if i < 2 { "0,1" } else { "0" };
        text.push_str(&format!("c{i} = \"{load}\"\n"));
    }
    let p = plan(&text).unwrap();
    let listed: Vec<Vec<(&str, u32)>> = p
        .points
        .iter()
        .map(|p| {
            p.classes
                .iter()
                .map(|c| (c.class.as_str(), c.load))
                .collect()
        })
        .collect();
    assert_eq!(
        listed,
        vec![vec![("c0", 1)], vec![("c1", 1)], vec![("c0", 1), ("c1", 1)]]
    );
    assert_eq!(p.points[2].load_of("c5"), 0);
    assert_eq!(p.points[2].label(), "c0=1 c1=1");
}

#[test]
fn io_timeout_defaults_to_30s_and_is_bounded() {
    let base = two_classes("basic", "1", "1");
    assert_eq!(plan(&base).unwrap().run.io_timeout_ms, 30_000);
    let with = |t: &str| plan(&format!("[run]\nio_timeout = \"{t}\"\n{base}"));
    assert_eq!(with("2s").unwrap().run.io_timeout_ms, 2_000);
    for bad in ["10ms", "2h"] {
        let errors = with(bad).unwrap_err();
        assert!(
            errors[0].contains("`io_timeout` must be between"),
            "{errors:?}"
        );
    }
    assert!(with("soon").is_err());
}

#[test]
fn buffers_default_to_small_pages_and_huge_is_kept_in_the_plan() {
    let base = two_classes("basic", "1", "1");
    let p = plan(&base).unwrap();
    assert_eq!(p.run.buffers, Buffers::Pages);
    // The default stays out of the plan's JSON (plans written before the key read the same).
    assert!(!serde_json::to_string(&p.run).unwrap().contains("buffers"));
    let with = |b: &str| plan(&format!("[run]\nbuffers = \"{b}\"\n{base}"));
    let huge = with("huge").unwrap();
    assert_eq!(huge.run.buffers, Buffers::Huge);
    assert!(
        serde_json::to_string(&huge.run)
            .unwrap()
            .contains("\"buffers\":\"huge\"")
    );
    let errors = with("large").unwrap_err();
    assert!(errors[0].contains("buffers"), "{errors:?}");
}

#[test]
fn basic_runs_each_class_alone_and_counts_the_idle_cell() {
    let p = plan(&two_classes("basic", "1, 2", "1")).unwrap();
    assert_eq!(loads(&p), vec![(1, 0), (2, 0), (0, 1)]);
    assert_eq!(p.orion_total_points, 4);
    assert_eq!(
        p.points.iter().map(|p| p.id).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
}

#[test]
fn detailed_varies_the_first_class_fastest() {
    let p = plan(&two_classes("detailed", "1, 2", "1")).unwrap();
    assert_eq!(loads(&p), vec![(1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]);
    assert_eq!(p.orion_total_points, 6);
}

#[test]
fn row_and_col_vary_one_class_from_zero() {
    let row = plan(&two_classes("row", "1, 2", "3")).unwrap();
    assert_eq!(loads(&row), vec![(0, 3), (1, 3), (2, 3)]);
    let col = plan(&two_classes("col", "0", "1, 2")).unwrap();
    assert_eq!(loads(&col), vec![(0, 1), (0, 2)]);
    assert_eq!(col.orion_total_points, 3);
}

#[test]
fn sequential_loads_are_streams_times_per_stream() {
    let p = plan(&two_classes("point", "0", "3")).unwrap();
    let large = &p.points[0].classes[1];
    assert_eq!(
        (large.load, large.per_stream, large.outstanding),
        (3, 4, 12)
    );
}

#[test]
fn sweeps_are_outer_loops_in_the_order_written() {
    let text = two_classes("basic", "1", "1")
        + "[sweep]\n\"small.size\" = \"4KiB, 8KiB\"\n\"small.mix\" = \"read, write\"\n";
    let p = plan(&text).unwrap();
    let first: Vec<String> = p
        .points
        .iter()
        .step_by(2)
        .map(|p| format!("{}/{}", p.sweep[0].value, p.sweep[1].value))
        .collect();
    assert_eq!(
        first,
        vec!["4KiB/read", "4KiB/write", "8KiB/read", "8KiB/write"]
    );
    assert_eq!(p.points[2].classes[0].mix.read_percent, 0);
    assert!(p.targets.iter().all(|t| t.written));
    assert_eq!(p.orion_total_points, 12);
}

#[test]
fn invalid_combinations_are_errors() {
    let raid = two_classes("basic", "1", "1").replace(
        "[class.small]",
        "[volume]\nlayout = \"raid0\"\nstripe = \"64KiB\"\n[class.small]",
    );
    let errors = plan(&raid).unwrap_err();
    assert!(
        errors[0].contains("does not fit the raid0 stripe"),
        "{errors:?}"
    );
    let idle = plan(&two_classes("point", "0", "0")).unwrap_err();
    assert!(idle[0].contains("no point with any load"), "{idle:?}");
}

#[test]
fn the_same_spec_gives_the_same_plan() {
    let text = two_classes("detailed", "orion(10)", "1..=4");
    let a = serde_json::to_string(&plan(&text).unwrap()).unwrap();
    let b = serde_json::to_string(&plan(&text).unwrap()).unwrap();
    assert_eq!(a, b);
}

#[test]
fn verify_is_planned_with_its_map_and_refused_where_blocks_do_not_fit() {
    let spec = |run: &str, class: &str| {
        plan(&format!(
            "[[target]]\npath = \"a\"\nsize = \"1GiB\"\n[run]\n{run}\n[class.small]\nsize = \"8KiB\"\n{class}\n\
             [class.big]\nsize = \"6KiB\"\n[matrix]\nshape = \"point\"\nsmall = \"1\"\nbig = \"1\"\n"
        ))
    };
    let p = spec("", "verify = \"after\"").unwrap();
    let v = p.run.verify.expect("verify planned");
    assert_eq!(v.classes, vec!["small".to_string()]);
    assert!(v.after);
    assert_eq!(v.unit, 4096);
    // 1 GiB in 4 KiB blocks, 2 bytes each.
    assert_eq!(v.map_bytes, Some(512 * 1024));
    assert!(spec("", "").unwrap().run.verify.is_none());
    // `[run] verify` reaches every class; big's 6 KiB I/Os are not whole 4 KiB blocks.
    let e = spec("verify = true", "").unwrap_err();
    assert!(
        e[0].contains("class `big` verifies in blocks of 4KiB but does 6KiB I/Os"),
        "{e:?}"
    );
    let p = spec("verify = true\nverify_unit = 512", "").unwrap();
    assert_eq!(p.run.verify.expect("verify").classes.len(), 2);
    let e = spec("verify = true\nverify_unit = 1000", "").unwrap_err();
    assert!(e[0].contains("not a multiple of 512"), "{e:?}");
    // A class's own `verify = false` wins over the run's.
    let p = spec("verify = true\nverify_unit = 512", "verify = false").unwrap();
    assert_eq!(
        p.run.verify.expect("verify").classes,
        vec!["big".to_string()]
    );
}

#[test]
fn a_journal_is_planned_with_verify_and_knows_whether_every_write_was_durable() {
    let spec = |run: &str, durability: &str| {
        plan(&format!(
            "[[target]]\npath = \"a\"\nsize = \"1GiB\"\n[run]\n{run}\n[class.log]\nsize = \"8KiB\"\n\
             mix = \"write\"\n{durability}\n[class.scan]\nsize = \"64KiB\"\n\
             [matrix]\nshape = \"point\"\nlog = \"1\"\nscan = \"1\"\n"
        ))
    };
    let v = spec("verify = true\njournal = true", "durability = \"dsync\"")
        .unwrap()
        .run
        .verify
        .expect("verify");
    // The reading class needs no durability: every write carries it.
    assert!(v.journal && v.durable, "{v:?}");
    let v = spec("verify = true\njournal = true", "")
        .unwrap()
        .run
        .verify
        .expect("verify");
    assert!(v.journal && !v.durable, "{v:?}");
    assert!(
        !spec("verify = true", "")
            .unwrap()
            .run
            .verify
            .expect("verify")
            .journal
    );
    let e = spec("journal = true", "").unwrap_err();
    assert!(
        e[0].contains("`journal` keeps what `verify` wrote, but no class verifies"),
        "{e:?}"
    );
}
