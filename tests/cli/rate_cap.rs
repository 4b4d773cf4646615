//! Rate caps on real throttled devices: loop devices over tmpfs limited to 250 read IOPS each
//! (cgroup v1 `blkio.throttle.read_iops_device`), as a provisioned cloud volume is. ORION's small
//! line (`-run advanced -matrix row`) over one names its cap; over four under a `concat` volume
//! (the seed's EBS case) it names each device's 250 and their sum; the small line over an
//! unthrottled device (a FUSE file whose IOPS grow with the load) gets no finding.

use super::faults::faultfs::{self, Faults};
use super::orion::LunDir;
use rigel_testkit::LoopDevice;
use serde_json::Value;
use std::time::Duration;

/// The throttle every device gets, read IOPS.
const CAP: u32 = 250;

/// ORION over the devices at `paths` (`run`: [`SMALL_LINE`]) with `-num_disks disks`, in 2-second
/// points (the blkio throttle's budget carries over from one second to the next, so 1-second
/// points alternate ±5% about the cap); stderr, ORION's summary, the run's `findings` in
/// results.json and the small class's lowest IOPS over its points.
fn orion_cap(paths: &[&str], run: &[&str], disks: &str) -> (String, String, Vec<Value>, f64) {
    let d = LunDir::new().with("cap", paths);
    let mut args = run.to_vec();
    args.extend([
        "-testname",
        "cap",
        "-num_disks",
        disks,
        "-duration",
        "2",
        "-cache_size",
        "0",
    ]);
    let out = d.orion(&args).code(0);
    // The point lines (stdout), shown where the test fails: a loaded host's dip at one level
    // breaks the flat stretch, and that is the line to read.
    eprintln!("{}", out.stdout);
    let names = d.outputs();
    let summary = names
        .iter()
        .find(|n| n.ends_with("_summary.txt"))
        .expect("a summary file");
    let summary = std::fs::read_to_string(d.path().join(summary)).expect("summary");
    let folder = names
        .iter()
        .find(|n| n.ends_with(".rigel"))
        .expect("a run folder");
    let results =
        std::fs::read_to_string(d.path().join(folder).join("results.json")).expect("results.json");
    let doc: Value = serde_json::from_str(&results).expect("results parse");
    let findings = doc["findings"].as_array().cloned().unwrap_or_default();
    (out.stderr, summary, findings, small_low(&doc))
}

/// The small class's lowest IOPS over the run's points.
fn small_low(doc: &Value) -> f64 {
    let points = doc["points"].as_array().map_or(&[][..], Vec::as_slice);
    points
        .iter()
        .flat_map(|p| p["classes"].as_array().map_or(&[][..], Vec::as_slice))
        .filter(|c| c["class"] == "small")
        .filter_map(|c| c["total"]["iops"].as_f64())
        .fold(f64::INFINITY, f64::min)
}

/// [`orion_cap`] over devices throttled to `cap` IOPS in all, made again (at most three times)
/// while a point fell more than 10% below the cap: a host that held rigel or the loop device's
/// worker at one level (225.5 of 250 IOPS at load 2, beside two builds on 2 cores) breaks the
/// flat stretch. The premise, that the throttle set every point, failed, not the finding.
fn throttled(paths: &[&str], disks: &str, cap: f64) -> (String, String, Vec<Value>) {
    let mut last = None;
    for _ in 0..3 {
        let (stderr, summary, findings, low) = orion_cap(paths, &SMALL_LINE, disks);
        if low >= 0.9 * cap {
            return (stderr, summary, findings);
        }
        eprintln!("a point fell to {low} IOPS of the {cap} throttled: made again");
        last = Some((stderr, summary, findings));
    }
    last.expect("three runs")
}

/// ORION's small line alone (`-run advanced -matrix row`, no large I/O): the throttled tests
/// judge only the small class's cap, and `-run simple`'s large points would only add to their time.
const SMALL_LINE: [&str; 6] = ["-run", "advanced", "-matrix", "row", "-num_large", "0"];

/// The small class's rate-cap finding; without one, the panic shows the run's warnings too.
fn small_cap<'a>(findings: &'a [Value], stderr: &str) -> &'a Value {
    findings
        .iter()
        .find(|f| f["kind"] == "rate-cap" && f["class"] == "small")
        .unwrap_or_else(|| panic!("no small-class rate cap in {findings:#?}\n{stderr}"))
}

fn near(v: &Value, want: f64, share: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() <= want * share)
}

#[test]
#[serial_test::serial]
fn one_throttled_device_is_named_a_rate_limit() {
    let lo = LoopDevice::new(1 << 30);
    lo.throttle_reads(CAP);
    let (stderr, summary, findings) = throttled(&[lo.dev()], "1", f64::from(CAP));
    lo.throttle_reads(0);
    let cap = &small_cap(&findings, &stderr)["evidence"]["rate_cap"];
    assert!(near(&cap["mean"], f64::from(CAP), 0.1), "{cap:#}");
    assert_eq!(cap["metric"], "iops");
    assert!(cap["to_load"].as_u64() == Some(5), "{cap:#}");
    assert!(
        cap["latency_growth"].as_f64().unwrap_or(0.0) >= 2.0,
        "{cap:#}"
    );
    let said = "a rate limit (provisioned IOPS or a throttle), not the device's capacity";
    assert!(
        stderr.contains("warning: small: IOPS held at 2") && stderr.contains(said),
        "{stderr}"
    );
    // ORION's own lines stay as ORION writes them; rigel's note follows them.
    let (orion, notes) = summary.split_once("\nNotes (rigel):\n").expect("notes");
    assert!(orion.contains("\nMaximum Small IOPS=2"), "{summary}");
    assert!(!orion.contains(said) && notes.contains(said), "{summary}");
}

#[test]
#[serial_test::serial]
fn four_throttled_devices_under_concat_name_each_cap_and_the_sum() {
    let devs: Vec<LoopDevice> = (0..4).map(|_| LoopDevice::new(256 << 20)).collect();
    for d in &devs {
        d.throttle_reads(CAP);
    }
    // Two disks' loads (small 1 to 10, 21 s), not four's (small 1 to 20 and large 1 to 8: a
    // minute): the four devices hold their sum from the first levels on (a stream of random reads
    // meets a device with budget left and blocks only when one runs dry: 993 of 1,000 IOPS at
    // load 1), but over one disk's five levels a host at a load of 14 once left no flat stretch
    // of doubled load (no finding).
    let (stderr, _, findings) = throttled(
        &devs.iter().map(|d| d.dev()).collect::<Vec<_>>(),
        "2",
        4.0 * f64::from(CAP),
    );
    for d in &devs {
        d.throttle_reads(0);
    }
    let cap = &small_cap(&findings, &stderr)["evidence"]["rate_cap"];
    assert!(near(&cap["mean"], 4.0 * f64::from(CAP), 0.1), "{cap:#}");
    let each = cap["devices"].as_array().expect("per-device shares");
    assert_eq!(each.len(), 4, "{cap:#}");
    for (share, dev) in each.iter().zip(&devs) {
        assert_eq!(share["device"], dev.name(), "{cap:#}");
        assert!(near(&share["mean"], f64::from(CAP), 0.1), "{cap:#}");
    }
    let line = stderr
        .lines()
        .find(|l| l.starts_with("warning: small: IOPS held at"))
        .unwrap_or_else(|| panic!("{stderr}"));
    // The sum as the line prints it ("…, 997 IOPS" or "…, 1,004 IOPS"): the four caps' 1,000
    // within 10%, as the figures above (a fixed "1,0" failed a run whose devices served 997).
    let sum: f64 = line
        .split_once("the sum of per-device caps, ")
        .and_then(|(_, s)| s.split_once(" IOPS"))
        .and_then(|(n, _)| n.replace(',', "").parse().ok())
        .unwrap_or_else(|| panic!("no sum in {line}"));
    assert!(
        line.contains(&format!("per device {} 2", devs[0].name()))
            && (sum - 4.0 * f64::from(CAP)).abs() <= 0.1 * 4.0 * f64::from(CAP),
        "{line}"
    );
}

#[test]
#[serial_test::serial]
fn an_unthrottled_device_gets_no_rate_cap() {
    // A device of 4 ms reads with room for every load's queue (the loop device passes it whole):
    // IOPS grow with the load (about 250 per I/O in flight) at a flat latency, as a device far
    // from its cap does, at a rate the sleeps set, not the host's CPU.
    let fs = faultfs::mounted(
        Faults::new(64 << 20)
            .service_time(Duration::from_millis(4), Some(64))
            .async_direct_io(),
    );
    let lo = fs.loop_device().expect("a loop device over the FUSE file");
    let path = lo.dev.display().to_string();
    let (stderr, summary, findings, _) = orion_cap(&[path.as_str()], &SMALL_LINE, "1");
    assert!(findings.is_empty(), "{findings:#?}");
    assert!(!stderr.contains("rate limit"), "{stderr}");
    assert!(!summary.contains("Notes (rigel)"), "{summary}");
}
