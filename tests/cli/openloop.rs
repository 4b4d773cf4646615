//! Open-loop measurement truth on a target of known latency (tests/support/faultfs.rs, read
//! through a loop device so a held I/O waits in the kernel, never in rigel's worker): below
//! capacity the response latency equals the service latency equals the injected time (the round
//! trip through loop device and FUSE measured at the same time by the test's own reads, and
//! subtracted) and the achieved rate is the requested one; a single 1 s stall at 1,000 IOPS shows
//! in the response percentiles and not in the service ones. The two run one at a time. They need
//! root and /dev/fuse (`.ci/run` has both) and fail, saying why, without them.

use super::builder::{ahead_of_the_host, rigel};
use super::faults::faultfs::{self, FaultFs, Faults};
use serde_json::Value;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Runs one point on `target` (`classes`: the class tables, `loads`: the matrix's load of each)
/// and returns the point's results.
fn run_point(dir: &Path, target: &Path, classes: &str, loads: &str, run: &str) -> Value {
    let text = format!(
        "[spec]\nname = \"o\"\n\n[[target]]\npath = \"{}\"\n\n[run]\n{run}\n\n{classes}\n\n\
         [matrix]\nshape = \"point\"\n{loads}\n",
        target.display()
    );
    let spec = dir.join("o.toml");
    std::fs::write(&spec, text).expect("spec written");
    let out = dir.join(format!(
        "run-{}",
        std::fs::read_dir(dir).map_or(0, |d| d.count())
    ));
    let r = rigel().arg("run").arg(&spec).arg("--out").arg(&out).run();
    let text = std::fs::read_to_string(out.join("results.json"))
        .unwrap_or_else(|e| panic!("results.json: {e}\n{}\n{}", r.stdout, r.stderr));
    let doc: Value = serde_json::from_str(&text).expect("results.json parses");
    doc["points"][0].clone()
}

/// 4 KiB O_DIRECT reads of `dev`, one every `every` (on a fixed schedule), until `done`: how long
/// each took, and how late each started (this thread's wake-up from a timed sleep).
fn timed_reads(dev: &Path, every: Duration, done: &AtomicBool) -> (Vec<Duration>, Vec<Duration>) {
    use std::os::unix::fs::{FileExt, OpenOptionsExt};
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(dev)
        .expect("the twin device opens");
    let mut buf = vec![0u8; 8192];
    let at = buf.as_ptr().align_offset(4096);
    let buf = &mut buf[at..at + 4096];
    // Timed wake-ups as exact as rigel's paced worker asks for (it sets a timer slack of 1 ns; the
    // default 50 µs would be counted as lateness here): this thread's slack, through /proc/<tid>.
    // Best effort: left at the default, the bound below is only 50 µs wider.
    if let Some(tid) = std::fs::read_link("/proc/thread-self")
        .ok()
        .and_then(|l| l.file_name().map(|t| t.to_owned()))
    {
        let _ = std::fs::write(Path::new("/proc").join(tid).join("timerslack_ns"), "1");
    }
    let start = Instant::now();
    let (mut took, mut late) = (Vec::new(), Vec::new());
    for k in 1u32.. {
        if done.load(Ordering::Relaxed) {
            break;
        }
        if let Some(wait) = (start + every * k).checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let t = Instant::now();
        late.push(t.duration_since(start + every * k));
        file.read_exact_at(buf, u64::from(k % 4096) * 4096)
            .expect("a read of the twin device");
        took.push(t.elapsed());
    }
    (took, late)
}

/// 200 IOPS paced on `dev` (3 s after 500 ms of warmup) while this test reads `twin` in the same
/// rhythm: the point's results, and the test's read times and wake-up delays.
fn paced_beside_timed_reads(
    tmp: &tempfile::TempDir,
    dev: &Path,
    twin: &Path,
) -> (Value, (Vec<Duration>, Vec<Duration>)) {
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let reads = s.spawn(|| timed_reads(twin, Duration::from_millis(5), &done));
        // 200 IOPS of 2 ms each: 0.4 I/Os in flight on average, the cap of 8 never reached.
        let point = run_point(
            tmp.path(),
            dev,
            "[class.io]\nsize = \"4KiB\"\nrate = \"200 iops\"",
            "io = \"8\"",
            "duration = \"3s\"\nwarmup = \"500ms\"",
        );
        done.store(true, Ordering::Relaxed);
        (point, reads.join().expect("the timed reads"))
    })
}

/// Runs `run` while a thread arms one stall of `stall` on `fs`: `wait` after the file served
/// `reads` I/Os more than it had (armed by time, not by an I/O count a slow host may reach late).
fn with_a_stall<T>(
    fs: &FaultFs,
    (reads, wait, stall): (u64, Duration, Duration),
    run: impl FnOnce() -> T,
) -> T {
    let before = fs.ios();
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while fs.ios() < before + reads {
                if done.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            std::thread::sleep(wait);
            fs.stall_next(stall);
        });
        let out = run();
        done.store(true, Ordering::Relaxed);
        out
    })
}

fn median_ms(mut d: Vec<Duration>) -> f64 {
    assert!(!d.is_empty(), "no timed reads");
    d.sort();
    d[d.len() / 2].as_secs_f64() * 1e3
}

fn ms(v: &Value) -> f64 {
    v.as_f64().expect("a number") / 1e6
}

/// The class named `name` in a point's results.
fn class<'a>(point: &'a Value, name: &str) -> &'a Value {
    point["classes"]
        .as_array()
        .expect("classes")
        .iter()
        .find(|c| c["class"] == name)
        .unwrap_or_else(|| panic!("class {name} in {point}"))
}

#[test]
#[serial_test::serial]
fn below_capacity_response_equals_service_equals_the_injected_time() {
    faultfs::require();
    // The FUSE servers, rigel and the test's own timed reads in the real-time class: beside a
    // build, the reference reads of a fair-class test woke late (p50 3.9 ms for 2.8 ms served).
    ahead_of_the_host();
    let tmp = tempfile::tempdir().expect("tmp");
    let injected = 2.0;
    let faults = Faults::new(16 << 20).service_time(Duration::from_millis(2), None);
    let fs = FaultFs::mount(faults.clone()).expect("mount");
    let dev = fs.loop_device().expect("a loop device over the FUSE file");
    // The round trip through loop device and FUSE (the serving threads' wake-ups included, which
    // grow with the machine's load), measured at the same moment and in the same rhythm as the
    // paced run, independently of rigel: this test's own O_DIRECT reads, 200 a second, of an
    // identical target of their own (a FUSE file serves one read at a time, so on the same target
    // the two would queue behind each other). Measured before, by a closed loop (a target kept
    // busy, in another minute's load), it was 0.2 ms while the paced reads saw 3 ms more.
    let twin = FaultFs::mount(faults).expect("mount");
    let twin_dev = twin
        .loop_device()
        .expect("a loop device over the FUSE file");
    // One measurement: a host that stops everything (both FUSE servers and rigel waiting for a
    // CPU: seen here for 204 ms at a load of 5 on 2 cores) no longer moves the rate's verdict
    // through the I/Os it leaves in flight at the window's end (those are not missed); it can
    // make rigel's sends late, and the test's own reads and wake-ups, held as long, tell it.
    let (point, (reads, late)) = paced_beside_timed_reads(&tmp, &dev.dev, &twin_dev.dev);
    let held = *reads.iter().chain(&late).max().expect("timed reads");
    let late = median_ms(late);
    // The floor of each: the injected time plus the round trip with no wake-up delayed by the
    // load. The medians include those delays, which two FUSE servers draw differently on a loaded
    // host (their medians differed by up to 0.5 ms either way in 3 of 11 runs at a load of 4-5 on
    // 2 cores, while the floors agreed within 0.04 ms).
    let floor = reads.iter().min().expect("timed reads").as_secs_f64() * 1e3;
    let round_trip = floor - injected;
    // The injected time is a floor: no read can complete sooner.
    assert!(
        round_trip >= 0.0,
        "a read took {floor} ms, below the injected time"
    );
    let c = class(&point, "io");
    let total = &c["total"];
    let response = ms(&total["latency"]["p50_ns"]);
    let service = ms(&total["service"]["latency"]["p50_ns"]);
    let service_min = ms(&total["service"]["latency"]["min_ns"]);
    eprintln!(
        "round trip {round_trip:.3} ms (reads: p50 {:.3} ms, max {:.3} ms, wake-up p50 {late:.3} ms), \
         service min {service_min:.3} ms, p50 {service:.3} ms, max {:.3} ms, response p50 \
         {response:.3} ms, achieved {} IOPS, pace {}",
        median_ms(reads.clone()),
        reads.iter().max().expect("timed reads").as_secs_f64() * 1e3,
        ms(&total["service"]["latency"]["max_ns"]),
        total["iops"],
        c["pace"]
    );
    // And the middle: rigel's service p50 is the test's own reads' p50 (injected time plus round
    // trip), within the 0.5 ms by which two FUSE servers' medians drift apart under load, doubled;
    // unless the target itself held its I/Os (below): its server starved of a CPU, its reads were
    // not below capacity, while the twin's, served by another thread, were (seen at a load of 8:
    // service p50 18.2 ms against the twin's 2.2 ms, a send queued 328 ms behind the cap).
    let reads_p50 = median_ms(reads.clone());
    let starved = target_held(&c["pace"]);
    assert!(
        (service - reads_p50).abs() < 1.0 || starved,
        "service p50 {service} ms against the test's own reads' p50 {reads_p50} ms"
    );
    // The floors agree within 0.02 ms on a quiet host. When the host held a read for longer than
    // 50 ms, the two FUSE servers' floors were seen 0.12 ms apart (CI, a read held 53 ms): the bound then widens to 0.3 ms, still far below the injected 2 ms.
    // Such a host also wakes different threads differently: rigel's sends were then seen 0.70 ms
    // late at the median against the test's own wake-ups' 0.33 ms (CI, a read held 125 ms), so the on-time bound below widens by 0.5 ms, still a quarter of the
    // injected time (a send held to the next timer tick would be 100 ms late).
    let (floor_tolerance, wake_tolerance) = if held > Duration::from_millis(50) {
        eprintln!(
            "the host held a timed read {held:?}: floors within 0.3 ms, sends \
             within 0.5 ms more of the reads' wake-ups"
        );
        (0.3, 0.5)
    } else {
        // Beside a build, with no read held past 7 ms, the floors were seen 0.104 ms apart while
        // the medians agreed within 0.044 ms: a minimum of 600 reads is one lucky read. A tenth
        // of the injected time still catches rigel adding a cost of its own to each I/O.
        (0.2, 0.0)
    };
    assert!(
        (service_min - injected - round_trip).abs() < floor_tolerance,
        "service min {service_min} ms, expected {injected} ms + round trip {round_trip} ms"
    );
    assert!(
        service >= injected,
        "service p50 {service} ms below the injected time"
    );
    // On time: each I/O is sent at its send time, but for the host's delay in waking a thread
    // from a timed wait, measured by the test's own reads at the same time and subtracted. A
    // target that held its slots made the sends falling due wait for one: their response then
    // rightly counts that wait.
    assert!(
        response - service < 0.2 + late + wake_tolerance || starved,
        "response p50 {response} ms vs service p50 {service} ms (host wake-up p50 {late} ms)"
    );
    let achieved = total["iops"].as_f64().expect("iops");
    let pace = &c["pace"];
    let count = |v: &Value| v.as_u64().expect("a count");
    let (scheduled, backlog) = (count(&pace["scheduled"]), count(&pace["backlog"]));
    let own = count(&total["ios"]) - count(&pace["carried"]);
    if held > Duration::from_millis(50) || starved {
        // The host stopped the whole path, both FUSE servers (the test's own reads were held as
        // long), or the target's alone (`starved`): the target then holds all 8 slots, the
        // sends falling due wait, and the rate falls short by what the hold cost (1.08 s once beside a build: 168.7 IOPS, 87 left).
        // What stays exact is the account: every send time of the window completed in it, waits
        // in the backlog (no free slot), or is one of the 8 still in flight at its end; and the
        // completions counted include the I/Os in flight at its start (at most 8 too, standing
        // for those at the end). So completed + backlog is the schedule within the cap (seen:
        // 505 + 87 of 600 after a 1.08 s hold inside the window, 607 + 0 of 600 after a 0.29 s
        // hold across its start). A sender that skipped sends with a free slot would fall short.
        assert!(
            (own + backlog).abs_diff(scheduled) <= 8,
            "{own} completed + {backlog} in the backlog against {scheduled} scheduled: {pace}"
        );
    } else {
        assert!(
            (achieved - 200.0).abs() <= 2.0,
            "achieved {achieved} IOPS of 200"
        );
        assert_eq!(backlog, 0, "{pace}");
    }
    // Every send time issued, and on time (within the rate's tolerance of 50 ms) unless the host
    // held everything for longer than that: then rigel's sends were late too, and it says so.
    // Or unless the target itself held its I/Os that long: the premise "below capacity" is the
    // target's, and a FUSE server starved of a CPU serves one read in 100 ms while the twin's,
    // served by another thread, never waits (this test's reads then see no hold). Its 8 slots
    // full, the sends falling due wait for one, and a wait past the tolerance makes them late:
    // rigel's rule counts them, rightly (the storage did not take the rate at that moment).
    // Which of the two made a send late rigel records per I/O: `queued` is the wait behind the
    // cap that a punctual sender would have had with the same service times (the target's
    // doing), `lag` is rigel's own. So a rate missed is accepted only when the target queued a
    // send past the tolerance, and rigel's own lateness still keeps the results' 1% rule (its
    // lag p99 under the tolerance): a sender of its own that is late fails here as before.
    assert!(
        pace["achieved"] == true || held > Duration::from_millis(50) || starved,
        "rate not achieved with no hold of the host over 50 ms and none by the target: {pace}"
    );
}

/// Whether the target itself held the paced class's I/Os past the rate's tolerance (50 ms): a send
/// queued that long behind the cap of 8 by the target's own service times (`pace.queued`, which a
/// punctual sender would have had too), while rigel's own lag (`pace.lag`) stayed under it.
fn target_held(pace: &Value) -> bool {
    let tolerance_ms = 50.0;
    let (queued_max, lag_p99) = (
        ms(&pace["queued"]["latency"]["max_ns"]),
        ms(&pace["lag"]["latency"]["p99_ns"]),
    );
    let held = queued_max > tolerance_ms && lag_p99 < tolerance_ms;
    if held {
        eprintln!("the target held the slots: a send waited {queued_max:.1} ms behind the cap");
    }
    held
}

#[test]
#[serial_test::serial]
fn a_one_second_stall_shows_in_response_latency_not_in_service_latency() {
    faultfs::require();
    // Reads served at once by the FUSE thread (a capacity of several thousand IOPS one at a time,
    // even on a loaded host), one outstanding at most: while the stalled read is held, the send
    // times falling due wait in rigel's backlog, as they would behind any held I/O.
    let fs = FaultFs::mount(Faults::new(16 << 20)).expect("mount");
    let dev = fs.loop_device().expect("a loop device over the FUSE file");
    let tmp = tempfile::tempdir().expect("tmp");
    // The stall is armed 1.5 s after the run's first 200 reads (0.2 s of them at 1,000 IOPS),
    // that is 0.7 s into the measured window (warmup 1 s), with 2.3 s left for the held reads to
    // complete inside it. (Reads of the device by others, e.g. udev probing it, are a few, not
    // 200.)
    let stall = (200, Duration::from_millis(1500), Duration::from_secs(1));
    let point = with_a_stall(&fs, stall, || {
        run_point(
            tmp.path(),
            &dev.dev,
            "[class.io]\nsize = \"4KiB\"\nrate = \"1000 iops\"",
            "io = \"1\"",
            "duration = \"3s\"\nwarmup = \"1s\"",
        )
    });
    assert_eq!(fs.stalled(), 1, "the stall fell inside the run");
    let c = class(&point, "io");
    let total = &c["total"];
    let response = ms(&total["latency"]["p99_ns"]);
    let service = ms(&total["service"]["latency"]["p99_ns"]);
    eprintln!(
        "response p99 {response:.3} ms, service p99 {service:.3} ms, service max {:.3} ms, pace {}",
        ms(&total["service"]["latency"]["max_ns"]),
        c["pace"]
    );
    // About 1,000 send times fall due during the stall, waiting up to 1 s: a third of the
    // window's 3,000, so the p99 holds a wait of more than half the stall.
    assert!(response >= 500.0, "response p99 {response} ms");
    assert!(service < 100.0, "service p99 {service} ms");
    // The held read itself completed inside the window.
    assert!(ms(&total["service"]["latency"]["max_ns"]) >= 900.0);
    // The wait is the storage's: a punctual sender with the same service times would have kept
    // the send times behind the held read just as long (queued), and rigel was not late (lag).
    let (queued, lag) = (
        ms(&c["pace"]["queued"]["latency"]["p99_ns"]),
        ms(&c["pace"]["lag"]["latency"]["p99_ns"]),
    );
    assert!(queued >= 500.0, "queued p99 {queued} ms");
    assert!(lag < 50.0, "lag p99 {lag} ms");
    // The schedule does not bend to the stall: the window holds exactly 3 s of send times. A
    // second of them sent up to a second late: the rate was not achieved.
    assert_eq!(c["pace"]["scheduled"], 3000, "{}", c["pace"]);
    assert!(
        c["pace"]["late"].as_u64().expect("late") >= 500,
        "{}",
        c["pace"]
    );
    assert_eq!(c["pace"]["achieved"], false, "{}", c["pace"]);
}

#[test]
#[serial_test::serial]
fn io_in_flight_at_the_window_end_is_not_missed_but_a_device_short_of_the_rate_is() {
    faultfs::require();
    let tmp = tempfile::tempdir().expect("tmp");
    // 40 IOPS for 2 s after 500 ms of warmup, at most `cap` outstanding.
    let rate = |target: &Path, cap: u32| {
        let point = run_point(
            tmp.path(),
            target,
            "[class.io]\nsize = \"4KiB\"\nrate = \"40 iops\"",
            &format!("io = \"{cap}\""),
            "duration = \"2s\"\nwarmup = \"500ms\"",
        );
        class(&point, "io")["pace"].clone()
    };
    // Reads served at once, but one held 500 ms about 200 ms before the window's end (armed by
    // time, 1.8 s after the warmup's 20 reads): it, and whatever queues behind it, is still in
    // flight when the window ends. Every send time was issued on time (the cap of 64 never
    // fills at 40 IOPS), so the rate was held, though fewer than 99% of the window's 80 reads
    // completed in it (the old rule called that "rate not achieved").
    let fs = FaultFs::mount(Faults::new(16 << 20)).expect("mount");
    let dev = fs.loop_device().expect("a loop device over the FUSE file");
    let stall = (20, Duration::from_millis(1800), Duration::from_millis(500));
    let kept = with_a_stall(&fs, stall, || rate(&dev.dev, 64));
    eprintln!("a read held across the window's end: {kept}");
    assert_eq!(fs.stalled(), 1, "the stall fell inside the run");
    let scheduled = kept["scheduled"].as_f64().expect("scheduled");
    let completed = kept["achieved_iops"].as_f64().expect("achieved_iops") * 2.0;
    assert!(
        completed < 0.99 * scheduled,
        "reads in flight at the end: {kept}"
    );
    assert_eq!(kept["backlog"], 0, "{kept}");
    assert_eq!(kept["late"], 0, "{kept}");
    assert_eq!(kept["achieved"], true, "{kept}");
    // A device short of the rate: every read served in 100 ms, one at a time (10 IOPS asked for
    // 40). The cap (4: drained in 0.4 s after the window) fills in the warmup, and the window's
    // send times then wait for a slot, seconds late or never issued.
    let short =
        FaultFs::mount(Faults::new(16 << 20).service_time(Duration::from_millis(100), Some(1)))
            .expect("mount");
    let missed = rate(short.file(), 4);
    eprintln!("100 ms one at a time: {missed}");
    assert_eq!(missed["achieved"], false, "{missed}");
    assert!(
        missed["backlog"].as_u64().expect("backlog") > 20,
        "{missed}"
    );
    assert!(missed["achieved_iops"].as_f64().expect("achieved_iops") <= 12.0);
}
