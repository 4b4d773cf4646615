//! NVMe-only paths in rigel's emulated NVMe guest (`tests/nvme-vm/run.sh`: qemu, ~10 s to boot
//! in software emulation, 30 s on a busy host): each test boots one guest and runs several checks
//! in it, each printed between `== NAME` and `== NAME exit N`. The emulator's speed says
//! nothing about a device's: these check behaviour only. CI's ignored pass runs them (`.ci/run`
//! installs the packages).

use super::builder::repo;
use super::scenario::{Scenario, Spec};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One guest: rigel, the spec files handed to it (in the guest's `/files/`) and the job's lines.
struct Guest {
    scene: Scenario,
    files: Vec<PathBuf>,
    job: String,
    options: Vec<String>,
}

impl Guest {
    /// A guest started with the harness's `options` (`--zoned`, `--poll-queues 0`).
    fn new(options: &[&str]) -> Guest {
        Guest {
            scene: Scenario::new(),
            files: Vec::new(),
            job: String::new(),
            options: options.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Hands `spec` to the guest as `/files/NAME`; returns that path and the spec's text.
    fn spec(&mut self, name: &str, spec: &Spec) -> (String, String) {
        let path = self.scene.spec(name, spec);
        self.files.push(path);
        (format!("/files/{name}"), spec.text())
    }

    /// A check the guest runs: `== NAME`, `command`'s output (sh), then `== NAME exit N`.
    fn step(&mut self, name: &str, command: &str) {
        self.job.push_str(&format!(
            "echo \"== {name}\"; {command} 2>&1; echo \"== {name} exit $?\"\n"
        ));
    }

    /// Boots the guest, runs the job, and returns what it printed (the guest's own lines
    /// included), panicking when the harness or the job's shell failed.
    fn boot(self) -> GuestOutput {
        let script = self.scene.join("job.sh");
        std::fs::write(&script, &self.job).expect("job written");
        let mut cmd = Command::new("bash");
        cmd.arg(repo().join("tests/nvme-vm/run.sh"))
            .args(&self.options)
            .arg("--bin")
            .arg(env!("CARGO_BIN_EXE_rigel"));
        for f in &self.files {
            cmd.arg("--file").arg(f);
        }
        let out = cmd.arg(&script).output().expect("bash runs the harness");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success() && text.contains("== guest: job exit 0"),
            "the NVMe guest failed ({}):\n{text}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        GuestOutput { text }
    }
}

/// What a guest printed.
struct GuestOutput {
    text: String,
}

impl GuestOutput {
    /// The output of step `name` and its exit code, asserted to be `code`.
    #[track_caller]
    fn step(&self, name: &str, code: i32) -> &str {
        let begin = format!("== {name}\n");
        let end = format!("== {name} exit ");
        let (Some(start), Some(at)) = (self.text.find(&begin), self.text.find(&end)) else {
            panic!("no step {name} in:\n{}", self.text)
        };
        let start = start + begin.len();
        let got: i32 = self.text[at + end.len()..]
            .lines()
            .next()
            .and_then(|l| l.trim().parse().ok())
            .unwrap_or(-1);
        let out = &self.text[start..at];
        assert_eq!(got, code, "step {name}:\n{out}");
        out
    }
}

/// The 1-based line and column of the first `needle` in `text`.
fn line_col(text: &str, needle: &str) -> (usize, usize) {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} in {text}"));
    let line = text[..at].matches('\n').count() + 1;
    let col = at - text[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
    (line, col)
}

/// 4 KiB random I/O on the guest's namespace at `mix`, for 2 s at 4 outstanding.
fn on_namespace(mix: &str) -> Spec {
    on_device("/dev/nvme0n1", mix)
}

/// 4 KiB random I/O on `device` at `mix`, for 2 s at 4 outstanding.
fn on_device(device: &str, mix: &str) -> Spec {
    Spec::named("nvme")
        .destructive_target(Path::new(device))
        .set("run.duration", "2s")
        .set("run.warmup", "0s")
        .set("class.small.size", "4KiB")
        .set("class.small.access", "random")
        .set("class.small.mix", mix)
        .set("matrix.shape", "point")
        .set("matrix.small", "4")
}

/// A host-managed zoned namespace (ZNS): random writes are refused at `check` and `plan`, where
/// the spec asks them, before any I/O; random reads run to completion with no I/O error.
#[test]
#[serial_test::parallel]
#[ignore = "needs qemu-system-x86, linux-image-amd64, busybox-static"]
fn a_zoned_namespace_refuses_random_writes_at_check_and_serves_reads() {
    let mut g = Guest::new(&["--zoned"]);
    let (writes, text) = g.spec("zw.toml", &on_namespace("70% read"));
    let (reads, _) = g.spec("zr.toml", &on_namespace("read"));
    g.step("zoned", "cat /sys/block/nvme0n1/queue/zoned");
    g.step("check-writes", &format!("rigel check {writes}"));
    g.step("plan-writes", &format!("rigel plan {writes}"));
    g.step("check-reads", &format!("rigel check {reads}"));
    // A point with an I/O error fails, and the run exits 1.
    g.step("run-reads", &format!("rigel run {reads} --out /tmp/zr"));
    let out = g.boot();
    assert_eq!(out.step("zoned", 0).trim(), "host-managed");
    let (line, col) = line_col(&text, "\"random\"");
    let at = format!("{writes}:{line}:{col}");
    for step in ["check-writes", "plan-writes"] {
        // The words, out of the diagnostic's wrapped lines and margin.
        let said = super::sqpoll::words(out.step(step, 2));
        assert!(
            said.contains("class `small` writes at random offsets to /dev/nvme0n1")
                && said.contains("host-managed, 16 zones of 64 MiB, at most 16 open")
                && said.contains(&at)
                && said.contains("mix = \"read\""),
            "{step} (wanted {at}):\n{said}"
        );
    }
    out.step("check-reads", 0);
    let ran = out.step("run-reads", 0);
    assert!(!ran.contains("I/O error"), "{ran}");
}

/// SQPOLL on the NVMe namespace with O_DIRECT: the run completes, its end-of-run line states the
/// submission thread's CPU, and results.json records it inside the point's CPU, while the
/// namespace's own counters saw the reads.
#[test]
#[serial_test::parallel]
#[ignore = "needs qemu-system-x86, linux-image-amd64, busybox-static"]
fn a_sqpoll_run_on_the_namespace_states_its_submission_threads_cpu() {
    let mut g = Guest::new(&[]);
    let spec = on_namespace("read")
        .set("run.sqpoll", true)
        .set("run.sq_thread_idle", "10ms");
    let (path, _) = g.spec("sq.toml", &spec);
    g.step("reads-before", "cut -c1-16 /sys/block/nvme0n1/stat");
    g.step("run", &format!("rigel run {path} --out /tmp/sq"));
    g.step("reads-after", "cut -c1-16 /sys/block/nvme0n1/stat");
    g.step("results", "cat /tmp/sq/results.json");
    let out = g.boot();
    let ran = out.step("run", 0);
    assert!(
        ran.contains("sqpoll: the kernel submission threads used"),
        "{ran}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(out.step("results", 0)).expect("results.json parses");
    let p = &doc["points"][0];
    assert_eq!(
        p["engines"][0]["options"]["sqpoll"], "unpinned, idle 10 ms",
        "{p}"
    );
    let sq = p["cpu"]["sq_thread_s"].as_f64().unwrap_or(0.0);
    assert!(sq > 0.0, "{}", p["cpu"]);
    let reads = |step: &str| -> u64 { out.step(step, 0).trim().parse().unwrap_or(0) };
    let served = reads("reads-after") - reads("reads-before");
    let issued = p["classes"][0]["read"]["ios"].as_u64().unwrap_or(0);
    assert!(
        served >= issued && issued > 0,
        "{served} reads served, {issued} counted"
    );
}

/// 4 KiB random reads and writes on the namespace with `polled = true`, verified.
fn polled_on_namespace() -> Spec {
    on_namespace("70% read")
        .set("run.polled", true)
        .set("run.verify", true)
}

/// A guest with `poll_queues` poll queues that reads the namespace's `io_poll`, then checks, plans
/// and runs [`polled_on_namespace`] (`polled.toml`) into /tmp/p; the spec's path and text.
fn polled_guest(poll_queues: &str) -> (Guest, (String, String)) {
    let mut g = Guest::new(&["--poll-queues", poll_queues, "--bin", "/usr/sbin/nvme"]);
    let (path, text) = g.spec("polled.toml", &polled_on_namespace());
    g.step("io_poll", "cat /sys/block/nvme0n1/queue/io_poll");
    g.step("check", &format!("rigel check {path}"));
    g.step("plan", &format!("rigel plan {path} --allow-destructive"));
    g.step(
        "run",
        &format!("rigel run {path} --out /tmp/p --allow-destructive"),
    );
    (g, (path, text))
}

/// With poll queues (`io_poll` = 1), a polled run of reads and writes completes, verified, on a
/// polled ring (the engine's options say so) and the namespace's counters saw its I/O. The same
/// through passthrough (`/dev/ng0n1`: NVMe commands on a polled ring, Linux 6.1+), verified,
/// and the controller served the commands rigel counted (its SMART log, less the block layer's).
#[test]
#[serial_test::parallel]
#[ignore = "needs qemu-system-x86, linux-image-amd64, busybox-static, nvme-cli"]
fn a_polled_run_completes_where_the_namespace_has_poll_queues() {
    let (mut g, _) = polled_guest("1");
    g.step("results", "cat /tmp/p/results.json");
    let ng = on_device("/dev/ng0n1", "70% read")
        .set("run.polled", true)
        .set("run.verify", true);
    let (ng, _) = g.spec("png.toml", &ng);
    // The commands the controller served (its SMART log) and the block layer's requests (the
    // stat: Debian's 6.1 leaves passthrough out of it, 6.14+ with iostats_passthrough not).
    let counts = "nvme smart-log /dev/nvme0 -o json; cat /sys/block/nvme0n1/stat";
    g.step("polls-before", counts);
    g.step(
        "run-ng",
        &format!("rigel run {ng} --out /tmp/png --allow-destructive"),
    );
    g.step("polls-after", counts);
    g.step("ng-results", "cat /tmp/png/results.json");
    let out = g.boot();
    out.step("run-ng", 0);
    let doc: serde_json::Value =
        serde_json::from_str(out.step("ng-results", 0)).expect("results.json parses");
    let p = &doc["points"][0];
    let options = &p["engines"][0]["options"];
    assert!(
        options["polled"] == "true" && options["passthru"].is_string(),
        "{options}"
    );
    let class = &p["classes"][0];
    assert!(class["write"]["ios"].as_u64().unwrap_or(0) > 0, "{class}");
    let served = |step: &str| -> u64 {
        let text = out.step(step, 0);
        let at = text.rfind('}').expect("smart-log's JSON") + 1;
        let (r, w) = host_commands(&text[..at]);
        let (br, bw) = reads_writes(&text[at..]);
        r + w - br - bw
    };
    let commands = served("polls-after") - served("polls-before");
    let issued = class["total"]["ios"].as_u64().unwrap_or(0);
    eprintln!("passthrough, polled: rigel {issued} I/Os, the controller {commands} commands");
    // Beside the window's, those of the run's edges (at most the 4 in flight at its end).
    assert!(
        issued > 100 && (issued..=issued + 4).contains(&commands),
        "rigel counted {issued}, the controller served {commands}"
    );
    let integrity = &p["integrity"];
    assert!(
        integrity["blocks_checked"].as_u64().unwrap_or(0) > 0
            && integrity["counts"]
                .as_object()
                .is_some_and(|c| c.values().all(|v| v.as_u64() == Some(0))),
        "{integrity}"
    );
    assert_eq!(out.step("io_poll", 0).trim(), "1");
    out.step("check", 0);
    assert!(out.step("plan", 0).contains("polled (completions polled"));
    out.step("run", 0);
    let doc: serde_json::Value =
        serde_json::from_str(out.step("results", 0)).expect("results.json parses");
    let p = &doc["points"][0];
    assert_eq!(p["engines"][0]["options"]["polled"], "true", "{p}");
    let total = p["classes"][0]["total"]["ios"].as_u64().unwrap_or(0);
    let writes = p["classes"][0]["write"]["ios"].as_u64().unwrap_or(0);
    assert!(total > 0 && writes > 0, "{p}");
}

/// Without poll queues, `check` and `plan` refuse `polled = true` where written, with the fix
/// (`nvme.poll_queues=N`), and `run` refuses before any I/O.
#[test]
#[serial_test::parallel]
#[ignore = "needs qemu-system-x86, linux-image-amd64, busybox-static"]
fn a_polled_run_is_refused_with_the_fix_where_the_namespace_has_no_poll_queues() {
    let (mut g, (path, text)) = polled_guest("0");
    g.step("ran", "ls /tmp/p 2>&1 | head -n 3");
    let out = g.boot();
    assert_eq!(out.step("io_poll", 0).trim(), "0");
    let (line, col) = line_col(&text, "polled = true");
    let at = format!("{path}:{line}:{}", col + "polled = ".len());
    for step in ["check", "plan", "run"] {
        let said = super::sqpoll::words(out.step(step, 2));
        assert!(
            said.contains(
                "polled = true, but /dev/nvme0n1 is on nvme0n1, which has no poll queues"
            ) && said.contains("nvme.poll_queues=N")
                && said.contains(&at),
            "{step} (wanted {at}):\n{said}"
        );
    }
    assert!(
        out.step("ran", 0).contains("No such file"),
        "a run folder was made"
    );
}

/// The namespace's completed reads and writes (`/sys/block/nvme0n1/stat`'s fields 1 and 5).
fn reads_writes(stat: &str) -> (u64, u64) {
    let f: Vec<u64> = stat
        .split_whitespace()
        .map(|n| n.parse().unwrap_or(0))
        .collect();
    (
        f.first().copied().unwrap_or(0),
        f.get(4).copied().unwrap_or(0),
    )
}

/// The read and write commands the controller served (its SMART log's host read and write
/// commands, from `nvme smart-log -o json`).
fn host_commands(json: &str) -> (u64, u64) {
    let doc: serde_json::Value = serde_json::from_str(json).expect("smart-log's JSON");
    // nvme-cli 2.x writes these 128-bit counters as strings.
    let n = |k: &str| {
        let v = &doc[k];
        v.as_u64()
            .or_else(|| v.as_str()?.parse().ok())
            .unwrap_or_else(|| panic!("no {k} in {doc}"))
    };
    (n("host_read_commands"), n("host_write_commands"))
}

/// NVMe passthrough: 4 KiB random reads and writes on `/dev/ng0n1` go as NVMe commands through
/// io_uring (the engine's options name the namespace), every read verified against what the run
/// wrote there; the namespace's own counters saw the same reads and writes as rigel counted,
/// within 1%. The disk's stat counts passthrough commands only where the kernel has
/// `queue/iostats_passthrough` (6.14+, turned on here); elsewhere (the guest's Debian 6.1) the
/// controller's SMART counters are read, less the block-layer reads the stat did count (the write
/// guard's signature check). No flush is sent (a Flush command counts as a read in the stat).
#[test]
#[serial_test::parallel]
#[ignore = "needs qemu-system-x86, linux-image-amd64, busybox-static, nvme-cli"]
fn a_passthrough_run_on_ng0n1_verifies_and_matches_the_namespaces_counters() {
    let mut g = Guest::new(&["--bin", "/usr/sbin/nvme"]);
    let spec = Spec::named("ng")
        .destructive_target(Path::new("/dev/ng0n1"))
        .set("run.duration", "2s")
        .set("run.warmup", "0s")
        .set("run.verify", true)
        .set("class.small.size", "4KiB")
        .set("class.small.access", "random")
        .set("class.small.mix", "70% read")
        .set("matrix.shape", "point")
        .set("matrix.small", "4");
    let (path, _) = g.spec("ng.toml", &spec);
    // On psync (no NVMe commands): refused at the class's engine. Above the controller's
    // transfer limit (qemu's MDTS: 512 KiB): refused before any I/O, the limit named.
    let (psync, psync_text) = g.spec("ngp.toml", &spec.clone().set("class.small.engine", "psync"));
    let (large, _) = g.spec("ngl.toml", &spec.clone().set("class.small.size", "1MiB"));
    g.step("check-psync", &format!("rigel check {psync}"));
    g.step(
        "run-large",
        &format!("rigel run {large} --out /tmp/ngl --allow-destructive"),
    );
    g.step(
        "max_hw_sectors_kb",
        "cat /sys/block/nvme0n1/queue/max_hw_sectors_kb",
    );
    g.step("check", &format!("rigel check {path}"));
    g.step(
        "iostats_passthrough",
        "echo 1 > /sys/block/nvme0n1/queue/iostats_passthrough",
    );
    g.step("stat-before", "cat /sys/block/nvme0n1/stat");
    g.step("smart-before", "nvme smart-log /dev/nvme0 -o json");
    g.step(
        "run",
        &format!("rigel run {path} --out /tmp/ng --allow-destructive"),
    );
    g.step("stat-after", "cat /sys/block/nvme0n1/stat");
    g.step("smart-after", "nvme smart-log /dev/nvme0 -o json");
    g.step("results", "cat /tmp/ng/results.json");
    // `verify = "after"` reads every written block back with passthrough reads (no read(2) on
    // the character device), after the counters above were taken.
    let (after, _) = g.spec("nga.toml", &spec.clone().set("run.verify", "after"));
    g.step(
        "run-after",
        &format!("rigel run {after} --out /tmp/nga --allow-destructive"),
    );
    g.step("after-results", "cat /tmp/nga/results.json");
    let out = g.boot();
    let (line, col) = line_col(&psync_text, "\"psync\"");
    let said = super::sqpoll::words(out.step("check-psync", 2));
    assert!(
        said.contains("class `small` runs on psync, but /dev/ng0n1 is an NVMe namespace's")
            && said.contains(&format!("/files/ngp.toml:{line}:{col}")),
        "{said}"
    );
    let max: u64 = out
        .step("max_hw_sectors_kb", 0)
        .trim()
        .parse()
        .expect("a number");
    // A fact of the host found opening the targets: exit 1, as every target error of `run`.
    let large = super::sqpoll::words(out.step("run-large", 1));
    assert!(
        large.contains(&format!(
            "is above what /dev/ng0n1 takes in one NVMe command ({} bytes",
            max * 1024
        )),
        "{large}"
    );
    out.step("check", 0);
    let ran = out.step("run", 0);
    assert!(!ran.contains("I/O error"), "{ran}");
    let doc: serde_json::Value =
        serde_json::from_str(out.step("results", 0)).expect("results.json parses");
    assert_eq!(
        doc["targets"][0]["kind"], "nvme-passthru",
        "{}",
        doc["targets"]
    );
    let p = &doc["points"][0];
    let options = &p["engines"][0]["options"];
    assert!(
        options["passthru"]
            .as_str()
            .is_some_and(|s| s.contains("nsid 1, 512-byte blocks")),
        "{options}"
    );
    // Every read checked what the run wrote (or found there), and nothing was wrong.
    let integrity = &p["integrity"];
    let bad: u64 = integrity["counts"]
        .as_object()
        .map(|c| c.values().filter_map(|v| v.as_u64()).sum())
        .unwrap_or(1);
    assert!(
        integrity["blocks_checked"].as_u64().unwrap_or(0) > 0 && bad == 0,
        "{integrity}"
    );
    out.step("run-after", 0);
    let again: serde_json::Value =
        serde_json::from_str(out.step("after-results", 0)).expect("results.json parses");
    let checked = &again["points"][0]["integrity"];
    assert!(
        checked["blocks_after"].as_u64().unwrap_or(0) > 0
            && checked["counts"]
                .as_object()
                .is_some_and(|c| c.values().all(|v| v.as_u64() == Some(0))),
        "{checked}"
    );
    let class = &p["classes"][0];
    let rigel = (
        class["read"]["ios"].as_u64().unwrap_or(0),
        class["write"]["ios"].as_u64().unwrap_or(0),
    );
    let (r0, w0) = reads_writes(out.step("stat-before", 0));
    let (r1, w1) = reads_writes(out.step("stat-after", 0));
    let stat = (r1 - r0, w1 - w0);
    let device = if out.text.contains("== iostats_passthrough exit 0") {
        stat
    } else {
        let (c0, d0) = host_commands(out.step("smart-before", 0));
        let (c1, d1) = host_commands(out.step("smart-after", 0));
        (c1 - c0 - stat.0, d1 - d0 - stat.1)
    };
    eprintln!("rigel counted {rigel:?}, the namespace {device:?} (the block layer's {stat:?})");
    for (what, ours, its) in [("reads", rigel.0, device.0), ("writes", rigel.1, device.1)] {
        assert!(
            ours > 100 && ours.abs_diff(its) * 100 <= its,
            "{what}: rigel {ours}, the namespace {its}"
        );
    }
}

/// The `zones` summary results record beside the point's engine options: (written, reset, held).
fn zone_counts(doc: &serde_json::Value) -> (u64, u64, u64) {
    let s = doc["points"][0]["engines"][0]["options"]["zones"]
        .as_str()
        .unwrap_or_else(|| panic!("no zones record in {}", doc["points"][0]["engines"]));
    let n: Vec<u64> = s
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(n.len(), 3, "{s}");
    (n[0], n[1], n[2])
}

/// `zones = "sequential"` on a host-managed zoned namespace: a 70/30 random read/write class
/// passes `check` and runs to completion with no I/O error, each of its 4 I/Os in flight holding
/// a zone from its write pointer on; once every zone is full (`nvme zns finish-zone`), a run
/// resets the zones it takes and writes them with no I/O error; a load above the namespace's 16
/// open zones is refused at `zones` with file:line:col.
#[test]
#[serial_test::parallel]
#[ignore = "needs qemu-system-x86, linux-image-amd64, busybox-static, nvme-cli"]
fn zones_sequential_writes_a_zoned_namespace_from_its_write_pointers() {
    let mut g = Guest::new(&["--zoned", "--bin", "/usr/sbin/nvme"]);
    let mixed = on_namespace("70% read").set("run.zones", "sequential");
    let (mixed, _) = g.spec("zs.toml", &mixed);
    let fill = on_namespace("write")
        .set("run.zones", "sequential")
        .set("class.small.size", "64KiB")
        .set("matrix.small", "2");
    let (fill, _) = g.spec("zf.toml", &fill);
    let over = on_namespace("70% read")
        .set("run.zones", "sequential")
        .set("matrix.small", "17");
    let (over, over_text) = g.spec("zo.toml", &over);
    g.step("check", &format!("rigel check {mixed}"));
    g.step("plan", &format!("rigel plan {mixed} --allow-destructive"));
    g.step(
        "run",
        &format!("rigel run {mixed} --out /tmp/zs --allow-destructive"),
    );
    g.step("results", "cat /tmp/zs/results.json");
    // Every zone full (a Finish of all zones leaves the empty ones be): 16 zones of 131072
    // 512-byte blocks.
    g.step(
        "finish",
        "for i in $(seq 0 15); do nvme zns finish-zone /dev/nvme0n1 -s $((i * 131072)) || \
         exit 1; done",
    );
    g.step(
        "fill",
        &format!("rigel run {fill} --out /tmp/zf --allow-destructive"),
    );
    g.step("fill-results", "cat /tmp/zf/results.json");
    g.step("check-over", &format!("rigel check {over}"));
    let out = g.boot();
    out.step("check", 0);
    assert!(
        super::sqpoll::words(out.step("plan", 0)).contains("zones sequential (each writing I/O")
    );
    out.step("finish", 0);
    for (run, results) in [("run", "results"), ("fill", "fill-results")] {
        let ran = out.step(run, 0);
        assert!(
            !ran.contains("I/O error") && !ran.contains("failed"),
            "{ran}"
        );
        let doc: serde_json::Value =
            serde_json::from_str(out.step(results, 0)).expect("results.json parses");
        let class = &doc["points"][0]["classes"][0];
        assert!(class["write"]["ios"].as_u64().unwrap_or(0) > 0, "{class}");
        let (written, reset, held) = zone_counts(&doc);
        eprintln!("{run}: {written} zones written, {reset} reset, {held} held open");
        if run == "run" {
            assert_eq!(held, 4, "one zone per I/O in flight");
            assert!((1..=4).contains(&written), "{written}");
        } else {
            assert_eq!(held, 2);
            assert!(reset >= 2, "the full zones taken were not reset");
        }
    }
    let (line, col) = line_col(&over_text, "\"sequential\"");
    let said = super::sqpoll::words(out.step("check-over", 2));
    assert!(
        said.contains("holds a zone open per writing I/O in flight, up to 17")
            && said.contains("holds at most 16")
            && said.contains(&format!("/files/zo.toml:{line}:{col}")),
        "{said}"
    );
}

/// The namespace's discards: requests completed plus merged, and sectors
/// (`/sys/block/nvme0n1/stat`'s fields 12, 13 and 14).
fn discards(stat: &str) -> (u64, u64) {
    let f: Vec<u64> = stat
        .split_whitespace()
        .map(|n| n.parse().unwrap_or(0))
        .collect();
    let at = |i: usize| {
        f.get(i)
            .copied()
            .unwrap_or_else(|| panic!("field {i} in {stat}"))
    };
    (at(11) + at(12), at(13))
}

/// A verified 70/20/10 read/write/trim class on the NVMe guest's namespace, both ways: it verifies
/// clean with trimmed blocks held to zeros, as the namespace's DLFEAT promises. On the block
/// namespace (`/dev/nvme0n1`) the namespace's discard counters (stat fields 12-14) saw the trims
/// results claim, 8 sectors each, and no more than the 4 in flight at the window's end beside.
/// Through passthrough (`/dev/ng0n1`, the DSM command)
/// the class runs with no I/O error; the guest's 6.1 kernel counts no passthrough command in the
/// stat and qemu's SMART log counts no DSM, so the effect is checked instead: a trim-only class
/// over a MiB filled with random data leaves it reading zeros, as the namespace's DLFEAT (Identify
/// Namespace, bits 2:0 = 1) promises.
#[test]
#[serial_test::parallel]
#[ignore = "needs qemu-system-x86, linux-image-amd64, busybox-static, nvme-cli"]
fn a_read_write_trim_class_sends_the_discards_it_claims_on_both_nvme_paths() {
    let mut g = Guest::new(&["--bin", "/usr/sbin/nvme"]);
    let mixed = "70% read, 20% write, 10% trim";
    // Verified over 2 MiB, so trimmed blocks are read again: held to zeros alone, as the
    // namespace's DLFEAT promises.
    let verified = |spec: Spec| {
        spec.set("run.verify", true)
            .set("class.small.region", "0..2MiB")
    };
    let (block, _) = g.spec("tb.toml", &verified(on_namespace(mixed)));
    let (passthru, _) = g.spec("tn.toml", &verified(on_device("/dev/ng0n1", mixed)));
    let wipe = Spec::named("wipe")
        .destructive_target(Path::new("/dev/ng0n1"))
        .set("run.duration", "1s")
        .set("run.warmup", "0s")
        .set("class.wipe.size", "64KiB")
        .set("class.wipe.access", "sequential")
        .set("class.wipe.mix", "trim")
        .set("class.wipe.region", "0..1MiB")
        .set("matrix.shape", "point")
        .set("matrix.wipe", "1");
    let (wipe, _) = g.spec("tw.toml", &wipe);
    let run = |spec: &str, out: &str| format!("rigel run {spec} --out {out} --allow-destructive");
    g.step("stat-before", "cat /sys/block/nvme0n1/stat");
    g.step("block", &run(&block, "/tmp/tb"));
    g.step("stat-after", "cat /sys/block/nvme0n1/stat");
    g.step("block-results", "cat /tmp/tb/results.json");
    g.step("passthru", &run(&passthru, "/tmp/tn"));
    g.step("passthru-results", "cat /tmp/tn/results.json");
    g.step(
        "dlfeat",
        "nvme id-ns /dev/nvme0n1 -o json | grep -o '\"dlfeat\" *: *[0-9]*'",
    );
    // The first MiB filled and on the medium (fsync), then trimmed through passthrough; each
    // count is of the bytes that are not zero, read past the page cache (dropped).
    let nonzero = "echo 3 > /proc/sys/vm/drop_caches; dd if=/dev/nvme0n1 bs=64k count=16 \
                   2>/dev/null | tr -d '\\000' | wc -c";
    g.step(
        "fill",
        &format!(
            "dd if=/dev/urandom of=/dev/nvme0n1 bs=64k count=16 conv=fsync 2>/dev/null; {nonzero}"
        ),
    );
    g.step("wipe", &run(&wipe, "/tmp/tw"));
    g.step("wipe-results", "cat /tmp/tw/results.json");
    g.step("wiped", nonzero);
    let out = g.boot();
    let trims = |step: &str| -> (u64, u64, u64) {
        let doc: serde_json::Value =
            serde_json::from_str(out.step(step, 0)).expect("results.json parses");
        let integrity = &doc["points"][0]["integrity"];
        if step != "wipe-results" {
            let bad: u64 = integrity["counts"]
                .as_object()
                .map_or(1, |m| m.values().filter_map(|v| v.as_u64()).sum());
            assert!(
                integrity["blocks_checked"].as_u64().unwrap_or(0) > 20 && bad == 0,
                "{step}: {integrity}"
            );
        }
        let class = &doc["points"][0]["classes"][0];
        let n = |d: &str| class[d]["ios"].as_u64().unwrap_or(0);
        (n("read"), n("write"), n("trim"))
    };
    // (A trim-only point gives no headline, which the run's answers say: not a failure.)
    for step in ["block", "passthru", "wipe"] {
        let ran = out.step(step, 0);
        assert!(!ran.contains("I/O error"), "{ran}");
    }
    let (reads, writes, claimed) = trims("block-results");
    let (d0, s0) = discards(out.step("stat-before", 0));
    let (d1, s1) = discards(out.step("stat-after", 0));
    eprintln!(
        "block: rigel {reads} reads, {writes} writes, {claimed} trims; the namespace {} \
         discards of {} sectors",
        d1 - d0,
        s1 - s0
    );
    assert!(
        claimed > 10 && reads > claimed && writes > claimed,
        "{reads} {writes} {claimed}"
    );
    // Each discard is one 4 KiB range; beside the window's, the namespace served those of the
    // run's edges (at most the 4 I/Os in flight as the window closed), which results do not
    // count.
    let (served, sectors) = (d1 - d0, s1 - s0);
    assert_eq!(
        sectors,
        served * 8,
        "{served} discards of {sectors} sectors"
    );
    assert!(
        (claimed..=claimed + 4).contains(&served),
        "rigel claims {claimed} trims, the namespace served {served}"
    );
    let (reads, writes, claimed) = trims("passthru-results");
    eprintln!("passthrough: rigel {reads} reads, {writes} writes, {claimed} trims");
    assert!(
        claimed > 10 && reads > claimed && writes > claimed,
        "{reads} {writes} {claimed}"
    );
    let dlfeat: u64 = out
        .step("dlfeat", 0)
        .rsplit(|c: char| !c.is_ascii_digit())
        .find(|w| !w.is_empty())
        .and_then(|w| w.parse().ok())
        .expect("dlfeat");
    assert_eq!(
        dlfeat & 7,
        1,
        "the namespace does not say it deallocates to zeros"
    );
    let count = |step: &str| -> u64 { out.step(step, 0).trim().parse().expect("a count") };
    assert!(count("fill") > 1 << 19, "the fill left zeros");
    let (_, _, wiped) = trims("wipe-results");
    assert!(wiped >= 16, "{wiped} trims did not cover the MiB");
    assert_eq!(count("wiped"), 0, "bytes not zero after the trims");
}
