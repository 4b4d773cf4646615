//! The open loop's own lateness, kept apart from the storage's time: on a loop device over tmpfs
//! at 1,000 IOPS (nothing queues behind the cap), the response time's excess over the service
//! time is the send lag rigel records for itself, and the split adds up; with rigel pinned to a
//! CPU that a real-time busy loop keeps, it falls behind its schedule and says so.

use super::builder::results;
use super::scenario::Scenario;
use super::scenario::Spec;
use rigel_testkit::LoopDevice;
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// One 1,000 IOPS uniform point of 4 KiB reads of `dev`, at most 8 outstanding, run by `cmd`
/// (the rigel binary, or it under `taskset`); the run folder and the output.
fn paced_run(dir: &Path, dev: &str, mut cmd: Command, duration: &str) -> (Value, String) {
    let spec = dir.join("p.toml");
    std::fs::write(
        &spec,
        format!(
            "[[target]]\npath = \"{dev}\"\n[run]\nduration = \"{duration}\"\nwarmup = \"300ms\"\n\n\
             [class.io]\nsize = \"4KiB\"\nmix = \"read\"\nrate = \"1000 iops\"\n\n\
             [matrix]\nshape = \"point\"\nio = \"8\"\n"
        ),
    )
    .expect("spec written");
    let out = dir.join("run");
    let o = cmd
        .arg("run")
        .arg(&spec)
        .arg("--out")
        .arg(&out)
        .env("NO_COLOR", "1")
        .output()
        .expect("rigel runs");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(0), "{text}");
    let md = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    (results(&out), format!("{text}\n{md}"))
}

fn rigel_bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rigel"))
}

#[test]
#[serial_test::serial]
fn at_1000_iops_response_minus_service_is_the_lag_rigel_records() {
    let lo = LoopDevice::new(64 << 20);
    let tmp = Scenario::new();
    let (doc, text) = paced_run(tmp.path(), lo.dev(), rigel_bin(), "2s");
    let c = &doc["points"][0]["classes"][0];
    let (total, pace) = (&c["total"], &c["pace"]);
    let lat = |v: &Value, k: &str| num(&v["latency"][k]);
    let (resp, serv) = (&total, &total["service"]);
    let (queued, lag) = (&pace["queued"], &pace["lag"]);
    eprintln!(
        "response p50 {} mean {}, service p50 {} mean {}, lag p50 {} p99 {} mean {}, queued p99 {}, gap CV {}",
        lat(resp, "p50_ns"),
        lat(resp, "mean_ns"),
        lat(serv, "p50_ns"),
        lat(serv, "mean_ns"),
        lat(lag, "p50_ns"),
        lat(lag, "p99_ns"),
        lat(lag, "mean_ns"),
        lat(queued, "p99_ns"),
        pace["send_gap_cv"]
    );
    // Per I/O response = queued + lag + service: the means add up (to the ns rounding of the
    // recorded values; the histogram floor of 1 ns is not in the means).
    let parts = lat(serv, "mean_ns") + lat(queued, "mean_ns") + lat(lag, "mean_ns");
    assert!(
        (lat(resp, "mean_ns") - parts).abs() <= 2.0,
        "response mean {} against service + queued + lag {parts}",
        lat(resp, "mean_ns")
    );
    // Behind a cap of 8 at one send per ms, an I/O waits only when the 8 before it are all still
    // out, which takes a service time of about 8 ms (a loop device whose worker a loaded machine
    // starves can take that long): below it, nothing waits.
    if lat(serv, "max_ns") < 7_000_000.0 {
        assert!(lat(queued, "p99_ns") < 10_000.0, "queued {queued}");
    }
    // Where response and service differ, it is the lag (and the queueing): per I/O response =
    // queued + lag + service, so the response median lies between the sum of the parts' 25th
    // percentiles and the sum of their 75th (fewer than a quarter of the I/Os are below each
    // part's 25th: the union bound leaves at most half below the lower sum, at most half above
    // the upper one), whatever the load does to the shapes. Medians of sums are not sums of
    // medians: a loaded host's heavy tails put the response median 104 µs above the service
    // median with a lag median of 42 µs. A lag left out of the response, or booked twice, moves
    // the response's median past a bound as soon as the lag is more than the parts' spread.
    let q = |v: &Value, at: f64| {
        let h = rigel_results::decode_histogram(v["histogram"].as_str().expect("a histogram"))
            .expect("the histogram decodes");
        h.value_at_quantile(at) as f64
    };
    let parts_at = |at: f64| q(serv, at) + q(lag, at) + q(queued, at);
    let (low, high, r50) = (parts_at(0.25), parts_at(0.75), q(resp, 0.5));
    let lag50 = lat(lag, "p50_ns");
    assert!(lag50 > 0.0, "a timed wait never wakes early: {lag}");
    // 1% for the histograms' buckets (3 significant digits).
    assert!(
        0.99 * low <= r50 && r50 <= 1.01 * high,
        "response p50 {r50} ns outside the parts' p25 sum {low} to p75 sum {high} ns"
    );
    // A uniform schedule at 1,000 IOPS is held: 1 ms gaps, a wake-up's jitter apart, but for the
    // delays rigel records. Sends go out in order, each delay d (= queued + lag = response −
    // service) after its send time, so a gap is 1 ms + d_i − d_(i−1): a host that holds rigel for
    // H ms gives one gap of H and a burst of zeros as it catches up, which adds about H² to the
    // gaps' squared deviations while the delays add H²/2 ms to their sum. So CV² ≈ 2 × mean d / 1 ms
    // (seen: mean d 5.0 ms and CV 2.47 at a load of 14 on 2 cores); the bound is twice that above
    // a quiet host's 0.5² (CV 0.61 for a mean d of 30 µs). On a host that does not hold rigel, a
    // schedule that is not uniform (Poisson gaps: CV 1) or sends bunched without the delay showing
    // in lag still fails it.
    let cv = num(&pace["send_gap_cv"]);
    let delay_ms = (lat(resp, "mean_ns") - lat(serv, "mean_ns")) / 1e6;
    let bound = (0.25 + 4.0 * delay_ms).sqrt();
    assert!(
        cv < bound,
        "send-gap CV {cv}, above {bound:.2} for a mean delay of {delay_ms:.3} ms"
    );
    assert!(text.contains("| Lag p99 |"), "no lag column in:\n{text}");
}

/// A real-time busy loop on CPU `cpu` until `stop` (or a minute at most): nothing of a normal
/// priority runs there but in the kernel's reserve for it (5%: `sched_rt_runtime_us`).
fn hog(cpu: usize, stop: &AtomicBool) -> Result<(), String> {
    // SAFETY: a zeroed cpu_set_t is valid; CPU_SET writes inside it; sched_setaffinity and
    // sched_setscheduler read the live values passed, for this thread (0).
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(format!(
                "sched_setaffinity: {}",
                std::io::Error::last_os_error()
            ));
        }
        let param = libc::sched_param { sched_priority: 1 };
        if libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) != 0 {
            return Err(format!("SCHED_FIFO: {}", std::io::Error::last_os_error()));
        }
    }
    let end = Instant::now() + Duration::from_secs(60);
    while !stop.load(Ordering::Relaxed) && Instant::now() < end {
        std::hint::spin_loop();
    }
    Ok(())
}

#[test]
#[serial_test::serial]
fn pinned_to_a_cpu_a_busy_loop_holds_rigel_says_it_fell_behind() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cpu = cpus - 1;
    let lo = LoopDevice::new(64 << 20);
    let tmp = Scenario::new();
    let stop = AtomicBool::new(false);
    let (doc, text) = std::thread::scope(|s| {
        let spinning = s.spawn(|| hog(cpu, &stop));
        // The hog holds its CPU before rigel starts there.
        std::thread::sleep(Duration::from_millis(100));
        if spinning.is_finished() {
            panic!("the busy loop did not start: {:?}", spinning.join());
        }
        let mut cmd = Command::new("taskset");
        cmd.arg("-c")
            .arg(cpu.to_string())
            .arg(env!("CARGO_BIN_EXE_rigel"));
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            paced_run(tmp.path(), lo.dev(), cmd, "1s")
        }));
        stop.store(true, Ordering::Relaxed);
        match run {
            Ok(r) => r,
            Err(e) => std::panic::resume_unwind(e),
        }
    });
    let c = &doc["points"][0]["classes"][0];
    // A CPU the busy loop keeps gives rigel the scheduler's reserve in slices: when no slice fell
    // in the window, no I/O was sent there and there is no lag to show, and rigel must say that
    // it did not run instead.
    if c["pace"]["lag"].is_null() {
        eprintln!("no send in the window: pace {}", c["pace"]);
        assert!(
            text.contains("rigel did not run for"),
            "no I/O in the window and no pause told in:\n{text}"
        );
        return;
    }
    let lag99 = num(&c["pace"]["lag"]["latency"]["p99_ns"]);
    let resp99 = num(&c["total"]["latency"]["p99_ns"]);
    eprintln!(
        "lag p99 {lag99} ns, response p99 {resp99} ns, pace {}",
        c["pace"]
    );
    // rigel runs in the scheduler's 5% reserve: sends wait for it by tens of ms at least.
    assert!(lag99 >= 10_000_000.0, "lag p99 {lag99} ns");
    assert!(
        text.contains("rigel fell behind its schedule: response times include up to"),
        "no lateness warning in:\n{text}"
    );
}

// ---- paced (from its own file) ----
// Classes that pace each other on one worker (issue 42's oracle/oltp on /dev/shm files: scans
// and redo at the same 2,720 per second): on tmpfs an I/O completes at its submission, so one
// worker's turn completes one I/O of each class of one outstanding I/O. Page 1 says so beside
// the answers; with a worker per class the classes are measured apart and it says nothing.

fn page1(tmp: &Scenario, workers: &str) -> String {
    page1_of(tmp, workers, Spec::named("paced"))
}

fn page1_of(tmp: &Scenario, workers: &str, spec: Spec) -> String {
    let spec = spec
        .target(tmp.join("t.bin"), &[("size", "64MiB")])
        .set("run.duration", "700ms")
        .set("run.warmup", "0s")
        .set("run.workers", workers)
        .set("class.scan.size", "1MiB")
        .set("class.scan.mix", "read")
        .set("class.redo.size", "16KiB")
        .set("class.redo.access", "sequential")
        .set("class.redo.per_stream", 1)
        .set("class.redo.mix", "write")
        .set("class.redo.durability", "dsync")
        .set("matrix.shape", "point")
        .set("matrix.scan", "1")
        .set("matrix.redo", "1");
    let n = std::fs::read_dir(tmp.path()).map_or(0, |d| d.count());
    let path = tmp.spec(&format!("paced-{workers}-{n}.toml"), &spec);
    let run = tmp.run(&path, &format!("run-{workers}-{n}"), &[]).code(0);
    let md = std::fs::read_to_string(run.folder.join("report.md")).expect("report.md");
    md.split("## System under test")
        .next()
        .unwrap_or_default()
        .to_owned()
}

#[test]
#[serial_test::parallel]
fn classes_in_lockstep_on_one_worker_are_told_on_page_one() {
    let tmp = Scenario::new();
    let one = page1(&tmp, "1");
    assert!(
        one.contains("Warning (paced)") && one.contains("scan and redo completed the same number"),
        "{one}"
    );
    let apart = page1(&tmp, "3");
    assert!(!apart.contains("pace each other"), "{apart}");
}

#[test]
#[serial_test::parallel]
fn open_loop_classes_at_one_rate_agree_by_design_and_are_not_told() {
    // Both classes sent at 300 IOPS: equal counts are their schedules', not a lockstep.
    let tmp = Scenario::new();
    let spec = Spec::named("paced")
        .set("class.scan.rate", "300 iops")
        .set("class.redo.rate", "300 iops");
    let one = page1_of(&tmp, "1", spec);
    assert!(!one.contains("pace each other"), "{one}");
}
