//! `rigel orion` doing real I/O through the shared run loop: the write guard on a tmpfs file, and
//! ORION's files and the raid0 layout on two loop devices over tmpfs (as root, as `.ci/run` runs).

use super::orion::{LunDir, one_point};
use rigel_testkit::LoopDevice;

#[test]
#[serial_test::parallel]
fn write_needs_allow_destructive_and_then_writes() {
    let d = LunDir::new();
    let lun = d.file("data.img", 8 << 20);
    let d = d.with("w", &[&lun]);
    let before = std::fs::read(&lun).expect("readable");
    let args = [&one_point("w", "2")[..], &["-write", "100"]].concat();
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
    d.orion(&[&args[..], &["--allow-destructive", "--by", "Tess Tester"]].concat())
        .code(0);
    assert_ne!(std::fs::read(&lun).expect("readable"), before, "written");
    // Who measured and from what spec, as a `rigel run` records them: the sign-off names them.
    let folder = std::fs::read_dir(d.path())
        .expect("dir readable")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "rigel"))
        .expect("a run folder");
    let doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(folder.join("results.json")).expect("results.json"),
    )
    .expect("json");
    let prov = &doc["provenance"];
    assert_eq!(prov["measured_by"], "Tess Tester", "{prov}");
    // Page 1's first line names who measured, beside the tool that did.
    let md = std::fs::read_to_string(folder.join("report.md")).expect("report.md");
    assert!(
        md.lines()
            .any(|l| l.starts_with("Run started") && l.ends_with("measured by Tess Tester.")),
        "{md}"
    );
    assert!(
        prov["spec"]["source"]
            .as_str()
            .is_some_and(|s| s.starts_with("rigel orion -run advanced -testname w")),
        "{prov}"
    );
    assert_eq!(
        prov["spec"]["sha256"].as_str().map(str::len),
        Some(64),
        "{prov}"
    );
    let summary = d
        .outputs()
        .into_iter()
        .find(|n| n.ends_with("_summary.txt"))
        .expect("a summary");
    let text = std::fs::read_to_string(d.path().join(summary)).expect("summary");
    assert!(text.contains("\nWrite: 100%\n"), "{text}");
}

/// Sparse on tmpfs, where reading a hole is a memory copy: CI has streamed 8 GiB of holes in the
/// one-second point, so the first device is large enough that no stream can cross it (1 TiB takes
/// over 100 s at 8 GiB/s).
const LOOP_SIZE: u64 = 1 << 40;

#[test]
#[serial_test::parallel]
fn a_raid0_run_on_two_loop_devices_writes_orions_files_and_uses_both() {
    let (a, b) = (LoopDevice::new(LOOP_SIZE), LoopDevice::new(LOOP_SIZE));
    let d = LunDir::new().with("lp", &[a.dev(), b.dev()]);
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
    // ORION's console line exactly, as scripts match it; rigel's version is a note on stderr.
    assert_eq!(
        lines[0], "ORION: ORacle IO Numbers -- Version 19.3.0.0.0",
        "{}",
        out.stdout
    );
    assert!(out.stderr.contains("note: rigel "), "{}", out.stderr);
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
    assert!(
        summary.starts_with("ORION VERSION 19.3.0.0.0\n\n"),
        "{summary}"
    );
    for line in [
        "Commandline:\n-run advanced -testname lp -num_disks 1 -size_large 64 -simulate raid0 -stripe 64 -duration 1 -cache_size 0\n",
        "\nSmall IO size: 8 KB\nLarge IO size: 64 KB\n",
        "\nSimulated Array Type: RAID 0\nStripe Depth: 64 KB\n",
        "\nSmall Columns:,      0\nLarge Columns:,      0,      1,      2\nTotal Data Points: 8\n",
        &format!("\nName: {}\tSize: {LOOP_SIZE}\n", a.dev()),
        "\n2 FILEs found.\n",
        "\nCache Size: 0 MB\n",
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
        let before = (a.sectors_read(), b.sectors_read());
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
        (a.sectors_read() - before.0, b.sectors_read() - before.1)
    };
    let (ca, cb) = stream(&[]);
    // Should a machine ever stream a whole device within the point, concat still reads the first
    // device to its end before the second: that is the rule checked, not the device's size.
    assert!(
        ca > 1000 && (cb * 20 < ca || ca >= LOOP_SIZE / 512),
        "concat: {ca} sectors read on the first, {cb} on the second"
    );
    let (ra, rb) = stream(&["-simulate", "raid0", "-stripe", "64"]);
    eprintln!("one stream, sectors read: concat {ca} + {cb}, raid0 {ra} + {rb}");
    let total = ra + rb;
    assert!(total > 1000, "raid0: {ra} + {rb}");
    for r in [ra, rb] {
        assert!(
            r * 100 > total * 45,
            "raid0 alternates the stream: {ra} vs {rb}"
        );
    }
}
