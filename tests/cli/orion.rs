//! `rigel orion`: ORION's command line. Published point counts and estimates from `--plan` (no
//! storage touched), `--to-spec` giving the same plan, and every bad option and `.lun` case with its
//! message. Real runs are in `orion_run.rs`.

use super::builder::{Output, rigel};
use super::scenario::Scenario;
use std::path::Path;

/// A scenario's temp dir in tmpfs (O_DIRECT works there) holding `<testname>.lun`.
pub struct LunDir {
    dir: Scenario,
}

impl LunDir {
    pub fn new() -> LunDir {
        LunDir {
            dir: Scenario::new(),
        }
    }

    /// Writes `<testname>.lun` with these lines.
    pub fn with(self, testname: &str, lines: &[&str]) -> LunDir {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(self.path().join(format!("{testname}.lun")), text).expect("lun written");
        self
    }

    /// A `.lun` of `n` paths that do not exist.
    pub fn absent(n: usize) -> LunDir {
        let lines: Vec<String> = (0..n).map(|i| format!("/nonexistent/lun{i}")).collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        LunDir::new().with("orion", &refs)
    }

    /// A file of `size` random bytes in the dir; its path.
    pub fn file(&self, name: &str, size: usize) -> String {
        let path = self.path().join(name);
        let data: Vec<u8> = (0..size).map(|_| fastrand::u8(..)).collect();
        std::fs::write(&path, data).expect("file written");
        path.display().to_string()
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn orion(&self, args: &[&str]) -> Output {
        rigel().cwd(self.path()).arg("orion").args(args).run()
    }

    /// The files whose names start with `prefix_`.
    pub fn outputs(&self) -> Vec<String> {
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

/// ORION's arguments for one data point under `testname`: `small` outstanding small reads and no
/// large, 1 s without warm-up.
pub fn one_point<'a>(testname: &'a str, small: &'a str) -> [&'a str; 14] {
    [
        "-run",
        "advanced",
        "-testname",
        testname,
        "-matrix",
        "point",
        "-num_small",
        small,
        "-num_large",
        "0",
        "-duration",
        "1",
        "-cache_size",
        "0",
    ]
}

#[track_caller]
pub fn fails_with(out: Output, message: &str) {
    let out = out.code(2);
    assert!(
        out.stderr.contains(message),
        "expected {message:?} in stderr:\n{}",
        out.stderr
    );
}

#[test]
#[serial_test::parallel]
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
    out.stdout_has("Total Data Points: 38");
}

#[test]
#[serial_test::parallel]
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
#[serial_test::parallel]
fn rigels_quiet_and_color_are_accepted_among_orions_options() {
    // As the man page's synopsis shows them, and anywhere an ORION user appends them.
    for args in [
        &["-q", "-run", "simple", "--plan"][..],
        &["-run", "simple", "--quiet", "--plan"],
        &["--color", "never", "-run", "simple", "--plan"],
        &["-run", "simple", "--color=always", "--plan"],
    ] {
        LunDir::absent(1)
            .orion(args)
            .code(0)
            .stdout_has("Total Data Points: 8");
    }
    let d = LunDir::absent(1);
    rigel()
        .cwd(d.path())
        .args(["-q", "orion", "-run", "simple", "--plan"])
        .run()
        .code(0);
    fails_with(
        LunDir::absent(1).orion(&["-run", "simple", "--color", "sometimes"]),
        "--color sometimes: expected auto, always or never",
    );
}

#[test]
#[serial_test::parallel]
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
#[serial_test::parallel]
fn to_spec_consents_to_writes_only_with_allow_destructive() {
    let d = LunDir::absent(1);
    let plain = d
        .orion(&["-run", "simple", "-write", "20", "--to-spec"])
        .code(0);
    plain.stdout_has(r#"mix = "20% write""#);
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
    consent.stdout_has("destructive = true");
}

#[test]
#[serial_test::parallel]
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
#[serial_test::parallel]
fn a_lun_file_is_read_as_orion_reads_it_bom_and_crlf() {
    let d = LunDir::new();
    let a = d.file("a.img", 1 << 20);
    let b = d.file("b.img", 1 << 20);
    let text = format!("\u{feff}{a}\r\n\r\n{b}\r\n");
    std::fs::write(d.path().join("orion.lun"), text).expect("lun written");
    let out = d.orion(&["-run", "simple", "--to-spec"]).code(0);
    assert!(!out.stdout.contains('\u{feff}'), "{}", out.stdout);
    assert!(!out.stdout.contains('\r'), "{}", out.stdout);
    out.stdout_has(&format!("\"{a}\""));
    out.stdout_has(&format!("\"{b}\""));
}

#[test]
#[serial_test::parallel]
fn one_lun_under_two_spellings_is_refused() {
    let d = LunDir::new();
    let a = d.file("a.img", 1 << 20);
    let link = d.path().join("by-id-a");
    std::os::unix::fs::symlink(&a, &link).expect("symlink");
    let link = link.display().to_string();
    let d = d.with("orion", &[&a, &link]);
    fails_with(
        d.orion(&["-run", "simple", "--plan"]),
        &format!(
            "orion.lun line 2: {link} is the same device or file as {a}, already listed on line 1"
        ),
    );
    // A relative spelling of the same file, from the directory ORION reads the .lun in.
    let d = d.with("rel", &[&a, "a.img"]);
    fails_with(
        d.orion(&["-run", "simple", "-testname", "rel", "--plan"]),
        "rel.lun line 2: a.img is the same device or file as",
    );
}

#[test]
#[serial_test::parallel]
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
    out.stderr_has(&format!(
        "t.lun line 3: {tiny}: too small for the I/O size: it holds 4096 bytes"
    ));
    let missing = d.path().join("missing.img").display().to_string();
    let d = d.with("m", &[&good, &missing]);
    let out = d.orion(&["-run", "simple", "-testname", "m", "-duration", "1"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    out.stderr_has(&format!("m.lun line 2: {missing}: no such device or file"));
    let folder = d.path().display().to_string();
    let d = d.with("dir", &[&folder]);
    let out = d.orion(&["-run", "simple", "-testname", "dir", "-duration", "1"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    out.stderr_has(&format!("dir.lun line 1: {folder}: is a directory"));
    assert!(
        d.outputs().is_empty(),
        "no files without a run: {:?}",
        d.outputs()
    );
}
