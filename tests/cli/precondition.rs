//! `[precondition]` and `run.steady` through the real binary: the fill writes exactly passes × the
//! device (counted by the loop device's own sector counter), it needs the same consent as any
//! write, a paced point reaches steady state within a few rounds and records them, a point held to
//! a band no real target meets is marked "not steady" and still measured, and bad `run.steady`
//! values are diagnosed with their place.

use super::builder::rigel;
use super::scenario::Scenario;
use rigel_testkit::LoopDevice;
use serde_json::Value;
use std::path::Path;

/// Runs the spec `text` (written into `dir`) with `args`, its run folder `dir/name`.
fn run(dir: &Path, name: &str, text: &str, args: &[&str]) -> super::Output {
    let spec = dir.join(format!("{name}.toml"));
    std::fs::write(&spec, text).expect("spec written");
    rigel()
        .arg("run")
        .arg(&spec)
        .args(args)
        .arg("--out")
        .arg(dir.join(name))
        .env("RIGEL_BLKID", "off")
        .run()
}

fn results(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("results.json")).expect("results.json");
    serde_json::from_str(&text).expect("results.json parses")
}

/// A device spec: the fill, then one short point of reads (which write nothing).
fn fill_spec(dev: &str, fill: &str) -> String {
    format!(
        "[[target]]\npath = \"{dev}\"\ndestructive = true\n\n[precondition]\n{fill}\n\n\
         [run]\nduration = \"100ms\"\n\n[class.r]\nsize = \"4KiB\"\nmix = \"read\"\n\n\
         [matrix]\nshape = \"point\"\nr = \"1\"\n"
    )
}

#[test]
#[serial_test::parallel]
fn the_fill_writes_exactly_passes_times_the_device() {
    const SIZE: u64 = 16 << 20;
    let dev = LoopDevice::new(SIZE);
    let tmp = Scenario::new();
    for (name, fill, passes) in [
        (
            "seq",
            "passes = 2\npattern = \"sequential\"\nsize = \"128KiB\"\ndepth = 8",
            2,
        ),
        (
            "rand",
            "passes = 1\npattern = \"random\"\nsize = \"64KiB\"\ndepth = 4",
            1,
        ),
    ] {
        let before = dev.sectors_written();
        let out = run(
            tmp.path(),
            name,
            &fill_spec(dev.dev(), fill),
            &["--allow-destructive"],
        )
        .code(0);
        let written = (dev.sectors_written() - before) * 512;
        assert_eq!(written, passes * SIZE, "{name}: {}", out.stderr);
        assert!(
            out.stderr.contains(&format!("{} bytes", SIZE)),
            "{name}: each pass says its bytes: {}",
            out.stderr
        );
        let doc = results(&tmp.path().join(name));
        assert_eq!(doc["plan"]["precondition"]["passes"], passes);
    }
}

#[test]
#[serial_test::parallel]
fn a_read_through_fill_reads_every_block_once_and_writes_nothing() {
    const SIZE: u64 = 16 << 20;
    let dev = LoopDevice::new(SIZE);
    let tmp = Scenario::new();
    // No --allow-destructive: a fill that reads needs no consent to write.
    let text = fill_spec(
        dev.dev(),
        "read = true\npasses = 1\nsize = \"128KiB\"\ndepth = 8",
    )
    .replace("destructive = true\n", "")
    .replace("[run]\n", "[run]\nwarmup = \"0s\"\n");
    let (read, written) = (dev.sectors_read(), dev.sectors_written());
    let out = run(tmp.path(), "read", &text, &[]).code(0);
    let doc = results(&tmp.path().join("read"));
    assert_eq!(dev.sectors_written(), written, "{}", out.stderr);
    // The fill read the device once; the point's own reads are in its results.
    let point_bytes = doc["points"][0]["classes"][0]["total"]["bytes"]
        .as_u64()
        .expect("the point's bytes");
    let device = (dev.sectors_read() - read) * 512;
    eprintln!("device read {device}, the point {point_bytes}");
    // Without a warmup, the point read its window's bytes and the one 4 KiB read in flight at
    // its end, at most: the rest is the fill, which must be the device once.
    assert!(
        device >= SIZE + point_bytes && device <= SIZE + point_bytes + 4096,
        "the device read {device} bytes: {} for the fill, {point_bytes} for the point's window: {}",
        SIZE,
        out.stderr
    );
    assert!(
        out.stderr
            .contains(&format!("pass 1 of 1 read 16 MiB ({SIZE} bytes)")),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("preconditioning: reading 16MiB over the volume"),
        "{}",
        out.stderr
    );
    assert_eq!(doc["plan"]["precondition"]["read"], true);
}

#[test]
#[serial_test::parallel]
fn a_read_through_fill_cut_by_its_pass_limit_says_what_it_read() {
    // 128 reads of 128 KiB, 20 ms each one after another (the fill's reads of a FUSE file wait
    // in turn): 2.6 s, far past a pass_limit of 200 ms.
    let fs = super::faults::faultfs::mounted(
        super::faults::faultfs::Faults::new(16 << 20)
            .service_time(std::time::Duration::from_millis(20), Some(1)),
    );
    let tmp = Scenario::new();
    let text = fill_spec(
        &fs.file().display().to_string(),
        "read = true\npasses = 1\nsize = \"128KiB\"\ndepth = 8\npass_limit = \"200ms\"",
    )
    .replace("destructive = true\n", "");
    let out = run(tmp.path(), "cut", &text, &[]);
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("of its 16777216 bytes read when its pass_limit of 200ms"),
        "{}",
        out.stderr
    );
}

#[test]
#[serial_test::parallel]
fn the_fill_needs_consent_like_any_write() {
    // A file rigel did not create needs both consents; the point itself only reads.
    let tmp = Scenario::new();
    let target = tmp.path().join("foreign.bin");
    let data: Vec<u8> = (0..1u32 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(&target, &data).expect("foreign file");
    let spec = fill_spec(
        &target.display().to_string(),
        "passes = 1\nsize = \"64KiB\"",
    );
    // `plan` checks the write as `run` would: refused without the command line's consent.
    rigel()
        .arg("plan")
        .arg("-")
        .stdin(spec.clone())
        .run()
        .code(1)
        .stderr_has("pass --allow-destructive as well");
    let plan = rigel()
        .args(["plan", "-", "--allow-destructive"])
        .stdin(spec.clone())
        .run()
        .code(0);
    assert!(
        plan.stdout
            .contains("fill       precondition: 1 sequential pass of 64 KiB writes"),
        "{}",
        plan.stdout
    );
    assert!(plan.stdout.contains("WRITTEN"), "{}", plan.stdout);
    let out = run(tmp.path(), "refused", &spec, &[]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("refusing to write") && out.stderr.contains("--allow-destructive"),
        "{}",
        out.stderr
    );
    let without = spec.replace("destructive = true\n", "");
    let out = run(
        tmp.path(),
        "no-spec-consent",
        &without,
        &["--allow-destructive"],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("destructive = true"), "{}", out.stderr);
    assert_eq!(std::fs::read(&target).expect("read back"), data);
    // Both consents: the file is rewritten.
    run(tmp.path(), "consented", &spec, &["--allow-destructive"]).code(0);
    assert_ne!(std::fs::read(&target).expect("read back"), data);
}

/// Runs a paced class on a scratch file (its achieved rate is what the schedule asks, a stable
/// figure even on a loaded host) under `run.steady = { steady }`: the output, the point's result,
/// and the Markdown report. The point is measured after its rounds, whatever they showed.
fn run_steady(dir: &Path, name: &str, steady: &str) -> (super::Output, Value, String) {
    let spec = format!(
        "[[target]]\npath = \"{}\"\nsize = \"16MiB\"\n\n[run]\nduration = \"300ms\"\n\
         steady = {{ {steady} }}\n\n[class.small]\nsize = \"4KiB\"\nmix = \"read\"\n\
         rate = \"2000 iops\"\n\n[matrix]\nshape = \"point\"\nsmall = \"16\"\n",
        dir.join("scratch.bin").display()
    );
    let out = run(dir, name, &spec, &[]).code(0);
    let point = results(&dir.join(name))["points"][0].clone();
    assert_eq!(point["status"]["state"], "ok", "{point}");
    assert!(point["classes"][0]["total"]["ios"].as_u64() > Some(0));
    let md = std::fs::read_to_string(dir.join(name).join("report.md")).expect("report.md");
    (out, point, md)
}

#[test]
#[serial_test::serial]
fn a_stable_point_is_steady_within_a_few_rounds_and_keeps_them() {
    let tmp = Scenario::new();
    let (out, point, md) = run_steady(
        tmp.path(),
        "stable",
        "metric = \"small.iops\", rounds = 3, excursion = \"20%\", slope = \"10%\", max = \"20s\"",
    );
    let steady = &point["steady"];
    assert_eq!(steady["reached"], true, "{steady}\n{}", out.stderr);
    let rounds = steady["rounds"].as_array().expect("rounds");
    assert!(
        (3..=6).contains(&rounds.len()),
        "steady within 3 + 3 rounds: {steady}"
    );
    for r in rounds {
        let iops = r.as_f64().expect("a figure per round");
        assert!((1500.0..2500.0).contains(&iops), "{steady}");
    }
    let plan = rigel()
        .arg("plan")
        .arg(tmp.path().join("stable.toml"))
        .run()
        .code(0);
    assert!(
        plan.stdout.contains(
            "steady     small.iops over 3 rounds (excursion ≤ 20%, slope ≤ 10%), rounds for 20s at most"
        ),
        "{}",
        plan.stdout
    );
    // A window of 3 rounds: fewer than the 5 samples per-second statistics need, said so.
    let summary = format!(
        "steady after {} rounds; judged from a window of 3 rounds, fewer than 5: weak",
        rounds.len()
    );
    assert!(out.stdout.contains(&summary), "{}", out.stdout);
    assert!(md.contains(&format!("point 1: {summary}")), "{md}");
    let html = std::fs::read_to_string(tmp.path().join("stable/report.html")).expect("html");
    assert!(html.contains(&summary), "steady line in the HTML");
}

#[test]
#[serial_test::serial]
fn a_point_that_never_settles_is_marked_and_still_measured() {
    let tmp = Scenario::new();
    // No real target keeps its mean latency within 0.001% from round to round (a mean, not a
    // percentile: percentiles are histogram buckets and may repeat exactly).
    let (out, point, md) = run_steady(
        tmp.path(),
        "unsteady",
        "metric = \"small.latency.mean\", rounds = 2, excursion = \"0.001%\", max = \"1s\"",
    );
    let steady = &point["steady"];
    assert_eq!(steady["reached"], false, "{steady}");
    let n = steady["rounds"].as_array().map_or(0, Vec::len);
    assert!(n >= 2, "rounds ran until max: {steady}");
    assert!(steady["seconds"].as_f64() >= Some(1.0), "{steady}");
    let summary = format!(
        "not steady in 1s ({n} rounds); judged from a window of 2 rounds, fewer than 5: weak"
    );
    assert!(out.stdout.contains(&summary), "{}", out.stdout);
    assert!(md.contains(&format!("**{summary}**")), "{md}");
}

#[test]
#[serial_test::parallel]
fn bad_steady_values_point_at_the_spec() {
    let text = "[[target]]\npath = \"t.bin\"\n[run]\n\
                steady = { metric = \"smal.iops\", rounds = 1, excursion = \"abc\", slope = \"150%\" }\n\
                [class.small]\nsize = \"4KiB\"\n[matrix]\nshape = \"point\"\nsmall = \"1\"\n";
    let out = rigel().args(["check", "-"]).stdin(text).run().code(2);
    for (says, at, hint) in [
        (
            "`smal` is not a class of this spec",
            "<stdin>:4:22",
            "did you mean `small`?",
        ),
        ("a window of 1 rounds", "<stdin>:4:43", "2 to 100 rounds"),
        (
            "not a share between 0% and 100%",
            "<stdin>:4:58",
            "such as \"20%\"",
        ),
        (
            "not a share between 0% and 100%",
            "<stdin>:4:73",
            "such as \"20%\"",
        ),
    ] {
        assert!(out.stderr.contains(says), "{says}: {}", out.stderr);
        assert!(out.stderr.contains(at), "{at}: {}", out.stderr);
        assert!(out.stderr.contains(hint), "{hint}: {}", out.stderr);
    }
    let pre = "[[target]]\npath = \"t.bin\"\n[precondition]\npassess = 2\npattern = \"zigzag\"\n\
               [class.small]\nsize = \"4KiB\"\n[matrix]\nshape = \"point\"\nsmall = \"1\"\n";
    let out = rigel().args(["check", "-"]).stdin(pre).run().code(2);
    assert!(
        out.stderr
            .contains("unknown key `passess` in [precondition]")
            && out.stderr.contains("did you mean `passes`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("unknown access `zigzag`"),
        "{}",
        out.stderr
    );
}
