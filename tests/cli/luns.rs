//! Shipped specs pointed at real LUNs one way (issue 42, item 4): one `--set` per LUN and one
//! consent flag, on loop devices over `/dev/shm`; `plan` refuses what `run` would (a declared size
//! larger than the device, a write without consent) at the spec's text, in units; `rigel specs
//! NAME > my.toml` writes a spec that loads; `rigel specs` lists whole descriptions.

use super::builder::rigel;
use super::scenario::Scenario;
use rigel_testkit::LoopDevice;

/// `--set VAR=DEV` for each of oracle/oltp's LUNs.
fn oracle_luns(devs: &[LoopDevice]) -> Vec<String> {
    ["data1", "data2", "redo1", "redo2"]
        .iter()
        .zip(devs)
        .flat_map(|(v, d)| ["--set".to_owned(), format!("{v}={}", d.dev())])
        .collect()
}

/// Four loop devices as large as oracle/oltp declares its targets (sparse files in tmpfs: only
/// what the run writes takes memory).
fn oracle_devices(tmp: &Scenario) -> Vec<LoopDevice> {
    [2 << 30, 2 << 30, 512 << 20, 512 << 20]
        .into_iter()
        .map(|size| tmp.loop_device(size))
        .collect()
}

#[test]
#[serial_test::parallel]
fn oracle_oltp_runs_on_four_luns_with_one_set_each_and_one_consent() {
    let tmp = Scenario::new();
    let devs = oracle_devices(&tmp);
    let luns = oracle_luns(&devs);
    // Short points (the matrix and durations only; the LUNs and the consent are as a user types).
    let short = [
        "--set",
        "run.duration=500ms",
        "--set",
        "run.warmup=0s",
        "--set",
        "matrix.data=0, 4",
    ];
    // Without the consent: `plan` and `run` both refuse (exit 1, as the write guard always has),
    // and say the one flag that is missing (not a `destructive = true` per target); `plan` at
    // the spec's target.
    let planned = rigel()
        .args(["plan", "oracle/oltp"])
        .args(&luns)
        .args(short)
        .run()
        .code(1);
    planned.stderr_has("target data1: refusing to write");
    planned.stderr_has("pass --allow-destructive as well");
    planned.stderr_has("builtin:oracle/oltp:34");
    assert!(
        planned.stdout.contains("named on the command line"),
        "{}",
        planned.stdout
    );
    let out = tmp.join("refused");
    rigel()
        .args(["run", "oracle/oltp", "--out"])
        .arg(&out)
        .args(&luns)
        .args(short)
        .run()
        .code(1)
        .stderr_has("pass --allow-destructive as well");

    rigel()
        .args(["plan", "oracle/oltp", "--allow-destructive"])
        .args(&luns)
        .args(short)
        .run()
        .code(0)
        .stderr_has("targets: --set data1=PATH --set data2=PATH --set redo1=PATH --set redo2=PATH");
    let args: Vec<&str> = luns
        .iter()
        .map(String::as_str)
        .chain(short)
        .chain(["--allow-destructive"])
        .collect();
    let run = tmp
        .run(std::path::Path::new("oracle/oltp"), "run", &args)
        .code(0);
    // The terminal says each warning once: page 1's words, not again in the warning list (the
    // volume of 5 GiB is under twice this host's memory: the cache warning).
    let terminal = format!("{}{}", run.output.stdout, run.output.stderr);
    let cache = terminal.matches("cache may serve").count();
    assert!(cache <= 1, "the cache warning {cache} times:\n{terminal}");
    let doc = run.results();
    let paths: Vec<&str> = doc["targets"]
        .as_array()
        .expect("targets")
        .iter()
        .map(|t| t["path"].as_str().expect("a path"))
        .collect();
    let devs: Vec<&str> = devs.iter().map(LoopDevice::dev).collect();
    assert_eq!(paths, devs, "the run measured the LUNs named");
    let points = doc["points"].as_array().expect("points");
    assert_eq!(points.len(), 2, "both points ran");
    // Real I/O reached every LUN: the redo LUNs were written, the data LUNs read and written.
    let redo = points[1]["classes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["class"] == "redo")
        .expect("redo's figures");
    assert!(redo["write"]["ios"].as_u64().unwrap_or(0) > 0, "{redo:#}");
}

#[test]
#[serial_test::parallel]
fn plan_refuses_a_declared_size_larger_than_the_lun_in_units_at_the_base() {
    let tmp = Scenario::new();
    let dev = tmp.loop_device(1 << 30);
    // oltp-70-30 extends base, whose test file is 4 GiB: a 1 GiB LUN is refused by `plan` as by
    // `run`, at base's `size`, with the `--set` that lowers it.
    for command in ["plan", "run"] {
        let out = rigel()
            .arg(command)
            .arg("oltp-70-30")
            .arg("--set")
            .arg(format!("lun={}", dev.dev()))
            .arg("--allow-destructive")
            .arg("--set")
            .arg("run.duration=200ms")
            .cwd(tmp.path())
            .run()
            .code(2);
        out.stderr_has(&format!(
            "the device `{}` holds 1GiB, less than the declared 4GiB",
            dev.dev()
        ));
        out.stderr_has("builtin:base:18");
        out.stderr_has("--set target.0.size=1GiB");
    }
    assert!(!tmp.join("runs").exists(), "the refused run made no folder");
    rigel()
        .arg("plan")
        .arg("oltp-70-30")
        .arg("--set")
        .arg(format!("lun={}", dev.dev()))
        .args(["--set", "target.0.size=1GiB", "--allow-destructive"])
        .run()
        .code(0);
}

#[test]
#[serial_test::parallel]
fn a_set_of_a_variable_no_value_uses_is_an_error_naming_the_targets_variables() {
    // oracle/oltp inherits base's `lun`, which its own targets replaced: `--set lun=` would
    // measure the test files while the user believes it measured the LUN.
    rigel()
        .args(["plan", "oracle/oltp", "--set", "lun=/dev/sdq"])
        .run()
        .code(2)
        .stderr_has("`lun` is a variable of this spec, but no value uses it")
        .stderr_has("--set data1=PATH --set data2=PATH --set redo1=PATH");
}

#[test]
#[serial_test::parallel]
fn specs_name_writes_a_copy_that_loads_and_tells_how_to_name_the_luns() {
    let tmp = Scenario::new();
    for name in [
        "oracle/oltp",
        "oltp-70-30",
        "orion/simple",
        "latency-search",
    ] {
        let shown = rigel().args(["specs", name]).run().code(0);
        let copy = tmp.join(format!("{}.toml", name.replace('/', "-")));
        std::fs::write(&copy, &shown.stdout).expect("the copy written");
        rigel()
            .arg("check")
            .arg(&copy)
            .cwd(tmp.path())
            .run()
            .code(0);
        shown.stderr_has("Its targets:");
    }
    let shown = rigel().args(["specs", "oracle/oltp"]).run().code(0);
    shown.stderr_has(
        "rigel run oracle/oltp --set data1=PATH --set data2=PATH --set redo1=PATH --set redo2=PATH \
         --allow-destructive",
    );
    shown.stderr_has("redo1    target redo1: written by redo");
    shown.stderr_has("data1    target data1: read and written by data, read by scan");
    rigel()
        .args(["specs", "orion/simple"])
        .run()
        .code(0)
        .stderr_has("Its other variables (--set NAME=VALUE): disks = targets");
}

#[test]
#[serial_test::parallel]
fn specs_lists_whole_descriptions() {
    let out = rigel().arg("specs").run().code(0);
    assert!(!out.stdout.contains('…'), "{}", out.stdout);
    for word in ["dsync", "redo", "its", "own", "LUNs"] {
        assert!(out.stdout.contains(word), "{word}: {}", out.stdout);
    }
}

/// Every shipped spec names each of its targets by a variable of its own, so one `--set` per
/// LUN points any of them at real storage.
#[test]
#[serial_test::parallel]
fn every_shipped_spec_takes_its_targets_by_a_variable() {
    for (name, _) in rigel_spec::library::BUILTIN {
        let out = rigel().args(["plan", name]).run();
        if out.code != 0 {
            // A partial base cannot be planned; `rigel specs` still shows its targets.
            let shown = rigel().args(["specs", name]).run().code(0);
            assert!(
                !shown.stderr.contains("target.0.path=PATH"),
                "{name}: {}",
                shown.stderr
            );
            continue;
        }
        let line = out
            .stderr
            .lines()
            .find(|l| l.starts_with("targets: "))
            .unwrap_or_else(|| panic!("{name}: {}", out.stderr));
        assert!(!line.contains("target."), "{name}: {line}");
    }
}
