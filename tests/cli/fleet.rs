//! Fleet runs on one machine with real launchers: `mpirun -np 4` of `rigel run --fleet`, ranks by
//! hand with one killed mid-run and resumed, and a rank whose plan differs refusing to start. Each
//! rank reads its own O_DIRECT file (`${rank}` in the spec) through the real executor. Two ranks
//! whose volumes' burst buckets run out at different times start their first point together,
//! after both drains.

use super::builder::rigel;
use super::resume::{fail_point, jsonl};
use super::scenario::Spec;
use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A spec of small random reads at `levels` over `dir/target-${rank}.bin`, points of `duration`
/// (1 s where the windows' overlap is checked: a 2-core machine shared by several ranks may start
/// one a few ms late, which is 3% of 300 ms).
fn spec(dir: &Path, levels: &str, duration: &str) -> PathBuf {
    spec_of(dir, &[], levels, duration)
}

/// [`spec`] with more keys in the class (`("rate", "100 iops")`).
fn spec_of(dir: &Path, class: &[(&str, &str)], levels: &str, duration: &str) -> PathBuf {
    let mut spec = Spec::named("fleet")
        .target(dir.join("target-${rank}.bin"), &[("size", "16MiB")])
        .set("run.duration", duration)
        .set("run.warmup", "0s")
        .set("class.small.size", "4KiB")
        .set("class.small.access", "random")
        .set("class.small.mix", "read");
    for (key, value) in class {
        spec = spec.at(&["class", "small", key], *value);
    }
    let spec = spec
        .set("matrix.shape", "row")
        .set("matrix.small", levels)
        .at(&["expect", "small.iops"], ">= 1");
    let path = dir.join("fleet.toml");
    std::fs::write(&path, spec.text()).expect("spec written");
    path
}

/// `mpirun -np N rigel run SPEC --fleet DIR` in `dir`: its stderr, after checking it succeeded.
fn mpirun(mpirun: &Path, np: u32, spec: &Path, fleet: &Path, dir: &Path) -> String {
    let out = Command::new(mpirun)
        .args([
            "--allow-run-as-root",
            "--oversubscribe",
            "-np",
            &np.to_string(),
        ])
        .arg(env!("CARGO_BIN_EXE_rigel"))
        .arg("run")
        .arg(spec)
        .arg("--fleet")
        .arg(fleet)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("mpirun runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "mpirun failed: {stderr}");
    stderr
}

fn results(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("results.json")).expect("results.json");
    serde_json::from_str(&text).expect("results.json parses")
}

/// Every point's merged figures against its ranks': summed IOPS, histogram count = summed I/Os.
fn check_sums(doc: &Value, ranks: usize) {
    let points = doc["points"].as_array().expect("points");
    assert!(!points.is_empty());
    for p in points {
        let fleet = &p["fleet"];
        let per_rank = fleet["per_rank"].as_array().expect("per_rank");
        assert_eq!(per_rank.len(), ranks);
        let merged = &p["classes"][0]["total"];
        let sum_iops: f64 = per_rank
            .iter()
            .map(|r| r["classes"][0]["iops"].as_f64().expect("iops"))
            .sum();
        let sum_ios: u64 = per_rank
            .iter()
            .map(|r| r["classes"][0]["ios"].as_u64().expect("ios"))
            .sum();
        let iops = merged["iops"].as_f64().expect("iops");
        assert!(
            (iops - sum_iops).abs() < 1e-6 * sum_iops.max(1.0),
            "{iops} vs {sum_iops}"
        );
        assert_eq!(merged["ios"].as_u64(), Some(sum_ios));
        let hist = rigel_results::decode_histogram(merged["histogram"].as_str().expect("hist"))
            .expect("the merged histogram decodes");
        assert_eq!(hist.len(), sum_ios, "merged histogram count = summed I/Os");
        assert!(merged["latency"]["p99_ns"].as_u64() <= merged["latency"]["max_ns"].as_u64());
    }
}

#[test]
#[ignore = "needs mpirun (openmpi-bin)"]
#[serial_test::parallel]
fn mpirun_four_ranks_merge_exactly() {
    let mpirun_bin = mpirun_path();
    let tmp = tempfile::tempdir().expect("a temp dir");
    let spec = spec(tmp.path(), "1, 2, 4", "1s");
    let fleet = tmp.path().join("fleet");
    let stderr = mpirun(&mpirun_bin, 4, &spec, &fleet, tmp.path());
    for r in 0..4 {
        assert!(
            stderr.contains(&format!("rank {r} of 4 (OMPI_COMM_WORLD_RANK)")),
            "{stderr}"
        );
        assert!(tmp.path().join(format!("target-{r}.bin")).is_file());
    }
    let doc = results(&fleet);
    assert_eq!(doc["fleet"]["ranks"], 4);
    check_sums(&doc, 4);
    for p in doc["points"].as_array().expect("points") {
        let overlap = p["fleet"]["overlap_pct"].as_f64().expect("overlap");
        assert!(
            overlap >= 95.0,
            "point {}: windows overlap {overlap}%",
            p["point"]["id"]
        );
        assert!(p.get("partial").is_none(), "{p}");
    }
    let md = std::fs::read_to_string(fleet.join("report.md")).expect("report.md");
    assert!(md.contains("## Hosts"), "{md}");
    assert!(
        std::fs::read_to_string(fleet.join("report.html"))
            .expect("html")
            .contains("Hosts")
    );
    let compare = rigel().arg("compare").arg(&fleet).arg(&fleet).run();
    assert_eq!(compare.code, 0, "{}", compare.stderr);
    let merge = rigel().arg("merge").arg(&fleet).run();
    assert_eq!(merge.code, 0, "{}", merge.stderr);
    assert_eq!(
        results(&fleet)["points"],
        doc["points"],
        "merging again gives the same figures"
    );
}

#[test]
#[serial_test::parallel]
fn a_killed_rank_leaves_partial_points_and_resume_completes_them() {
    let tmp = tempfile::tempdir().expect("a temp dir");
    // Points of 500 ms: the kill after rank 2's second point still leaves three points for the
    // fleet to find partial and the resume to complete (1 s points: 25 s in CI).
    let spec = spec(tmp.path(), "1, 2, 3, 4, 5", "500ms");
    let fleet = tmp.path().join("fleet");
    let start = |r: u32| {
        rigel()
            .arg("run")
            .arg(&spec)
            .arg("--fleet")
            .arg(&fleet)
            .args(["--rank", &r.to_string(), "--ranks", "3"])
            // Rank 0 waits out the grace for the killed rank: 5 s past the schedule's end
            // is ample for rank 1 to write its last point (the default 10 s was 10 of this
            // test's 30 s; a run at 3 s failed once at a load of 12, its cause not kept).
            .args(["--finish-grace", "5s"])
            .spawn()
    };
    let mut children: Vec<_> = (0..3).map(start).collect();
    let victim_points = fleet.join("rank-0002/results.jsonl");
    let deadline = Instant::now() + Duration::from_secs(60);
    while lines(&victim_points) < 2 {
        assert!(Instant::now() < deadline, "rank 2 never finished 2 points");
        std::thread::sleep(Duration::from_millis(20));
    }
    children[2].kill().expect("rank 2 killed");
    let _ = children[2].wait();
    let first = children.remove(0).wait_with_output().expect("rank 0 ends");
    let rank1 = children.remove(0).wait_with_output().expect("rank 1 ends");
    assert!(
        rank1.status.success(),
        "{}",
        String::from_utf8_lossy(&rank1.stderr)
    );
    assert!(!first.status.success(), "partial points make rank 0 fail");
    let doc = results(&fleet);
    let partial: Vec<&Value> = doc["points"]
        .as_array()
        .expect("points")
        .iter()
        .filter(|p| p.get("partial").is_some())
        .collect();
    assert!(!partial.is_empty(), "the points rank 2 missed are partial");
    for p in &partial {
        let why = p["partial"].as_str().expect("why");
        assert!(why.starts_with("2 of 3 hosts"), "{why}");
    }
    assert_eq!(lines(&fleet.join("rank-0001/results.jsonl")), 5);

    let resume = [OsStr::new("run"), OsStr::new("--resume"), fleet.as_os_str()];
    let (outs, said) = ranks_by_hand(&resume, 3);
    for o in &outs {
        assert!(o.status.success(), "{said}");
    }
    // The fleet resumed together: ranks 0 and 1 measured rank 2's lacking points again beside it.
    let redone = lines(&fleet.join("rank-0001/results.jsonl")) - 5;
    assert!(redone >= partial.len(), "rank 1 redid {redone} points");
    let doc = results(&fleet);
    assert_eq!(doc["points"].as_array().map(Vec::len), Some(5));
    check_sums(&doc, 3);
    for p in doc["points"].as_array().expect("points") {
        assert!(
            p.get("partial").is_none(),
            "resume completed every point: {p}"
        );
    }
}

#[test]
#[serial_test::parallel]
fn a_rank_with_another_plan_refuses_naming_the_difference() {
    let tmp = tempfile::tempdir().expect("a temp dir");
    let spec = spec(tmp.path(), "1", "300ms");
    let fleet = tmp.path().join("fleet");
    let rank0 = rigel()
        .arg("run")
        .arg(&spec)
        .arg("--fleet")
        .arg(&fleet)
        .args(["--rank", "0", "--ranks", "2"])
        // The other rank refuses at once: rank 0 need not wait the default 10 s for its points
        // before it merges its own as partial (13.5 s in CI).
        .args(["--finish-grace", "1s"])
        .spawn();
    let other = rigel()
        .arg("run")
        .arg(&spec)
        .arg("--fleet")
        .arg(&fleet)
        .args(["--rank", "1", "--ranks", "2", "--set", "run.duration=400ms"])
        .run();
    assert_eq!(other.code, 2, "{}", other.stderr);
    assert!(
        other
            .stderr
            .contains("run.duration_ms: 400 here, 300 on rank 0"),
        "{}",
        other.stderr
    );
    let out = rank0.wait_with_output().expect("rank 0 ends");
    // Partial, so the one point does not count: exit 1, or 3 as `[expect]` has nothing to judge.
    assert!(!out.status.success());
    assert_eq!(results(&fleet)["points"][0]["partial"], "1 of 2 hosts");
}

#[test]
#[serial_test::parallel]
fn without_a_launcher_a_rank_is_asked_for() {
    let tmp = tempfile::tempdir().expect("a temp dir");
    let spec = spec(tmp.path(), "1", "300ms");
    let out = rigel()
        .arg("run")
        .arg(&spec)
        .arg("--fleet")
        .arg(tmp.path().join("fleet"))
        .run();
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--rank I --ranks N"), "{}", out.stderr);
}

#[test]
#[ignore = "needs mpirun (openmpi-bin)"]
#[serial_test::serial]
fn mpirun_open_loop_rates_and_service_latencies_merge_exactly() {
    let mpirun_bin = mpirun_path();
    let tmp = tempfile::tempdir().expect("a temp dir");
    let spec = spec_of(
        tmp.path(),
        &[("rate", "100 iops"), ("arrival", "poisson")],
        "2",
        "1s",
    );
    let fleet = tmp.path().join("fleet");
    mpirun(&mpirun_bin, 2, &spec, &fleet, tmp.path());
    let merged = results(&fleet)["points"][0]["classes"][0].clone();
    let ranks: Vec<Value> = (0..2)
        .map(|r| results(&fleet.join(format!("rank-{r:04}")))["points"][0]["classes"][0].clone())
        .collect();
    let sum_f = |f: &dyn Fn(&Value) -> f64| ranks.iter().map(f).sum::<f64>();
    let sum_u = |f: &dyn Fn(&Value) -> u64| ranks.iter().map(f).sum::<u64>();
    let pace = &merged["pace"];
    let f = |v: &Value| v.as_f64().expect("a number");
    let u = |v: &Value| v.as_u64().expect("a count");
    assert_eq!(f(&pace["requested_iops"]), 200.0, "{pace}");
    assert_eq!(
        f(&pace["achieved_iops"]),
        sum_f(&|c| f(&c["pace"]["achieved_iops"]))
    );
    assert_eq!(
        u(&pace["scheduled"]),
        sum_u(&|c| u(&c["pace"]["scheduled"]))
    );
    assert_eq!(u(&pace["backlog"]), sum_u(&|c| u(&c["pace"]["backlog"])));
    assert_eq!(u(&pace["late"]), sum_u(&|c| u(&c["pace"]["late"])));
    assert_eq!(pace["arrival"], "poisson");
    let ios = u(&merged["total"]["ios"]);
    assert!(ios > 0);
    assert_eq!(ios, sum_u(&|c| u(&c["total"]["ios"])));
    assert_eq!(
        pace["achieved"].as_bool(),
        Some(
            u(&pace["backlog"]) == 0
                && u(&pace["late"]) as f64 <= 0.01 * u(&pace["scheduled"]) as f64
        )
    );
    for dir in ["total", "read"] {
        let service = &merged[dir]["service"];
        let hist = rigel_results::decode_histogram(service["histogram"].as_str().expect("hist"))
            .expect("the merged service histogram decodes");
        assert_eq!(
            hist.len(),
            ios,
            "{dir}: service histogram count = summed I/Os"
        );
        assert_eq!(
            u(&service["latency"]["max_ns"]),
            ranks
                .iter()
                .map(|c| u(&c[dir]["service"]["latency"]["max_ns"]))
                .max()
                .expect("ranks")
        );
        assert!(u(&service["latency"]["p99_ns"]) <= u(&service["latency"]["max_ns"]));
    }
}

#[test]
#[serial_test::parallel]
fn skip_failed_keeps_a_ranks_failed_point_as_a_single_run_does() {
    let tmp = tempfile::tempdir().expect("a temp dir");
    let spec = spec(tmp.path(), "1, 2", "1s");
    let fleet = tmp.path().join("fleet");
    let launch = |args: &[&str], skip_failed: bool| {
        let children: Vec<_> = (0..2)
            .map(|r| {
                let skip: &[&str] = if skip_failed { &["--skip-failed"] } else { &[] };
                rigel()
                    .arg("run")
                    .args(args)
                    .args(skip)
                    .args(["--rank", &r.to_string(), "--ranks", "2"])
                    .spawn()
            })
            .collect();
        children
            .into_iter()
            .map(|c| c.wait_with_output().expect("a rank ends"))
            .collect::<Vec<_>>()
    };
    let fleet_arg = fleet.to_str().expect("utf-8 path");
    let spec_arg = spec.to_str().expect("utf-8 path");
    launch(&[spec_arg, "--fleet", fleet_arg], false);
    let rank1 = fleet.join("rank-0001");
    fail_point(&rank1, 2);
    let attempts = |id: u64| {
        jsonl(&rank1)
            .iter()
            .filter(|p| p["point"]["id"] == id)
            .count()
    };

    let kept = launch(&["--resume", fleet_arg], true);
    let said = String::from_utf8_lossy(&kept[1].stderr);
    assert!(
        said.contains("1 point(s) recorded as failed are kept (--skip-failed)"),
        "{said}"
    );
    assert_eq!(attempts(2), 1, "the failed point is not measured again");
    assert_ne!(
        kept[0].status.code(),
        Some(0),
        "a kept failed point fails the run"
    );
    let doc = results(&fleet);
    let p2 = &doc["points"][1];
    assert_eq!(p2["fleet"]["hosts"], 1, "{p2}");
    assert!(
        p2["partial"]
            .as_str()
            .is_some_and(|w| w.starts_with("1 of 2 hosts")),
        "{p2}"
    );

    let retried = launch(&["--resume", fleet_arg], false);
    let said = String::from_utf8_lossy(&retried[1].stderr);
    assert!(
        said.contains("1 point(s) recorded as failed run again"),
        "{said}"
    );
    assert_eq!(
        attempts(2),
        2,
        "without --skip-failed the point is measured again"
    );
    let doc = results(&fleet);
    assert_eq!(
        doc["points"][1]["fleet"]["hosts"], 2,
        "{}",
        doc["points"][1]
    );
    check_sums(&doc, 2);
}

/// mpirun's path; panics where it is missing (`.ci/run` installs openmpi-bin).
fn mpirun_path() -> PathBuf {
    which("mpirun").expect("mpirun is not installed (apt-get install openmpi-bin)")
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

fn which(tool: &str) -> Result<PathBuf, ()> {
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|p| p.join(tool))
                .find(|p| p.is_file())
        })
        .ok_or(())
}

#[test]
#[serial_test::serial]
fn a_fleets_first_point_starts_after_every_ranks_drain() {
    use super::faults::faultfs::{self, Faults};
    // Each rank its own volume: 10 ms a read, 8 at once, a bucket refilled at 20 a second that
    // holds 1,500 I/Os on rank 0 (out after about 2 s) and 3,000 on rank 1 (about 4 s at the
    // device's 800 IOPS; a host that starves the FUSE server to 300 still empties it within the
    // 11 s limit: with 4,000, one rank at a load of 5 was still on credit at the limit).
    let mounts: Vec<_> = [1500.0, 3000.0]
        .into_iter()
        .map(|credit| {
            faultfs::mounted(
                Faults::new(16 << 20)
                    .service_time(Duration::from_millis(10), Some(8))
                    .async_direct_io()
                    .burst_bucket(credit, 20.0),
            )
        })
        .collect();
    let devs: Vec<_> = mounts
        .iter()
        .map(|m| m.loop_device().expect("a loop device over the FUSE file"))
        .collect();
    let tmp = tempfile::tempdir().expect("a temp dir");
    for (r, d) in devs.iter().enumerate() {
        std::os::unix::fs::symlink(&d.dev, tmp.path().join(format!("vol-{r}")))
            .expect("a link to the rank's device");
    }
    let spec = Spec::named("drained")
        .target(tmp.path().join("vol-${rank}"), &[])
        .set("run.duration", "1s")
        .set("run.warmup", "0s")
        .set("class.small.size", "4KiB")
        .set("matrix.shape", "point")
        .set("matrix.small", "8")
        .set("drain.limit", "11s");
    let spec_path = tmp.path().join("drained.toml");
    std::fs::write(&spec_path, spec.text()).expect("spec written");
    let fleet = tmp.path().join("fleet");
    let (outs, said) = by_hand(&spec_path, &fleet, 2);
    for o in &outs {
        assert!(o.status.success(), "{said}");
    }
    let drains: Vec<Value> = (0..2)
        .map(|r| {
            let rank = fleet.join(format!("rank-{r:04}"));
            results(&rank)["points"][0]["drain"].clone()
        })
        .collect();
    let step_at = |d: &Value| d["step"]["at_s"].as_f64().unwrap_or(f64::NAN);
    for d in &drains {
        // Each saw its bucket run out, and drained on to the limit with the other rank.
        assert_eq!(d["stepped"], true, "{d:#}\n{said}");
        assert!(d["seconds"].as_f64() >= Some(10.5), "{d:#}\n{said}");
    }
    assert!(
        step_at(&drains[0]) + 1.0 < step_at(&drains[1]),
        "rank 0's bucket was to run out first: {drains:#?}"
    );
    // The first point's windows start together, after both drains.
    first_windows_overlap(&fleet, &said);
    drop(devs);
}

/// A fleet spec whose ranks read their volume (`dir/vol-${rank}`, linked by [`link_volumes`])
/// through once in 128 KiB reads, then measure one 1 s point of small reads at load 2.
fn read_through_spec(dir: &Path) -> PathBuf {
    let spec = Spec::named("filled")
        .target(dir.join("vol-${rank}"), &[])
        .set("run.duration", "1s")
        .set("run.warmup", "0s")
        .set("class.small.size", "4KiB")
        .set("matrix.shape", "point")
        .set("matrix.small", "2")
        .set("precondition.read", "true")
        .set("precondition.passes", "1")
        .set("precondition.size", "128KiB");
    let path = dir.join("filled.toml");
    std::fs::write(&path, spec.text()).expect("spec written");
    path
}

/// Links `dir/vol-R` to rank R's volume.
fn link_volumes(dir: &Path, volumes: &[&Path]) {
    for (r, v) in volumes.iter().enumerate() {
        std::os::unix::fs::symlink(v, dir.join(format!("vol-{r}")))
            .expect("a link to the rank's volume");
    }
}

/// The merged fleet's first point: its ranks' windows overlapped by 90% or more.
fn first_windows_overlap(fleet: &Path, said: &str) {
    let overlap = results(fleet)["points"][0]["fleet"]["overlap_pct"]
        .as_f64()
        .expect("overlap_pct");
    assert!(overlap >= 90.0, "windows overlapped {overlap}%: {said}");
}

/// `ranks` ranks of `rigel run SPEC --fleet FLEET` started by hand at once; how each ended, and
/// what they all said.
fn by_hand(spec: &Path, fleet: &Path, ranks: u32) -> (Vec<std::process::Output>, String) {
    let run = [OsStr::new("run"), spec.as_os_str(), OsStr::new("--fleet")];
    ranks_by_hand(&[&run[..], &[fleet.as_os_str()]].concat(), ranks)
}

/// `ranks` ranks of `rigel ARGS --rank R --ranks RANKS` started at once; how each ended, and what
/// they all said.
fn ranks_by_hand(args: &[&OsStr], ranks: u32) -> (Vec<std::process::Output>, String) {
    let started: Vec<_> = (0..ranks)
        .map(|r| {
            rigel()
                .args(args)
                .args(["--rank", &r.to_string(), "--ranks", &ranks.to_string()])
                .spawn()
        })
        .collect();
    let outs: Vec<_> = started
        .into_iter()
        .map(|c| c.wait_with_output().expect("a rank ends"))
        .collect();
    let said = outs
        .iter()
        .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
        .collect();
    (outs, said)
}

#[test]
#[serial_test::serial]
fn a_fleets_first_point_starts_after_every_ranks_precondition() {
    use super::faults::faultfs::{self, Faults};
    // Each rank reads its own volume through once before measuring, in reads of 128 KiB: rank 0's
    // 1 MiB at once (8 reads, a few ms; under a second and a half on a host loaded enough to
    // start it late), rank 1's 12 MiB one read at a time in 40 ms (96 reads, at least 3.8 s).
    // Without the meeting rank 0 measures its first point while rank 1 still reads.
    let mounts = [
        faultfs::mounted(Faults::new(1 << 20).async_direct_io()),
        faultfs::mounted(Faults::new(12 << 20).service_time(Duration::from_millis(40), Some(1))),
    ];
    let devs: Vec<_> = mounts
        .iter()
        .map(|m| m.loop_device().expect("a loop device over the FUSE file"))
        .collect();
    let tmp = tempfile::tempdir().expect("a temp dir");
    link_volumes(tmp.path(), &[&devs[0].dev, &devs[1].dev]);
    let fleet = tmp.path().join("fleet");
    let (outs, said) = by_hand(&read_through_spec(tmp.path()), &fleet, 2);
    for o in &outs {
        assert!(o.status.success(), "{said}");
    }
    // When each rank's fill ended, as it told the others; when its first window started.
    let ended: Vec<u64> = (0..2)
        .map(|r| {
            let path = fleet.join(format!("fleet/preconditioned-{r:04}.json"));
            let text = std::fs::read_to_string(&path).expect("the rank's arrival");
            let v: Value = serde_json::from_str(&text).expect("it parses");
            assert_eq!(v["filled"], true, "{v}");
            v["ended_ns"].as_u64().expect("ended_ns")
        })
        .collect();
    assert!(
        ended[0] + 1_500_000_000 < ended[1],
        "rank 1's fill was to take clearly longer: {ended:?}\n{said}"
    );
    for r in 0..2 {
        let doc = results(&fleet.join(format!("rank-{r:04}")));
        let start = doc["points"][0]["window"]["start_ns"].as_u64();
        assert!(
            start > Some(ended[1]),
            "rank {r}'s first window ({start:?}) started before rank 1's fill ended ({}): {said}",
            ended[1]
        );
    }
    first_windows_overlap(&fleet, &said);
    drop(devs);
}

#[test]
#[serial_test::parallel]
fn a_ranks_failed_precondition_stops_every_rank_naming_it() {
    use super::faults::faultfs::{self, Faults};
    // One rank's volume fails a read in its middle (rank 1's, then rank 0's, which answers the
    // meeting): its read-through fails as a single run's does, and the other, which filled,
    // measures nothing (every point would lack the failed rank).
    for bad in [1, 0] {
        let mounts: Vec<_> = (0..2)
            .map(|r| {
                let faults = Faults::new(8 << 20);
                faultfs::mounted(if r == bad {
                    faults.read_error(4 << 20, libc::EIO)
                } else {
                    faults
                })
            })
            .collect();
        let tmp = tempfile::tempdir().expect("a temp dir");
        link_volumes(tmp.path(), &[mounts[0].file(), mounts[1].file()]);
        let fleet = tmp.path().join("fleet");
        let (outs, _) = by_hand(&read_through_spec(tmp.path()), &fleet, 2);
        for (r, o) in outs.iter().enumerate() {
            let said = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success(), "rank {r} succeeded: {said}");
            let named = format!("rank {bad}'s precondition failed");
            assert!(
                said.contains(&named) && said.contains("no rank measures"),
                "rank {r} does not name rank {bad}'s failed fill: {said}"
            );
            let points = fleet.join(format!("rank-{r:04}/results.jsonl"));
            assert_eq!(lines(&points), 0, "rank {r} measured: {said}");
        }
    }
}
