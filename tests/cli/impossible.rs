//! Folders that claim what cannot be are refused naming the file and the field, before anything is
//! sized by them (issue 33, item 5): a fleet size of 4,000,000,000, a stray `rank-1000000` folder,
//! negative rates, min > max, a point listed twice, a `plan.json` that contradicts `results.jsonl`,
//! a histogram header claiming 4 GiB and a zlib bomb. Every folder here comes from a real run.

use super::builder::rigel;
use super::scenario::{Scenario, Spec};
use base64::Engine;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// ORION's basic shape over two small levels and one large: three 100 ms points.
fn spec(dir: &Path, target: &str) -> PathBuf {
    let spec = Spec::named("imp")
        .target(dir.join(target), &[("size", "16MiB")])
        .set("run.duration", "100ms")
        .set("run.warmup", "0s")
        .set("class.small.size", "4KiB")
        .set("class.large.size", "64KiB")
        .set("matrix.shape", "basic")
        .set("matrix.small", "1, 2")
        .set("matrix.large", "1");
    let path = dir.join("imp.toml");
    std::fs::write(&path, spec.text()).expect("spec written");
    path
}

/// `rigel` with `args` under a 1 GiB address-space limit: a size taken from the folder would
/// abort it (the 4 GiB histogram, the 16 GB rank table) instead of being refused.
fn bounded(args: &[&std::ffi::OsStr]) -> (i32, String) {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576 && exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_rigel"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("sh runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json")
}

fn write_json(path: &Path, value: &Value) {
    std::fs::write(path, serde_json::to_string(value).expect("json")).expect("written");
}

/// Rewrites the first line of `results.jsonl` in `dir` with `edit`.
fn edit_first_line(dir: &Path, edit: impl FnOnce(&mut Value)) {
    let path = dir.join("results.jsonl");
    let text = std::fs::read_to_string(&path).expect("results.jsonl");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut first: Value = serde_json::from_str(&lines[0]).expect("a point");
    edit(&mut first);
    lines[0] = serde_json::to_string(&first).expect("json");
    std::fs::write(&path, lines.join("\n") + "\n").expect("written");
}

/// A change made to a results document or line.
type Edit = Box<dyn Fn(&mut Value)>;

/// A copy of the folder `from` as `to` (a fresh name per case).
fn copy(from: &Path, to: &Path) -> PathBuf {
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .expect("cp runs");
    assert!(status.success());
    to.to_path_buf()
}

/// A V2 histogram of 56 bytes whose header claims a payload of 4 GiB.
fn claims_4_gib() -> String {
    let mut v = Vec::new();
    v.extend(0x1c84_9313u32.to_be_bytes());
    v.extend(u32::MAX.to_be_bytes());
    v.extend(0u32.to_be_bytes());
    v.extend(3u32.to_be_bytes());
    v.extend(1u64.to_be_bytes());
    v.extend(3_600_000_000_000u64.to_be_bytes());
    v.extend(1f64.to_bits().to_be_bytes());
    v.extend([0u8; 16]);
    assert_eq!(v.len(), 56);
    base64::engine::general_purpose::STANDARD.encode(v)
}

/// A compressed V2 histogram inflating to 1 GiB (about 1 MB deflated).
fn zlib_bomb() -> String {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    let zeros = vec![0u8; 1 << 20];
    z.write_all(&0x1c84_9313u32.to_be_bytes()).expect("cookie");
    for _ in 0..1024 {
        z.write_all(&zeros).expect("zeros");
    }
    let deflated = z.finish().expect("deflated");
    let mut raw = Vec::new();
    raw.extend(0x1c84_9314u32.to_be_bytes());
    raw.extend((deflated.len() as u32).to_be_bytes());
    raw.extend(deflated);
    base64::engine::general_purpose::STANDARD.encode(raw)
}

/// A fleet of one rank whose `fleet/ranks.json` says 4,000,000,000, or which holds a stray
/// `rank-1000000` folder, is refused naming the file, in a second and under 1 GiB; so is a rank
/// whose line holds a negative rate, a histogram claiming 4 GiB or a zlib bomb. Before, the first
/// aborted on a 16 GB allocation and the stray folder took 79 s to write a 540 MB results.json.
#[test]
#[serial_test::parallel]
fn a_fleet_folder_that_claims_what_cannot_be_is_refused_naming_the_file() {
    let tmp = Scenario::new();
    let fleet = tmp.path().join("fleet");
    rigel()
        .arg("run")
        .arg(spec(tmp.path(), "t-${rank}.bin"))
        .arg("--fleet")
        .arg(&fleet)
        .args(["--rank", "0", "--ranks", "1", "-q"])
        .run()
        .code(0);
    let merge = |dir: &Path| {
        let start = Instant::now();
        let (code, stderr) = bounded(&["merge".as_ref(), dir.as_os_str()]);
        assert!(start.elapsed() < Duration::from_secs(20), "{stderr}");
        (code, stderr)
    };
    let (code, stderr) = merge(&fleet);
    assert_eq!(code, 0, "the real fleet merges: {stderr}");

    let size = copy(&fleet, &tmp.path().join("size"));
    std::fs::write(size.join("fleet/ranks.json"), "4000000000").expect("ranks");
    let (code, stderr) = merge(&size);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("fleet/ranks.json") && stderr.contains("4000000000"),
        "{stderr}"
    );

    let stray = copy(&fleet, &tmp.path().join("stray"));
    std::fs::create_dir(stray.join("rank-1000000")).expect("stray folder");
    std::fs::remove_file(stray.join("results.json")).expect("old results");
    let (code, stderr) = merge(&stray);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("rank-1000000") && stderr.contains("outside the fleet"),
        "{stderr}"
    );
    assert!(!stray.join("results.json").exists(), "nothing merged");
    // Without ranks.json, the folders must run from rank-0000 without a gap.
    std::fs::remove_file(stray.join("fleet/ranks.json")).expect("ranks.json");
    let (code, stderr) = merge(&stray);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("rank-1000000"), "{stderr}");

    let cases: [(&str, Edit, &str); 3] = [
        (
            "negative",
            Box::new(|p| p["classes"][0]["total"]["iops"] = (-5_000_000.0).into()),
            "total.iops: -5000000",
        ),
        (
            "claims",
            Box::new(|p| p["classes"][0]["total"]["histogram"] = claims_4_gib().into()),
            "claims 4294967295 bytes",
        ),
        (
            "bomb",
            Box::new(|p| p["classes"][0]["total"]["histogram"] = zlib_bomb().into()),
            "compression bomb",
        ),
    ];
    for (name, edit, says) in cases {
        let dir = copy(&fleet, &tmp.path().join(name));
        edit_first_line(&dir.join("rank-0000"), edit);
        let (code, stderr) = merge(&dir);
        assert_eq!(code, 2, "{name}: {stderr}");
        assert!(
            stderr.contains("rank-0000/results.jsonl") && stderr.contains(says),
            "{name}: {stderr}"
        );
    }
}

/// A run folder whose figures cannot be is refused by `report`, `resume` and `compare`, naming the
/// file and the field: no headline reads `Maximum Small IOPS=-5000000`.
#[test]
#[serial_test::parallel]
fn impossible_figures_are_refused_naming_the_file_and_the_field() {
    let tmp = Scenario::new();
    let run = tmp.path().join("run");
    rigel()
        .arg("run")
        .arg(spec(tmp.path(), "t.bin"))
        .arg("--out")
        .arg(&run)
        .arg("-q")
        .run()
        .code(0);
    let again = |dir: &Path| tmp.path().join(format!("{}-again", dir.display()));
    let report = |dir: &Path| {
        rigel()
            .arg("report")
            .arg(dir)
            .arg("--out")
            .arg(again(dir))
            .run()
    };
    report(&run).code(0);

    let doc_cases: [(&str, Edit, &str); 3] = [
        (
            "negative",
            Box::new(|d| d["points"][0]["classes"][0]["total"]["iops"] = (-5_000_000.0).into()),
            "point 1: class small.total.iops: -5000000 cannot be",
        ),
        (
            "inverted",
            Box::new(|d| {
                let l = &mut d["points"][0]["classes"][0]["total"]["latency"];
                l["min_ns"] = (l["max_ns"].as_u64().expect("max") + 1).into();
            }),
            "total.latency.min_ns: the minimum",
        ),
        (
            "twice",
            Box::new(|d| {
                let first = d["points"][0].clone();
                d["points"].as_array_mut().expect("points").push(first);
            }),
            "point 1: listed twice",
        ),
    ];
    for (name, edit, says) in doc_cases {
        let dir = copy(&run, &tmp.path().join(name));
        let mut doc = read_json(&dir.join("results.json"));
        edit(&mut doc);
        write_json(&dir.join("results.json"), &doc);
        let out = report(&dir);
        assert_ne!(out.code, 0, "{name}: {}", out.stderr);
        assert!(
            out.stderr.contains("results.json") && out.stderr.contains(says),
            "{name}: {}",
            out.stderr
        );
        assert!(!again(&dir).exists(), "{name}: no report written");
        let compare = rigel().arg("compare").arg(&run).arg(&dir).run();
        assert_eq!(compare.code, 1, "{name}: {}", compare.stderr);
        assert!(compare.stderr.contains(says), "{name}: {}", compare.stderr);
    }

    // Without results.json the points are read from results.jsonl, against plan.json.
    let line_cases: [(&str, Edit, &str); 3] = [
        (
            "line-negative",
            Box::new(|p| p["classes"][0]["total"]["mbps"] = (-1.5).into()),
            "line 1: point 1: class small.total.mbps: -1.5 cannot be",
        ),
        (
            "line-count",
            Box::new(|p| p["classes"][0]["total"]["ios"] = (-5).into()),
            "line 1: invalid value: integer `-5`",
        ),
        (
            "contradicts",
            Box::new(|p| p["point"]["classes"][0]["load"] = 7.into()),
            "point 1: it ran small=7",
        ),
    ];
    for (name, edit, says) in line_cases {
        let dir = copy(&run, &tmp.path().join(name));
        std::fs::remove_file(dir.join("results.json")).expect("results.json");
        edit_first_line(&dir, edit);
        let out = report(&dir);
        assert_ne!(out.code, 0, "{name}: {}", out.stderr);
        assert!(
            out.stderr.contains("results.jsonl") && out.stderr.contains(says),
            "{name}: {}",
            out.stderr
        );
        let resume = rigel().arg("run").arg("--resume").arg(&dir).run();
        assert_ne!(resume.code, 0, "{name}: {}", resume.stderr);
        assert!(resume.stderr.contains(says), "{name}: {}", resume.stderr);
    }
}
