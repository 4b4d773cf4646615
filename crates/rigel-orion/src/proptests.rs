//! The spec `rigel orion` writes compiles to the plan ORION's options describe: a property test over
//! random option sets, against a model of ORION's semantics written from its documentation (load
//! levels, matrix cells and their order, Total Data Points, sizes, mix, layout, duration).

use super::*;
use proptest::prelude::*;
use rigel_expr::Access;
use rigel_plan::{Layout, RunPlan};
use rigel_spec::{self as spec, SpecInput};

/// ORION's level rule, from its reference: step `s = max(1, M/20)`, levels `1..=s`, then
/// `2s, 3s, …` up to `M`, and `M` itself.
fn orion_rule(m: u32) -> Vec<u32> {
    if m == 0 {
        return Vec::new();
    }
    let s = (m / 20).max(1);
    let mut v: Vec<u32> = (1..=s).collect();
    let mut k = 2 * s;
    while k <= m {
        v.push(k);
        k += s;
    }
    if v.last() != Some(&m) {
        v.push(m);
    }
    v
}

fn with_zero(levels: Vec<u32>) -> Vec<u32> {
    let mut v = vec![0];
    v.extend(levels.into_iter().filter(|&l| l > 0));
    v
}

/// The (small, large) loads in run order and ORION's Total Data Points.
fn model_points(o: &OrionOptions, luns: usize) -> (Vec<(u32, u32)>, u64) {
    let d = o.num_disks.unwrap_or(luns as u32);
    let (ns, nl) = (o.num_small.unwrap_or(0), o.num_large.unwrap_or(0));
    let grid = |small: Vec<u32>, large: Vec<u32>| {
        let cells = (small.len() * large.len()) as u64;
        let mut pts = Vec::new();
        for &l in &large {
            for &s in &small {
                if (s, l) != (0, 0) {
                    pts.push((s, l));
                }
            }
        }
        (pts, cells)
    };
    match (o.run, o.matrix()) {
        (RunLevel::Oltp, _) => grid(with_zero(orion_rule(20 * d)), vec![0]),
        (RunLevel::Dss, _) => grid(vec![0], with_zero(orion_rule(2 * d))),
        (_, Matrix::Basic) => {
            let mut pts: Vec<(u32, u32)> = orion_rule(5 * d).into_iter().map(|s| (s, 0)).collect();
            pts.extend(orion_rule(2 * d).into_iter().map(|l| (0, l)));
            let cells = pts.len() as u64 + 1;
            (pts, cells)
        }
        (_, Matrix::Detailed) => grid(with_zero(orion_rule(5 * d)), with_zero(orion_rule(2 * d))),
        (_, Matrix::Point) => grid(vec![ns], vec![nl]),
        (_, Matrix::Col) => grid(vec![ns], with_zero(orion_rule(2 * d))),
        (_, Matrix::Row) => grid(with_zero(orion_rule(5 * d)), vec![nl]),
        (_, Matrix::Max) => grid(with_zero(orion_rule(ns)), with_zero(orion_rule(nl))),
    }
}

fn compile(text: &str) -> RunPlan {
    let loaded = spec::load(
        SpecInput::Text {
            name: "orion",
            text,
        },
        &[],
        2,
    )
    .unwrap_or_else(|d| panic!("the spec loads:\n{}\n{text}", d.render(false)));
    rigel_plan::compile(&loaded.spec, 2)
        .unwrap_or_else(|e| panic!("the spec compiles: {e:?}\n{text}"))
}

fn options() -> impl Strategy<Value = (OrionOptions, usize)> {
    let sizes = (
        prop::sample::select(vec![4u64, 8, 16, 32]),
        prop::sample::select(vec![64u64, 128, 256, 1024]),
    );
    (
        prop::sample::select(RunLevel::ALL.to_vec()),
        prop::sample::select(Matrix::ALL.to_vec()),
        1usize..=4,
        prop::option::of(1u32..=12),
        sizes,
        any::<bool>(),
        prop::option::of(1u32..=8),
        (any::<bool>(), 1u64..=3),
        (0u8..=100, prop::option::of(0u64..=5000), 1u64..=120),
        (0u32..=40, 1u32..=40),
        any::<bool>(),
    )
        .prop_map(
            |(run, matrix, luns, disks, (small, large), seq, streams, raid, rest, loads, allow)| {
                let (raid0, stripe_mult) = raid;
                let (write, cache, duration) = rest;
                let mut o = OrionOptions::new(run);
                o.testname = Some("t".into());
                o.num_disks = disks;
                o.write = Some(write);
                o.cache_size = cache;
                o.duration = Some(duration);
                o.ext.allow_destructive = allow;
                if run == RunLevel::Advanced {
                    o.size_small = Some(small);
                    o.size_large = Some(large);
                    o.matrix = Some(matrix);
                    if seq {
                        o.large_type = Some(LargeType::Seq);
                        o.num_stream_io = streams;
                    }
                    // A point or max matrix needs some load; the second is never 0.
                    let (ns, nl) = loads;
                    o.num_small = matrix.uses_num_small().then_some(ns);
                    o.num_large = matrix.uses_num_large().then_some(nl);
                }
                if raid0 && luns >= 2 {
                    o.simulate = Some(Simulate::Raid0);
                    o.stripe = Some(o.size_large_kib() * stripe_mult);
                }
                (o, luns)
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn the_spec_compiles_to_the_plan_of_the_options((o, n) in options()) {
        rules::check(&o).map_err(|e| TestCaseError::fail(format!("generated options are valid: {e}")))?;
        let text: String = (0..n).map(|i| format!("/dev/lun{i}\n")).collect();
        let luns = LunFile::parse("t.lun", &text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let plan = compile(&to_spec(&o, &luns, "-run x"));

        let (points, total) = model_points(&o, n);
        let got: Vec<(u32, u32)> = plan.points.iter().map(|p| (p.load_of("small"), p.load_of("large"))).collect();
        prop_assert_eq!(got, points);
        prop_assert_eq!(plan.orion_total_points, total);

        prop_assert_eq!(plan.classes.len(), 2);
        let (small, large) = (&plan.classes[0], &plan.classes[1]);
        prop_assert_eq!((small.name.as_str(), large.name.as_str()), ("small", "large"));
        prop_assert_eq!(small.size, o.size_small_kib() * 1024);
        prop_assert_eq!(large.size, o.size_large_kib() * 1024);
        prop_assert_eq!(small.access, Access::Random);
        let seq = o.large_type() == LargeType::Seq;
        prop_assert_eq!(large.access, if seq { Access::Sequential } else { Access::Random });
        if seq {
            prop_assert_eq!(large.per_stream, o.num_stream_io());
        }
        for c in [small, large] {
            prop_assert_eq!(100 - u32::from(c.mix.read_percent), u32::from(o.write_percent()));
        }
        let layout = if o.simulate() == Simulate::Raid0 { Layout::Raid0 } else { Layout::Concat };
        prop_assert_eq!(plan.volume.layout, layout);
        prop_assert_eq!(plan.volume.stripe, o.stripe_kib() * 1024);
        prop_assert_eq!(plan.run.duration_ms, o.duration_s() * 1000);
        prop_assert_eq!(plan.run.warmup_ms, warmup_seconds(&o) * 1000);
        let paths: Vec<String> = plan.targets.iter().map(|t| t.path.clone()).collect();
        let want: Vec<String> = (0..n).map(|i| format!("/dev/lun{i}")).collect();
        prop_assert_eq!(paths, want);
        let writes = o.write_percent() > 0;
        for t in &plan.targets {
            prop_assert_eq!(t.written, writes);
            prop_assert_eq!(t.destructive, writes && o.ext.allow_destructive);
        }
    }
}

#[test]
fn published_point_counts() {
    let luns = |n: usize| {
        let text: String = (0..n).map(|i| format!("/dev/lun{i}\n")).collect();
        LunFile::parse("t.lun", &text).expect("parses")
    };
    let total = |run: RunLevel, n: usize| {
        compile(&to_spec(&OrionOptions::new(run), &luns(n), "")).orion_total_points
    };
    assert_eq!(total(RunLevel::Simple, 1), 8);
    assert_eq!(total(RunLevel::Simple, 8), 38);
    assert_eq!(total(RunLevel::Normal, 1), 18);
    assert_eq!(estimate_minutes(total(RunLevel::Oltp, 3), 60), 24);
}

/// The command line that asks for `o`, option by option, as a user would type it.
fn to_args(o: &OrionOptions) -> Vec<String> {
    let mut a: Vec<String> = vec!["-run".into(), o.run.name().into()];
    let mut push = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            a.push(format!("-{k}"));
            a.push(v);
        }
    };
    push("testname", o.testname.clone());
    push("num_disks", o.num_disks.map(|n| n.to_string()));
    push("size_small", o.size_small.map(|n| n.to_string()));
    push("size_large", o.size_large.map(|n| n.to_string()));
    let kind = |t: LargeType| if t == LargeType::Seq { "seq" } else { "rand" };
    push("type", o.large_type.map(|t| kind(t).into()));
    push("num_streamIO", o.num_stream_io.map(|n| n.to_string()));
    let layout = |s: Simulate| {
        if s == Simulate::Raid0 {
            "RAID0"
        } else {
            "concat"
        }
    };
    push("simulate", o.simulate.map(|s| layout(s).into()));
    push("stripe", o.stripe.map(|n| n.to_string()));
    push("write", o.write.map(|n| n.to_string()));
    push("cache_size", o.cache_size.map(|n| n.to_string()));
    push("duration", o.duration.map(|n| n.to_string()));
    push("matrix", o.matrix.map(|m| m.name().into()));
    push("num_small", o.num_small.map(|n| n.to_string()));
    push("num_large", o.num_large.map(|n| n.to_string()));
    if o.ext.allow_destructive {
        a.push("--allow-destructive".into());
    }
    a
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn the_command_line_parses_back_to_the_options((o, _) in options()) {
        let args = to_args(&o);
        prop_assert_eq!(parse(&args).map_err(|e| TestCaseError::fail(e.to_string()))?, Parsed::Run(Box::new(o)));
        // Any rotation of the options after -run means the same (ORION's options are unordered).
        let pairs: Vec<&[String]> = args[2..].chunks(2).collect();
        if pairs.len() > 1 {
            let mut rotated: Vec<String> = args[..2].to_vec();
            for p in pairs[1..].iter().chain(&pairs[..1]) {
                rotated.extend(p.iter().cloned());
            }
            prop_assert_eq!(parse(&rotated).is_ok(), true);
        }
    }
}
