//! A fleet's ranks each serve their own metrics: rank i of `rigel run --fleet … --metrics
//! HOST:PORT` listens on PORT + i and pushes to FILE.rank-NNNN. Two ranks launched by hand, whose
//! targets differ by far in speed (a tmpfs file against a FUSE file of 1 ms per read), are scraped
//! on both ports while they run: each port's seconds are its own rank's results.json intervals,
//! and not the other's.

use super::builder::{results, rigel};
use super::faults::faultfs::{self, Faults};
use super::metrics::{agree_with_results, free_port, scrape, seconds_of};
use super::openmetrics::parse;
use super::scenario::Spec;
use std::net::TcpListener;
use std::path::Path;
use std::time::{Duration, Instant};

/// A port free on 127.0.0.1, with the one after it free too (rank 1 listens there).
fn two_free_ports() -> u16 {
    loop {
        let port = free_port();
        if port < u16::MAX && TcpListener::bind(("127.0.0.1", port + 1)).is_ok() {
            return port;
        }
    }
}

/// Per-second figures of `bodies` (each a whole exposition, parsed strictly), deduplicated.
fn seconds(bodies: &[String]) -> Vec<(u32, usize, f64)> {
    let mut seen: Vec<_> = bodies
        .iter()
        .filter_map(|b| seconds_of(&parse(b).unwrap_or_else(|e| panic!("{e}\n{b}"))))
        .collect();
    seen.dedup();
    seen
}

/// Does `folder`'s results.json have `(point, index)`'s IOPS within 1% of `iops`?
fn has_second(folder: &Path, (point, index, iops): (u32, usize, f64)) -> bool {
    let doc = results(folder);
    let want = doc["points"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["point"]["id"] == point))
        .and_then(|p| p["classes"][0]["intervals"][index]["iops"].as_f64());
    want.is_some_and(|w| (iops - w).abs() <= 0.01 * w)
}

#[test]
#[serial_test::serial]
fn each_fleet_rank_serves_its_own_figures_on_port_plus_rank() {
    faultfs::require();
    let tmp = tempfile::tempdir_in("/dev/shm").expect("a tmpfs temp dir");
    let dir = tmp.path();
    // Rank 0 reads a file on tmpfs; rank 1 reads the same name in a folder that is the FUSE
    // mount (one read at a time, 1 ms each): the ranks' figures differ by far more than 1%.
    let slow =
        faultfs::mounted(Faults::new(16 << 20).service_time(Duration::from_millis(1), Some(1)));
    std::fs::create_dir(dir.join("r0")).expect("rank 0's folder");
    std::fs::write(dir.join("r0").join(faultfs::FILE_NAME), vec![0u8; 16 << 20])
        .expect("rank 0's target");
    let mount = slow.file().parent().expect("the mount");
    std::os::unix::fs::symlink(mount, dir.join("r1")).expect("rank 1's folder");
    let spec = Spec::named("ranks")
        .target(
            dir.join("r${rank}").join(faultfs::FILE_NAME),
            &[("size", "16MiB")],
        )
        .set("run.duration", "3s")
        .set("run.warmup", "0s")
        .set("class.small.size", "4KiB")
        .set("class.small.access", "random")
        .set("class.small.mix", "read")
        .set("matrix.small", "1");
    let spec_path = dir.join("ranks.toml");
    std::fs::write(&spec_path, spec.text()).expect("spec written");
    let port = two_free_ports();
    let fleet = dir.join("fleet");
    let push = dir.join("push.om");
    let mut ranks: Vec<_> = (0..2)
        .map(|r| {
            rigel()
                .arg("run")
                .arg(&spec_path)
                .arg("--fleet")
                .arg(&fleet)
                .args(["--rank", &r.to_string(), "--ranks", "2"])
                .args(["--metrics", &format!("127.0.0.1:{port}"), "--metrics-push"])
                .arg(&push)
                .spawn()
        })
        .collect();
    // Both ports scraped every 200 ms until both ranks end.
    let mut bodies = [Vec::new(), Vec::new()];
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline
        && ranks
            .iter_mut()
            .any(|c| c.try_wait().expect("a rank is waited on").is_none())
    {
        for (r, seen) in bodies.iter_mut().enumerate() {
            if let Some((status, _, body)) = scrape(&format!("127.0.0.1:{}", port + r as u16)) {
                assert_eq!(status, "HTTP/1.1 200 OK");
                seen.push(body);
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    for (r, c) in ranks.into_iter().enumerate() {
        let out = c.wait_with_output().expect("a rank ends");
        assert!(
            out.status.success(),
            "rank {r}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for (r, scrapes) in bodies.iter().enumerate() {
        let own = fleet.join(format!("rank-{r:04}"));
        let other = fleet.join(format!("rank-{:04}", 1 - r));
        let scraped = seconds(scrapes);
        eprintln!("rank {r} on port {}: {scraped:?}", port + r as u16);
        assert!(
            agree_with_results(&scraped, &own) >= 1,
            "rank {r}: no second scraped on port {}",
            port + r as u16
        );
        for &second in &scraped {
            assert!(
                !has_second(&other, second),
                "rank {r}'s port served {second:?}, rank {}'s figure",
                1 - r
            );
        }
        // Its push file: one exposition a second, its seconds its own rank's.
        let pushed = std::fs::read_to_string(format!("{}.rank-{r:04}", push.display()))
            .unwrap_or_else(|e| panic!("rank {r}'s push file: {e}"));
        let blocks: Vec<String> = pushed
            .split_inclusive("# EOF\n")
            .map(String::from)
            .collect();
        let pushed_seconds = seconds(&blocks);
        assert!(
            agree_with_results(&pushed_seconds, &own) >= 2,
            "rank {r} pushed {pushed_seconds:?}"
        );
        assert!(pushed_seconds.iter().all(|&s| !has_second(&other, s)));
    }
    assert!(!push.exists(), "a rank pushed to the bare FILE");
}
