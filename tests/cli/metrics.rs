//! `--metrics HOST:PORT` and `--metrics-push FILE`: scraped during a real run, every exposition
//! reads under the strict OpenMetrics reader (and, in the ignored test, under PyPI
//! `prometheus_client`'s parser), its per-second IOPS are `results.json`'s intervals, the endpoint
//! answers only on the address asked, and a port in use stops the run before any I/O (exit 2).

use super::builder::{Rigel, rigel};
use super::openmetrics::{Sample, parse};
use super::scenario::{Scenario, Spec};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

/// A port free on 127.0.0.1 a moment ago.
pub(super) fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("an ephemeral port");
    l.local_addr().expect("its address").port()
}

/// Two 3 s points of 4 KiB random reads of a file on tmpfs, paced at 500 a second: what is
/// checked is that the endpoint serves the run's own figures, which a rate the class sets keeps as
/// true as one the host's CPU decides, without taking a core from the tests beside it (sleepy in
/// .config/nextest.toml).
fn spec(s: &Scenario) -> std::path::PathBuf {
    let spec = Spec::named("live")
        .target(s.join("data.img"), &[("size", "32MiB")])
        .set("run.duration", "3s")
        .set("run.warmup", "0s")
        .set("class.small.size", "4KiB")
        .set("class.small.access", "random")
        .set("class.small.mix", "read")
        .set("class.small.rate", "500 iops")
        .set("matrix.shape", "row")
        .set("matrix.small", "1, 2");
    s.spec("live.toml", &spec)
}

/// `GET /metrics` on `addr`: (status line, content type, body), or `None` when nothing answers.
pub(super) fn scrape(addr: &str) -> Option<(String, String, String)> {
    let mut c = TcpStream::connect(addr).ok()?;
    c.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    c.write_all(b"GET /metrics HTTP/1.1\r\nHost: rigel\r\n\r\n")
        .ok()?;
    let mut all = String::new();
    c.read_to_string(&mut all).ok()?;
    let (head, body) = all.split_once("\r\n\r\n")?;
    let status = head.lines().next()?.to_owned();
    let kind = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Type: "))?
        .to_owned();
    Some((status, kind, body.to_owned()))
}

fn value(samples: &[Sample], name: &str) -> Option<f64> {
    samples.iter().find(|s| s.name == name).map(|s| s.value)
}

/// Scrapes `addr` every 300 ms while `child` runs; the bodies, each checked to be served right.
fn scrape_while(child: &mut std::process::Child, addr: &str) -> Vec<String> {
    let mut bodies = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().expect("the run is waited on").is_none() && Instant::now() < deadline {
        if let Some((status, kind, body)) = scrape(addr) {
            assert_eq!(status, "HTTP/1.1 200 OK");
            assert_eq!(
                kind,
                "application/openmetrics-text; version=1.0.0; charset=utf-8"
            );
            bodies.push(body);
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    bodies
}

/// Per scraped second: (point id, second index, class small's IOPS).
pub(super) fn seconds_of(samples: &[Sample]) -> Option<(u32, usize, f64)> {
    let point = value(samples, "rigel_second_point_id")? as u32;
    let index = value(samples, "rigel_second_index")? as usize;
    let iops = samples
        .iter()
        .find(|s| {
            s.name == "rigel_iops" && s.labels.get("class").map(String::as_str) == Some("small")
        })?
        .value;
    Some((point, index, iops))
}

/// Asserts each scraped second's IOPS is `results.json`'s interval within 1%; returns how many
/// seconds were compared.
pub(super) fn agree_with_results(seen: &[(u32, usize, f64)], folder: &Path) -> usize {
    let doc = super::builder::results(folder);
    let points = doc["points"].as_array().expect("points");
    for &(point, index, iops) in seen {
        let p = points
            .iter()
            .find(|p| p["point"]["id"] == point)
            .unwrap_or_else(|| panic!("point {point} in results.json"));
        let iv = &p["classes"][0]["intervals"][index];
        let want = iv["iops"].as_f64().expect("the interval's iops");
        assert!(
            (iops - want).abs() <= 0.01 * want,
            "point {point} second {index}: scraped {iops} IOPS, results.json {want}"
        );
    }
    seen.len()
}

/// Waits for the spawned run and asserts it exited 0 (its stderr shown when it did not).
#[track_caller]
fn succeeded(child: std::process::Child) {
    let out = child.wait_with_output().expect("rigel ran");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `rigel run SPEC --out FOLDER --metrics ADDR`, to start or run.
fn serving(spec: &Path, folder: &Path, addr: &str) -> Rigel {
    rigel()
        .arg("run")
        .arg(spec)
        .arg("--out")
        .arg(folder)
        .args(["--metrics", addr])
}

#[test]
#[serial_test::serial]
fn a_scrape_during_a_run_is_strict_openmetrics_and_its_seconds_are_the_results_intervals() {
    let s = Scenario::new();
    let spec = spec(&s);
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let push = s.join("push.om");
    let folder = s.join("out");
    let mut child = serving(&spec, &folder, &addr)
        .arg("--metrics-push")
        .arg(&push)
        .spawn();
    let mut other_address_answered = false;
    let bodies = {
        // Bound only where asked: the same port on another loopback address refuses.
        std::thread::sleep(Duration::from_millis(500));
        if TcpStream::connect(format!("127.0.0.2:{port}")).is_ok() {
            other_address_answered = true;
        }
        scrape_while(&mut child, &addr)
    };
    succeeded(child);
    assert!(
        !other_address_answered,
        "the endpoint answered on 127.0.0.2"
    );
    assert!(scrape(&addr).is_none(), "the endpoint outlived the run");
    assert!(bodies.len() >= 5, "only {} scrapes answered", bodies.len());
    let mut seen = Vec::new();
    for body in &bodies {
        let samples = parse(body).unwrap_or_else(|e| panic!("{e}\n{body}"));
        let info = samples
            .iter()
            .find(|s| s.name == "rigel_run_info")
            .expect("rigel_run_info");
        assert_eq!(info.labels["spec"], "live");
        assert_eq!(info.labels["sha256"].len(), 64);
        if let Some(second) = seconds_of(&samples) {
            seen.push(second);
            for q in ["0.5", "0.99", "0.999"] {
                assert!(samples.iter().any(|s| s.name == "rigel_latency_seconds"
                    && s.labels.get("quantile").map(String::as_str) == Some(q)
                    && s.value > 0.0));
            }
        }
    }
    seen.dedup();
    assert!(
        agree_with_results(&seen, &folder) >= 2,
        "too few seconds scraped: {seen:?}"
    );
    // A point's last second is served too (handed over as its workers end).
    assert!(
        seen.iter().any(|&(p, i, _)| (p, i) == (1, 2)),
        "point 1's last second never served: {seen:?}"
    );
    // The push file: one exposition a second, each strict on its own.
    let pushed = std::fs::read_to_string(&push).expect("the push file");
    let blocks: Vec<&str> = pushed.split_inclusive("# EOF\n").collect();
    assert!(blocks.len() >= 4, "{} pushes", blocks.len());
    for b in blocks {
        parse(b).unwrap_or_else(|e| panic!("pushed: {e}\n{b}"));
    }
    let doc = super::builder::results(&folder);
    let sha = doc["provenance"]["spec"]["sha256"]
        .as_str()
        .expect("sha256");
    assert!(pushed.contains(&format!("sha256=\"{sha}\"")), "{pushed}");
}

#[test]
#[serial_test::parallel]
fn a_port_in_use_is_an_error_before_any_io() {
    let s = Scenario::new();
    let spec = spec(&s);
    let held = TcpListener::bind("127.0.0.1:0").expect("a port to hold");
    let addr = held.local_addr().expect("its address").to_string();
    let folder = s.join("out");
    let out = serving(&spec, &folder, &addr).run().code(2);
    out.stderr_has(&format!("--metrics {addr}"))
        .stderr_has("another process holds the port");
    // Nothing was made: neither the test file nor the run folder.
    assert!(!s.join("data.img").exists(), "the target was created");
    assert!(!folder.exists(), "the run folder was made");
    // rigel fio reads the same option.
    let out = rigel()
        .args([
            "fio",
            "--name=r",
            "--rw=randread",
            "--bs=4k",
            "--size=16m",
            "--runtime=2",
        ])
        .arg(format!("--filename={}", s.join("fio.img").display()))
        .args(["--metrics", &addr])
        .run()
        .code(2);
    out.stderr_has("another process holds the port");
    assert!(!s.join("fio.img").exists(), "rigel fio created its file");
    // And rigel orion, before ORION's files or any I/O on its LUN.
    let lun = s.file("lun.img", 1 << 20);
    std::fs::write(s.join("m.lun"), format!("{}\n", lun.display())).expect("lun file");
    rigel()
        .cwd(s.path())
        .args([
            "orion",
            "-run",
            "simple",
            "-testname",
            "m",
            "-duration",
            "1",
        ])
        .args(["--metrics", &addr])
        .run()
        .code(2)
        .stderr_has("another process holds the port");
    let made: Vec<_> = std::fs::read_dir(s.path())
        .expect("the folder")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("m_"))
        .collect();
    assert!(made.is_empty(), "ORION's files were written: {made:?}");
}

#[test]
#[serial_test::parallel]
fn an_address_that_is_not_one_is_a_usage_error() {
    let s = Scenario::new();
    let spec = spec(&s);
    let out = rigel()
        .arg("run")
        .arg(&spec)
        .args(["--metrics", "nowhere"])
        .run()
        .code(2);
    out.stderr_has("give HOST:PORT");
}

/// PyPI `prometheus_client`'s OpenMetrics parser, over every scrape of a real run: each parses,
/// and the per-second IOPS it reads are `results.json`'s intervals within 1%.
#[test]
#[ignore = "needs prometheus_client"]
#[serial_test::serial]
fn prometheus_client_parses_every_scrape_and_reads_the_results_intervals() {
    let s = Scenario::new();
    let spec = spec(&s);
    let addr = format!("127.0.0.1:{}", free_port());
    let folder = s.join("out");
    let mut child = serving(&spec, &folder, &addr).spawn();
    let bodies = scrape_while(&mut child, &addr);
    succeeded(child);
    let dir = s.join("scrapes");
    std::fs::create_dir(&dir).expect("scrapes folder");
    for (i, b) in bodies.iter().enumerate() {
        std::fs::write(dir.join(format!("{i:04}.om")), b).expect("scrape written");
    }
    let script = r#"
import json, pathlib, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
out = []
for f in sorted(pathlib.Path(sys.argv[1]).glob("*.om")):
    fams = {m.name: m for m in text_string_to_metric_families(f.read_text())}
    if "rigel_iops" not in fams:
        continue
    one = lambda n: fams[n].samples[0].value
    iops = [s.value for s in fams["rigel_iops"].samples if s.labels["class"] == "small"][0]
    out.append([int(one("rigel_second_point_id")), int(one("rigel_second_index")), iops])
print(json.dumps(out))
"#;
    let py = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&dir)
        .output()
        .expect("python3 runs");
    assert!(
        py.status.success(),
        "prometheus_client: {}",
        String::from_utf8_lossy(&py.stderr)
    );
    let seen: Vec<(u32, usize, f64)> =
        serde_json::from_slice(&py.stdout).expect("the script's JSON");
    let mut seen = seen;
    seen.dedup();
    assert!(agree_with_results(&seen, &folder) >= 2, "{seen:?}");
}
