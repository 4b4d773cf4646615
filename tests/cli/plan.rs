//! `rigel plan`: ORION's published point counts from the shipped ORION specs, the table, JSON, and
//! `--set` overrides.

use super::builder::rigel;

fn plan_json(args: &[&str]) -> serde_json::Value {
    let out = rigel().arg("plan").args(args).arg("--json").run().code(0);
    serde_json::from_str(&out.stdout).expect("plan --json prints JSON")
}

fn points(plan: &serde_json::Value) -> usize {
    plan["points"].as_array().expect("points").len()
}

#[test]
#[serial_test::parallel]
fn orion_simple_counts_match_orion() {
    let one = plan_json(&["specs/orion/simple.toml"]);
    assert_eq!(one["orion_total_points"], 8);
    assert_eq!(points(&one), 7);
    let eight = plan_json(&["specs/orion/simple.toml", "--set", "disks=8"]);
    assert_eq!(eight["orion_total_points"], 38);
}

#[test]
#[serial_test::parallel]
fn orion_normal_and_oltp_counts_match_orion() {
    let normal = plan_json(&["specs/orion/normal.toml"]);
    assert_eq!(normal["orion_total_points"], 18);
    let oltp = plan_json(&["specs/orion/oltp.toml", "--set", "disks=3"]);
    let small: Vec<u64> = oltp["points"]
        .as_array()
        .expect("points")
        .iter()
        .map(|p| p["classes"][0]["load"].as_u64().expect("a load"))
        .collect();
    let mut expected = vec![1, 2, 3];
    expected.extend((2..=20).map(|k| 3 * k));
    assert_eq!(small, expected);
    // ORION's estimate for oltp with 3 disks is 24 minutes: (Total Data Points + 1) × 1 minute.
    assert_eq!(oltp["orion_total_points"], 23);
}

#[test]
#[serial_test::parallel]
fn plan_table_shows_totals_and_points() {
    let out = rigel()
        .args(["plan", "specs/orion/simple.toml"])
        .run()
        .code(0);
    insta::assert_snapshot!(out.stdout);
}

#[test]
#[serial_test::parallel]
fn set_overrides_a_dotted_key() {
    let plan = plan_json(&[
        "specs/quick.toml",
        "--set",
        "run.duration=10s",
        "--set",
        "class.small.size=4KiB",
    ]);
    assert_eq!(plan["run"]["duration_ms"], 10_000);
    assert_eq!(plan["points"][0]["classes"][0]["size"], 4096);
}

/// A `[sweep]` key is `CLASS.PARAMETER` itself: `--set sweep.io.size=…` (or quoted) replaces it.
#[test]
#[serial_test::parallel]
fn set_replaces_a_sweep_key_dotted_or_quoted() {
    let all = plan_json(&["specs/bs-qd-sweep.toml"]);
    let levels = all["points"].as_array().expect("points").len();
    for key in ["sweep.io.size=4KiB, 8KiB", r#"sweep."io.size"=4KiB, 8KiB"#] {
        let plan = plan_json(&["specs/bs-qd-sweep.toml", "--set", key]);
        let points = plan["points"].as_array().expect("points");
        let sizes: std::collections::BTreeSet<u64> = points
            .iter()
            .map(|p| p["classes"][0]["size"].as_u64().expect("size"))
            .collect();
        assert_eq!(sizes, [4096, 8192].into(), "{key}");
        assert!(points.len() < levels, "{key}: {} of {levels}", points.len());
    }
}

#[test]
#[serial_test::parallel]
fn set_rejects_an_unknown_variable_with_a_hint() {
    let out = rigel()
        .args(["plan", "specs/orion/simple.toml", "--set", "disk=4"])
        .run()
        .code(2);
    out.stderr_has("did you mean `disks`");
}

#[test]
#[serial_test::parallel]
fn extends_merges_the_base() {
    let plan = plan_json(&["specs/oltp-70-30.toml"]);
    assert_eq!(plan["run"]["duration_ms"], 30_000);
    assert_eq!(plan["run"]["seed"], 42);
    assert_eq!(plan["targets"][0]["path"], "rigel-test.bin");
    assert_eq!(plan["points"][0]["classes"][0]["mix"]["read_percent"], 70);
}

#[test]
#[serial_test::parallel]
fn workers_auto_or_zero_is_one_per_cpu_rigel_may_run_on() {
    // What sched_getaffinity allows this process (the test inherits no cgroup quota here; the
    // standard library's figure honours one too).
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    for value in ["auto", "0", "cores"] {
        let plan = plan_json(&["specs/quick.toml", "--set", &format!("run.workers={value}")]);
        assert_eq!(plan["run"]["workers"], cpus, "workers = {value}");
    }
}

/// One stream is `1 stream`, a write sweep's mix is `write` (never `0% read`).
#[test]
#[serial_test::parallel]
fn the_plan_says_one_stream_and_a_mix_in_words() {
    let dir = tempfile::tempdir().expect("tempdir");
    let spec = dir.path().join("held.toml");
    std::fs::write(
        &spec,
        "[[target]]\npath = \"/dev/shm/rigel-unused.bin\"\nsize = \"64MiB\"\n\n\
         [class.oltp]\nsize = \"8KiB\"\n\n[class.seq]\nsize = \"1MiB\"\naccess = \"sequential\"\n\n\
         [matrix]\nshape = \"row\"\noltp = \"1, 2\"\nseq = \"1\"\n\n\
         [sweep]\n\"seq.mix\" = \"read, write\"\n",
    )
    .expect("spec written");
    let out = rigel().arg("plan").arg(&spec).run().code(0);
    out.stdout_has("1 stream × 4 × 1MiB sequential write");
    assert!(!out.stdout.contains("1 streams"), "{}", out.stdout);
    let plan = plan_json(&[spec.to_str().unwrap()]);
    let mixes: Vec<&str> = plan["points"]
        .as_array()
        .expect("points")
        .iter()
        .filter_map(|p| p["sweep"][0]["value"].as_str())
        .collect();
    assert!(
        mixes.contains(&"read") && mixes.contains(&"write"),
        "{mixes:?}"
    );
    assert!(!mixes.iter().any(|m| m.contains('%')), "{mixes:?}");
}

/// A spec built from parts keeps a target path with quotes and a newline whole (the TOML writer
/// escapes it); the same spec `format!`-ed as text would not even parse.
#[test]
#[serial_test::parallel]
fn a_spec_built_from_parts_keeps_an_odd_target_path_whole() {
    use super::scenario::{Scenario, Spec};
    let scene = Scenario::new();
    let odd = scene.join("a \"quoted\"\nname.bin");
    let spec = Spec::named("odd")
        .target(&odd, &[("size", "1MiB")])
        .set("run.duration", "100ms")
        .set("class.s.size", "4KiB")
        .set("matrix.s", "1");
    let plan = plan_json(&[scene.spec("odd.toml", &spec).to_str().expect("UTF-8")]);
    assert_eq!(plan["targets"][0]["path"], odd.to_str().expect("UTF-8"));
    let text = format!(
        "[[target]]\npath = \"{}\"\nsize = \"1MiB\"\n",
        odd.display()
    );
    std::fs::write(scene.join("text.toml"), text).expect("written");
    rigel()
        .arg("check")
        .arg(scene.join("text.toml"))
        .run()
        .code(2);
}

#[test]
#[serial_test::parallel]
fn only_orion_shaped_specs_are_told_orions_point_count() {
    let orion = rigel()
        .args(["plan", "specs/orion/simple.toml"])
        .run()
        .code(0);
    orion.stdout_has("(ORION's Total Data Points: 8)");
    let oltp = rigel()
        .args(["plan", "specs/oracle/oltp.toml"])
        .run()
        .code(0);
    assert!(
        !oltp.stdout.contains("ORION") && oltp.stdout.contains("  points     7\n"),
        "{}",
        oltp.stdout
    );
}

/// `rigel orion … --plan` warns of a LUN that does not exist as `rigel plan` does of a missing
/// target: one rule (`specs::warn_targets`) for both.
#[test]
#[serial_test::parallel]
fn orion_plan_warns_of_a_missing_lun_as_plan_does() {
    let d = super::orion::LunDir::absent(1);
    let out = d.orion(&["-run", "simple", "--plan"]).code(0);
    out.stderr_has("warning: target `/nonexistent/lun0` does not exist");
}
