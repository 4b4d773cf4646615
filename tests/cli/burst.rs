//! Bursts on a real device: a class with `burst = { ios = 48, idle = "200ms" }` at load 8 on a
//! loop device over tmpfs. The device's own trace of issued requests (tracefs `block_rq_issue`)
//! shows the bursts: every whole burst it saw holds exactly 48 requests, and the bursts are at
//! least the idle apart. rigel's results agree with it, its per-tick series shows the gaps, and the
//! class's cycle (burst + idle) times its IOPS is the I/Os of a burst.

use super::scenario::Scenario;
use super::scenario::run_spec;
use rigel_testkit::{BlockTrace, LoopDevice};
use serde_json::Value;

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

const IOS: usize = 48;
const IDLE_US: u64 = 200_000;

#[test]
#[serial_test::serial]
fn bursts_reach_the_device_whole_and_an_idle_apart() {
    let dev = LoopDevice::new(64 << 20);
    // udev's probe of the new device must not land among rigel's requests.
    let _ = std::process::Command::new("udevadm")
        .args(["settle", "-t", "2"])
        .status();
    let tmp = Scenario::new();
    let spec = format!(
        "[[target]]\npath = \"{}\"\n\n[run]\nduration = \"1600ms\"\nwarmup = \"100ms\"\n\n\
         [class.ckpt]\nsize = \"4KiB\"\nburst = {{ ios = {IOS}, idle = \"200ms\" }}\n\n\
         [matrix]\nshape = \"point\"\nckpt = \"8\"\n",
        dev.dev()
    );
    let trace = BlockTrace::start(&dev.numbers().expect("numbers"), 256);
    let doc = run_spec(tmp.path(), &spec);
    let requests = trace.stop();

    // The device's bursts: its requests split where the device saw nothing for most of an idle
    // (inside a burst at load 8 requests follow each other within microseconds).
    let mut bursts: Vec<Vec<u64>> = Vec::new();
    // rigel's reads: the kernel's probes of a new device are readahead or of other sizes.
    let reads = requests
        .iter()
        .filter(|r| r.rwbs.starts_with('R') && !r.rwbs.contains('A') && r.sectors == 8);
    for r in reads {
        match bursts.last_mut() {
            Some(b) if r.at_us - b[b.len() - 1] < IDLE_US * 9 / 10 => b.push(r.at_us),
            _ => bursts.push(vec![r.at_us]),
        }
    }
    let sizes: Vec<usize> = bursts.iter().map(Vec::len).collect();
    assert!(bursts.len() >= 5, "the device saw bursts of {sizes:?}");
    // The last burst may be cut by the point's end; every other one is whole.
    let whole = &sizes[..sizes.len() - 1];
    assert!(whole.iter().all(|&n| n == IOS), "bursts of {sizes:?}");
    assert!(sizes[sizes.len() - 1] <= IOS, "bursts of {sizes:?}");
    // Between two bursts: the idle, from the last completion (after the last issue).
    for pair in bursts.windows(2) {
        let gap = pair[1][0] - pair[0][pair[0].len() - 1];
        assert!(gap >= IDLE_US, "a gap of {gap} µs between bursts");
    }

    let point = &doc["points"][0];
    let c = &point["classes"][0];
    let b = &c["burst"];
    assert_eq!(b["asked_ios"], IOS, "{b}");
    assert_eq!(b["asked_idle_ns"], IDLE_US * 1000, "{b}");
    let done = b["bursts"].as_u64().expect("bursts");
    let idles = b["idles"].as_u64().expect("idles");
    assert!(done >= 4 && done.abs_diff(idles) <= 1, "{b}");
    assert!(
        done as usize <= bursts.len(),
        "rigel {done}, device {sizes:?}"
    );
    // Every burst rigel counted completed all its I/Os.
    assert_eq!(f(&b["mean_ios"]), IOS as f64, "{b}");
    // A timeout never fires early; on a loaded host it fires late, by far less than the idle.
    let idle = f(&b["mean_idle_ns"]);
    assert!((2e8..4e8).contains(&idle), "idle achieved {idle} ns");
    // The window holds its bursts and the idles between them.
    let window = f(&point["elapsed_s"]);
    assert!(
        window >= (done - 1) as f64 * IDLE_US as f64 / 1e6,
        "{done} bursts in {window} s"
    );
    // The window's I/Os are its whole bursts, give or take one cut at each edge.
    let ios = c["total"]["ios"].as_u64().expect("ios");
    assert!(
        ios.abs_diff(done * IOS as u64) < IOS as u64,
        "{ios} I/Os in {done} bursts of {IOS}"
    );
    // The cycle: IOPS × (burst + idle) is a burst's I/Os, within the share of a cycle the window's
    // edges cut (k whole cycles in a window of k ± 1 of them).
    let cycle = f(&c["total"]["iops"]) * (f(&b["mean_active_ns"]) + idle) / 1e9;
    let k = done as f64;
    assert!(
        (IOS as f64 * k / (k + 1.0) - 1.0..=IOS as f64 * k / (k - 1.0) + 1.0).contains(&cycle),
        "IOPS × (burst + idle) = {cycle} of {IOS}"
    );
    // The per-tick series (100 ms) shows the gaps: between two bursts at least one tick of
    // 200 ms of idle completed nothing.
    let ticks: Vec<u64> = c["ticks"]["read_ios"]
        .as_array()
        .expect("ticks")
        .iter()
        .map(|v| v.as_u64().expect("a count"))
        .collect();
    let empty = ticks.iter().filter(|&&n| n == 0).count() as u64;
    assert!(empty + 1 >= done, "{done} bursts, ticks {ticks:?}");
    assert_eq!(ticks.iter().sum::<u64>(), ios, "ticks {ticks:?}");
    // The report states the bursts beside the depth held.
    let md = std::fs::read_to_string(tmp.path().join("run/report.md")).expect("report.md");
    assert!(
        md.contains(&format!("bursts of {IOS} I/Os, idle 200 ms asked"))
            && md.contains("IOPS × (burst + idle) ="),
        "{md}"
    );
}

/// Bad bursts are refused where written, by `check` and `plan`; a good one is on the plan.
#[test]
#[serial_test::parallel]
fn bad_bursts_are_refused_where_written() {
    let tmp = tempfile::tempdir().expect("a temp dir");
    let path = tmp.path().join("t.toml");
    let spec = |line: &str| {
        format!(
            "[[target]]\npath = \"{}/data.bin\"\nsize = \"16MiB\"\n\n\
             [class.app]\nsize = \"4KiB\"\n{line}\n\n[matrix]\nshape = \"point\"\napp = \"1\"\n",
            tmp.path().display()
        )
    };
    for (line, at, message, hint) in [
        (
            "burst = { ios = 0, idle = \"10ms\" }",
            "t.toml:7:17",
            "a burst has 1 to 1000000 I/Os, found 0",
            "burst = { ios = 64, idle = \"10ms\" }",
        ),
        (
            "burst = { ios = 64, idle = \"-5ms\" }",
            "t.toml:7:29",
            "expected a duration",
            "found `-`",
        ),
        (
            "burst = { ios = 64, idle = \"soon\" }",
            "t.toml:7:29",
            "expected a duration",
            "",
        ),
        (
            "burst = { ios = 64, idle = \"0s\" }",
            "t.toml:7:28",
            "`idle` must be above 0 and under 60 s",
            "",
        ),
        (
            "burst = { ios = 64 }",
            "t.toml:7:9",
            "`burst` needs `idle`",
            "idle = \"10ms\"",
        ),
        (
            "burst = { ios = 64, idel = \"10ms\" }",
            "t.toml:7:21",
            "unknown key `idel` in burst",
            "did you mean `idle`?",
        ),
        (
            "burst = 64",
            "t.toml:7:9",
            "`burst` must be a table",
            "burst = { ios = 64",
        ),
        (
            "burst = { ios = 64, idle = \"10ms\" }\nrate = \"100 iops\"",
            "t.toml:7:9",
            "class `app` has a rate: `burst` is for closed-loop classes",
            "remove `rate`",
        ),
        (
            "burst = { ios = 64, idle = \"10ms\" }\nthink = \"1ms\"",
            "t.toml:7:9",
            "class `app` thinks",
            "keep one of `think` and `burst`",
        ),
        (
            "burst = { ios = 64, idle = \"10ms\" }\nmix = \"write\"\ndurability = \"fdatasync:8\"",
            "t.toml:7:9",
            "flushes every N writes",
            "durability = \"dsync\"",
        ),
        (
            "burst = { ios = 64, idle = \"90s\" }",
            "t.toml:7:28",
            "`idle` must be above 0 and under 60 s",
            "",
        ),
        (
            "burst = { ios = 64, idle = \"2s\" }\n\n[run]\nduration = \"1s\"",
            "t.toml:7:28",
            "is not under run.duration",
            "lengthen run.duration",
        ),
    ] {
        std::fs::write(&path, spec(line)).expect("spec written");
        let needles: Vec<&str> = [message, hint]
            .into_iter()
            .filter(|n| !n.is_empty())
            .collect();
        super::workload_expect::refused_where_written(&path, at, &needles);
    }
    std::fs::write(&path, spec("burst = { ios = 64, idle = \"10ms\" }")).expect("spec written");
    super::builder::rigel()
        .arg("plan")
        .arg(&path)
        .run()
        .code(0)
        .stdout_has("bursts of 64 I/Os, idle 10.0 ms after each burst's last completion");
}
