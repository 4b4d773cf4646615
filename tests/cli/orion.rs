//! `rigel orion`: ORION's command line. Published point counts and estimates from `--plan` (no
//! storage touched), `--to-spec` giving the same plan, every bad option and `.lun` case with its
//! message, the write guard, and real runs on tmpfs files and on loop devices.

use super::builder::{Output, rigel};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A temp dir in tmpfs (O_DIRECT works there) holding `<testname>.lun`.
struct LunDir {
    dir: tempfile::TempDir,
}

impl LunDir {
    fn new() -> LunDir {
        LunDir {
            dir: tempfile::tempdir_in("/dev/shm").expect("a tmpfs temp dir"),
        }
    }

    /// Writes `<testname>.lun` with these lines.
    fn with(self, testname: &str, lines: &[&str]) -> LunDir {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(self.path().join(format!("{testname}.lun")), text).expect("lun written");
        self
    }

    /// A `.lun` of `n` paths that do not exist.
    fn absent(n: usize) -> LunDir {
        let lines: Vec<String> = (0..n).map(|i| format!("/nonexistent/lun{i}")).collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        LunDir::new().with("orion", &refs)
    }

    /// A file of `size` random bytes in the dir; its path.
    fn file(&self, name: &str, size: usize) -> String {
        let path = self.path().join(name);
        let data: Vec<u8> = (0..size).map(|_| fastrand::u8(..)).collect();
        std::fs::write(&path, data).expect("file written");
        path.display().to_string()
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn orion(&self, args: &[&str]) -> Output {
        rigel().cwd(self.path()).arg("orion").args(args).run()
    }

    /// The files whose names start with `prefix_`.
    fn outputs(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.path())
            .expect("dir readable")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("_20"))
            .collect();
        names.sort();
        names
    }
}

#[track_caller]
fn fails_with(out: Output, message: &str) {
    let out = out.code(2);
    assert!(
        out.stderr.contains(message),
        "expected {message:?} in stderr:\n{}",
        out.stderr
    );
}

#[test]
fn plan_gives_orions_published_counts_and_estimates_without_touching_storage() {
    let cases = [
        ("simple", 1, 8, 9),
        ("simple", 8, 38, 39),
        ("normal", 1, 18, 19),
        ("oltp", 3, 23, 24),
    ];
    for (run, disks, points, minutes) in cases {
        let d = LunDir::absent(disks);
        let out = d.orion(&["-run", run, "--plan"]).code(0);
        assert!(
            out.stdout
                .contains(&format!("\nTotal Data Points: {points}\n")),
            "-run {run} with {disks} LUNs:\n{}",
            out.stdout
        );
        assert!(
            out.stdout.ends_with(&format!(
                "Calibration will take approximately {minutes} minutes.\n"
            )),
            "-run {run} with {disks} LUNs:\n{}",
            out.stdout
        );
    }
    // -num_disks sizes the loads whatever the .lun holds.
    let out = LunDir::absent(1)
        .orion(&["-run", "simple", "-num_disks", "8", "--plan"])
        .code(0);
    assert!(
        out.stdout.contains("Total Data Points: 38"),
        "{}",
        out.stdout
    );
}

#[test]
fn help_lists_orions_options_and_rigels() {
    for flag in ["-help", "--help", "-h"] {
        let out = rigel().args(["orion", flag]).run().code(0);
        for option in [
            "-run LEVEL",
            "-num_streamIO",
            "-cache_size",
            "--to-spec",
            "--allow-destructive",
        ] {
            assert!(
                out.stdout.contains(option),
                "{flag}: {option} in\n{}",
                out.stdout
            );
        }
    }
}

#[test]
fn to_spec_plans_exactly_as_the_orion_options() {
    let d = LunDir::absent(2);
    let option_sets: [&[&str]; 4] = [
        &["-run", "normal", "-duration", "5"],
        &["-run", "dss", "-simulate", "raid0", "-cache_size", "1000"],
        &[
            "-run",
            "advanced",
            "-type",
            "seq",
            "-num_streamIO",
            "2",
            "-matrix",
            "max",
            "-num_small",
            "6",
            "-num_large",
            "3",
            "-size_small",
            "4",
        ],
        &[
            "-run",
            "advanced",
            "-matrix",
            "row",
            "-num_large",
            "2",
            "-write",
            "30",
        ],
    ];
    for opts in option_sets {
        let spec = d.orion(&[opts, &["--to-spec"]].concat()).code(0).stdout;
        std::fs::write(d.path().join("x.toml"), &spec).expect("spec written");
        let planned = rigel()
            .cwd(d.path())
            .args(["plan", "x.toml"])
            .run()
            .code(0)
            .stdout;
        let orion = d.orion(&[opts, &["--plan"]].concat()).code(0).stdout;
        assert!(
            orion.starts_with(&planned),
            "{opts:?}\n--- rigel plan of --to-spec\n{planned}\n--- rigel orion --plan\n{orion}"
        );
    }
}

#[test]
fn to_spec_consents_to_writes_only_with_allow_destructive() {
    let d = LunDir::absent(1);
    let plain = d
        .orion(&["-run", "simple", "-write", "20", "--to-spec"])
        .code(0);
    assert!(
        plain.stdout.contains(r#"mix = "20% write""#),
        "{}",
        plain.stdout
    );
    assert!(!plain.stdout.contains("destructive = true"));
    let consent = d
        .orion(&[
            "-run",
            "simple",
            "-write",
            "20",
            "--allow-destructive",
            "--to-spec",
        ])
        .code(0);
    assert!(
        consent.stdout.contains("destructive = true"),
        "{}",
        consent.stdout
    );
}

#[test]
fn bad_options_and_combinations_say_what_orion_expects() {
    let d = LunDir::absent(1);
    let cases: [(&[&str], &str); 22] = [
        (&[], "ORION needs -run"),
        (
            &["-run"],
            "-run needs a value: simple, normal, advanced, dss or oltp",
        ),
        (
            &["-run", "fast"],
            "-run fast: expected one of simple, normal, advanced, dss, or oltp",
        ),
        (
            &["-run", "simple", "-sise_small", "4"],
            "unknown option `-sise_small`; did you mean `-size_small`?",
        ),
        (&["--run", "simple"], "ORION's options take one dash: -run"),
        (
            &["-run", "simple", "-plan"],
            "rigel's own options take two dashes: --plan",
        ),
        (&["-run", "simple", "--plna"], "did you mean `--plan`?"),
        (&["simple"], "`simple` is not an option"),
        (&["-run", "simple", "-run", "normal"], "-run is given twice"),
        (
            &["-run", "simple", "-duration", "0"],
            "-duration 0: expected a whole number from 1 to 86400 (seconds)",
        ),
        (
            &["-run", "simple", "-write", "101"],
            "-write 101: expected a whole number from 0 to 100 (percent)",
        ),
        (
            &["-run", "simple", "-size_small", "4"],
            "-size_small is only used with -run advanced",
        ),
        (
            &["-run", "oltp", "-matrix", "point"],
            "-matrix is only used with -run advanced",
        ),
        (
            &["-run", "advanced", "-num_streamIO", "2"],
            "-num_streamIO sets the I/Os per sequential stream: it goes with -type seq",
        ),
        (
            &["-run", "simple", "-stripe", "64"],
            "-stripe sets the raid0 stripe depth: it goes with -simulate raid0",
        ),
        (
            &["-run", "advanced", "-num_small", "3"],
            "-num_small is only used with -matrix point, col or max",
        ),
        (
            &["-run", "advanced", "-matrix", "col", "-num_large", "3"],
            "-num_large is only used with -matrix point, row or max",
        ),
        (
            &["-run", "advanced", "-matrix", "point", "-num_small", "2"],
            "-matrix point needs -num_large",
        ),
        (
            &["-run", "advanced", "-matrix", "row"],
            "-matrix row needs -num_large",
        ),
        (
            &[
                "-run",
                "advanced",
                "-matrix",
                "max",
                "-num_small",
                "0",
                "-num_large",
                "0",
            ],
            "has no data point with any load",
        ),
        (
            &["-run", "simple", "-simulate", "raid0"],
            "-simulate raid0 stripes over several LUNs, and orion.lun lists 1",
        ),
        (
            &["-run", "simple", "--force"],
            "--force needs --allow-destructive",
        ),
    ];
    for (args, message) in cases {
        fails_with(d.orion(&[args, &["--plan"]].concat()), message);
    }
    let two = LunDir::absent(2);
    fails_with(
        two.orion(&[
            "-run",
            "simple",
            "-simulate",
            "raid0",
            "-stripe",
            "64",
            "--plan",
        ]),
        "-stripe 64 (KiB) is not a multiple of -size_large 1024",
    );
}

#[test]
fn bad_lun_files_name_the_file_and_line() {
    let none = LunDir::new();
    fails_with(
        none.orion(&["-run", "simple", "--plan"]),
        "orion.lun: no such file; ORION reads the LUNs to test from <testname>.lun",
    );
    fails_with(
        none.orion(&["-run", "simple", "-testname", "x.lun", "--plan"]),
        "x.lun.lun: no such file; -testname takes the name without `.lun` (ORION would look for x.lun.lun): pass -testname x",
    );
    let empty = LunDir::new().with("orion", &["", "  "]);
    fails_with(
        empty.orion(&["-run", "simple", "--plan"]),
        "orion.lun lists no LUNs",
    );
    let repeated = LunDir::new().with("orion", &["/dev/a", "/dev/a"]);
    fails_with(
        repeated.orion(&["-run", "simple", "--plan"]),
        "orion.lun line 2: /dev/a is already listed on line 1",
    );

    // Opening is the target layer's job; its errors come back with the .lun line.
    let d = LunDir::new();
    let good = d.file("good.img", 4 << 20);
    let tiny = d.file("tiny.img", 4096);
    let d = d.with("t", &[&good, "", &tiny]);
    let out = d.orion(&["-run", "simple", "-testname", "t", "-duration", "1"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "t.lun line 3: {tiny}: too small for the I/O size: it holds 4096 bytes"
        )),
        "{}",
        out.stderr
    );
    let missing = d.path().join("missing.img").display().to_string();
    let d = d.with("m", &[&good, &missing]);
    let out = d.orion(&["-run", "simple", "-testname", "m", "-duration", "1"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr
            .contains(&format!("m.lun line 2: {missing}: no such device or file")),
        "{}",
        out.stderr
    );
    let folder = d.path().display().to_string();
    let d = d.with("dir", &[&folder]);
    let out = d.orion(&["-run", "simple", "-testname", "dir", "-duration", "1"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr
            .contains(&format!("dir.lun line 1: {folder}: is a directory")),
        "{}",
        out.stderr
    );
    assert!(
        d.outputs().is_empty(),
        "no files without a run: {:?}",
        d.outputs()
    );
}

#[test]
fn write_needs_allow_destructive_and_then_writes() {
    let d = LunDir::new();
    let lun = d.file("data.img", 8 << 20);
    let d = d.with("w", &[&lun]);
    let before = std::fs::read(&lun).expect("readable");
    let args = [
        "-run",
        "advanced",
        "-testname",
        "w",
        "-write",
        "100",
        "-matrix",
        "point",
        "-num_small",
        "2",
        "-num_large",
        "0",
        "-duration",
        "1",
        "-cache_size",
        "0",
    ];
    let refused = d.orion(&args).code(2);
    assert!(
        refused
            .stderr
            .contains("WARNING: -write 100 writes to every LUN in w.lun")
    );
    assert!(
        refused.stderr.contains(&format!(
            "-write 100 would destroy the data on every LUN in w.lun ({lun}), and rigel does not write without consent: add --allow-destructive"
        )),
        "{}",
        refused.stderr
    );
    assert_eq!(
        std::fs::read(&lun).expect("readable"),
        before,
        "refused: untouched"
    );
    d.orion(&[&args[..], &["--allow-destructive"]].concat())
        .code(0);
    assert_ne!(std::fs::read(&lun).expect("readable"), before, "written");
    let summary = d
        .outputs()
        .into_iter()
        .find(|n| n.ends_with("_summary.txt"))
        .expect("a summary");
    let text = std::fs::read_to_string(d.path().join(summary)).expect("summary");
    assert!(text.contains("\nWrite: 100%\n"), "{text}");
}

/// A loop device over a new tmpfs file, detached on drop.
struct LoopDevice {
    dev: String,
    _backing: tempfile::NamedTempFile,
}

impl LoopDevice {
    fn new(size: u64) -> Option<LoopDevice> {
        if !std::fs::metadata("/proc/self")
            .is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        {
            eprintln!("skipped: loop devices need root");
            return None;
        }
        let backing = tempfile::NamedTempFile::new_in("/dev/shm").ok()?;
        backing.as_file().set_len(size).ok()?;
        let out = Command::new("losetup")
            .args(["-f", "--show", "--direct-io=on"])
            .arg(backing.path())
            .output();
        match out {
            Ok(o) if o.status.success() => Some(LoopDevice {
                dev: String::from_utf8_lossy(&o.stdout).trim().to_owned(),
                _backing: backing,
            }),
            other => {
                eprintln!("skipped: losetup failed: {other:?}");
                None
            }
        }
    }

    /// Reads completed, from /sys/block/loopN/stat.
    fn reads(&self) -> u64 {
        let name = Path::new(&self.dev)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stat = std::fs::read_to_string(PathBuf::from("/sys/block").join(name).join("stat"))
            .expect("the loop device's stat");
        stat.split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .expect("a read counter")
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

/// Sparse, so that a sequential stream cannot cross the first device within a second.
const LOOP_SIZE: u64 = 8 << 30;

#[test]
fn a_raid0_run_on_two_loop_devices_writes_orions_files_and_uses_both() {
    let (Some(a), Some(b)) = (LoopDevice::new(LOOP_SIZE), LoopDevice::new(LOOP_SIZE)) else {
        return;
    };
    let d = LunDir::new().with("lp", &[&a.dev, &b.dev]);
    let before = (a.reads(), b.reads());
    let out = d
        .orion(&[
            "-run",
            "advanced",
            "-testname",
            "lp",
            "-num_disks",
            "1",
            "-size_large",
            "64",
            "-simulate",
            "raid0",
            "-stripe",
            "64",
            "-duration",
            "1",
            "-cache_size",
            "0",
        ])
        .code(0);
    let (ra, rb) = (a.reads() - before.0, b.reads() - before.1);
    let total = ra + rb;
    assert!(total > 1000, "reads: {ra} + {rb}");
    for r in [ra, rb] {
        assert!(
            r * 10 > total * 3,
            "each device serves its share: {ra} vs {rb}"
        );
    }

    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines[0].starts_with("ORION: ORacle IO Numbers -- Version "),
        "{}",
        out.stdout
    );
    assert!(lines[0].contains("rigel"));
    let prefix = lines[1];
    assert!(
        prefix.starts_with("lp_") && prefix.len() == "lp_yyyymmdd_hhmm".len(),
        "{prefix}"
    );
    assert_eq!(lines[2], "Calibration will take approximately 0 minutes.");
    let kinds = [
        "hist.txt",
        "iops.csv",
        "lat.csv",
        "mbps.csv",
        "summary.txt",
        "trace.txt",
    ];
    let mut want: Vec<String> = kinds.iter().map(|k| format!("{prefix}_{k}")).collect();
    want.insert(0, format!("{prefix}.rigel"));
    assert_eq!(d.outputs(), want);
    assert!(
        d.path()
            .join(format!("{prefix}.rigel/results.json"))
            .is_file()
    );

    let read = |k: &str| std::fs::read_to_string(d.path().join(format!("{prefix}_{k}"))).expect(k);
    let summary = read("summary.txt");
    for line in [
        "Commandline:\n-run advanced -testname lp -num_disks 1 -size_large 64 -simulate raid0 -stripe 64 -duration 1 -cache_size 0\n",
        "\nSmall IO size: 8 KB\nLarge IO size: 64 KB\n",
        "\nSimulated Array Type: RAID 0\nStripe Depth: 64 KB\n",
        "\nSmall Columns:,      0\nLarge Columns:,      0,      1,      2\nTotal Data Points: 8\n",
        &format!("\nName: {}\tSize: {LOOP_SIZE}\n", a.dev),
        "\n2 FILEs found.\n",
    ] {
        assert!(summary.contains(line), "{line:?} in\n{summary}");
    }
    // The result lines end the console as they end the summary.
    let results: Vec<&str> = summary
        .lines()
        .filter(|l| {
            l.starts_with("Maximum ") || l.starts_with("Minimum ") || l.starts_with("Small Read")
        })
        .collect();
    assert_eq!(results.len(), 4, "{summary}");
    assert!(
        out.stdout.ends_with(&format!("\n{}\n", results.join("\n"))),
        "{}",
        out.stdout
    );
    assert!(
        read("iops.csv")
            .starts_with("Large/Small,      1,      2,      3,      4,      5\n          0,")
    );
    let mbps = read("mbps.csv");
    assert!(mbps.starts_with("Large/Small,      0,      1,"), "{mbps}");
    assert!(
        mbps.contains("\n          1,") && mbps.contains("\n          2,"),
        "{mbps}"
    );

    // One sequential stream from the volume's start: concat keeps it on the first device, a 64 KiB
    // raid0 stripe alternates it between both.
    let stream = |layout: &[&str]| {
        let before = (a.reads(), b.reads());
        let args = [
            "-run",
            "advanced",
            "-testname",
            "lp",
            "-size_large",
            "64",
            "-type",
            "seq",
            "-matrix",
            "point",
            "-num_small",
            "0",
            "-num_large",
            "1",
            "-duration",
            "1",
            "-cache_size",
            "0",
        ];
        d.orion(&[&args[..], layout].concat()).code(0);
        (a.reads() - before.0, b.reads() - before.1)
    };
    let (ca, cb) = stream(&[]);
    assert!(
        ca > 1000 && cb * 20 < ca,
        "concat: {ca} reads on the first, {cb} on the second"
    );
    let (ra, rb) = stream(&["-simulate", "raid0", "-stripe", "64"]);
    eprintln!("one stream: concat {ca} + {cb} reads, raid0 {ra} + {rb}");
    let total = ra + rb;
    assert!(total > 1000, "raid0: {ra} + {rb}");
    for r in [ra, rb] {
        assert!(
            r * 10 > total * 4,
            "raid0 alternates the stream: {ra} vs {rb}"
        );
    }
}
