//! `rigel history` keys a series by what was run (issue 42): runs that share a name but not a plan
//! are not compared with each other, and a run still in progress is "not compared" rather than
//! "no regression … of 0".

use super::builder::rigel;
use super::scenario::{Scenario, Spec};

#[test]
#[serial_test::parallel]
fn one_name_two_shapes_are_two_series_and_a_run_in_progress_is_not_compared() {
    let tmp = Scenario::new();
    let target = tmp.file("t.bin", 16 << 20);
    let spec = |levels: &str| {
        Spec::named("x")
            .destructive_target(&target)
            .set("run.duration", "1s")
            .set("run.warmup", "0s")
            .set("class.small.size", "8KiB")
            .set("matrix.small", levels)
    };
    let one = tmp.spec("one.toml", &spec("1"));
    let two = tmp.spec("two.toml", &spec("1, 2"));
    for (spec, out) in [(&one, "runs/a"), (&two, "runs/b"), (&one, "runs/c")] {
        tmp.run(spec, out, &["--allow-destructive"]).code(0);
    }
    // A copy of the last run without its results.json: a run still in progress.
    let partial = tmp.join("runs/d");
    std::fs::create_dir_all(&partial).unwrap();
    for e in std::fs::read_dir(tmp.join("runs/c")).unwrap().flatten() {
        let name = e.file_name();
        if name != "results.json" && e.path().is_file() {
            std::fs::copy(e.path(), partial.join(&name)).unwrap();
        }
    }
    let runs = tmp.join("runs");
    rigel().arg("history").arg(&runs).run().code(0);
    let html = std::fs::read_to_string(runs.join("index.html")).expect("index.html");
    // a and c are one series, compared; b, of another shape, is a first run of its own.
    assert_eq!(html.matches("first run").count(), 2, "{html}");
    assert_eq!(
        html.matches("<figure id=\"trend-").count(),
        1,
        "one trend: a and c"
    );
    assert!(html.contains("in progress: not compared"), "{html}");
    assert!(!html.contains("inconclusive of 0"), "{html}");
}
