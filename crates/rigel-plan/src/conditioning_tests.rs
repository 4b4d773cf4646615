//! Tests of `[precondition]` and `run.steady` in the plan: the fill's defaults, bytes and pass
//! points, refusals, and steady state's worst-case estimate.

use super::model::PreconditionPlan;
use super::model::RunPlan;
use rigel_expr::Access;
use rigel_spec::SpecError;

fn compiled(targets: &str, rest: &str) -> Result<RunPlan, Vec<String>> {
    let text = format!(
        "{targets}\n[class.small]\nsize = \"4KiB\"\n[matrix]\nshape = \"point\"\nsmall = \"4\"\n\
         {rest}\n"
    );
    let input = rigel_spec::SpecInput::Text {
        name: "t",
        text: &text,
    };
    let messages = |e: &[SpecError]| e.iter().map(|e| e.message.clone()).collect();
    let loaded = rigel_spec::load(input, &[], 2).map_err(|d| messages(&d.errors))?;
    super::compile(&loaded.spec, 2).map_err(|e| messages(&e))
}

const TWO: &str =
    "[[target]]\npath = \"a\"\nsize = \"100MiB\"\n[[target]]\npath = \"b\"\nsize = \"1000448\"";

#[test]
fn snia_defaults_fill_twice_the_declared_volume_and_mark_it_written() {
    let p = compiled(TWO, "[precondition]").unwrap();
    let pre = p.precondition.as_ref().unwrap();
    assert_eq!(
        (pre.passes, pre.pattern, pre.size, pre.depth),
        (2, Access::Sequential, 128 << 10, 32)
    );
    // Whole 128 KiB writes per target: 800 of a, 7 of b (its last 82,944 bytes are a tail).
    assert_eq!(pre.bytes, Some(2 * (100 << 20) + 2 * 7 * (128 << 10)));
    assert!(p.targets.iter().all(|t| t.written));
    // A read-only plan without it writes nothing.
    assert!(
        compiled(TWO, "")
            .unwrap()
            .targets
            .iter()
            .all(|t| !t.written)
    );
    // A target of unknown size: the plan cannot say the bytes.
    let dev = compiled("[[target]]\npath = \"/dev/x\"", "[precondition]").unwrap();
    assert_eq!(dev.precondition.unwrap().bytes, None);
}

#[test]
fn a_pass_is_one_stream_of_writes_or_depth_random_slots() {
    let p = compiled(TWO, "[precondition]\npattern = \"random\"\ndepth = 8").unwrap();
    let pre = p.precondition.unwrap();
    let c = &pre.pass_point(1).classes[0];
    assert_eq!((c.load, c.per_stream, c.outstanding), (8, 1, 8));
    assert!(c.mix.writes() && !c.mix.reads());
    let seq = PreconditionPlan {
        pattern: Access::Sequential,
        ..pre.clone()
    };
    let c = &seq.pass_point(0).classes[0];
    assert_eq!((c.load, c.per_stream, c.outstanding), (1, 8, 8));
    assert_ne!(seq.pass_point(0).id, seq.pass_point(1).id);
}

#[test]
fn bad_fills_are_refused_at_their_value() {
    let e = compiled(
        TWO,
        "[precondition]\nsize = \"1000\"\npasses = 0\ndepth = 0",
    )
    .unwrap_err();
    assert_eq!(e.len(), 3, "{e:?}");
    assert!(e[0].contains("1000 bytes"), "{e:?}");
}

#[test]
fn steady_state_estimates_its_worst_case() {
    let steady = "[run]\nduration = \"10s\"\n\
                  steady = { metric = \"small.iops\", max = \"5m\" }";
    let p = compiled(TWO, steady).unwrap();
    let s = p.steady.as_ref().unwrap();
    assert_eq!(
        (s.rounds, s.excursion, s.slope, s.max_ms),
        (5, 20.0, 10.0, 300_000)
    );
    // Rounds until max, one more that started before it, the measured run.
    assert_eq!(p.estimated_seconds, 300 + 2 * 10);
}

#[test]
fn a_read_through_fill_reads_and_writes_no_target() {
    let p = compiled(TWO, "[precondition]\nread = true\npasses = 1").unwrap();
    let pre = p.precondition.as_ref().unwrap();
    assert!(pre.read);
    let c = &pre.pass_point(0).classes[0];
    assert!(c.mix.reads() && !c.mix.writes());
    assert!(p.targets.iter().all(|t| !t.written));
    assert_eq!(
        pre.describe(),
        "1 sequential pass of 128 KiB reads (QD 32) before the first point: 100.9 MiB"
    );
    // Not a boolean: refused at its value.
    let text = "[[target]]\npath = \"a\"\nsize = \"1MiB\"\n[class.small]\nsize = \"4KiB\"\n\
                [matrix]\nshape = \"point\"\nsmall = \"4\"\n[precondition]\nread = \"yes\"\n";
    let input = rigel_spec::SpecInput::Text { name: "t", text };
    let Err(d) = rigel_spec::load(input, &[], 2) else {
        panic!("a non-boolean read was accepted")
    };
    let e = d.errors;
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].message.contains("`read`"), "{e:?}");
    let at = text.find("\"yes\"").unwrap();
    let loc = e[0].loc.as_ref().expect("a place");
    assert_eq!(loc.span.start, at, "{loc:?}");
}
