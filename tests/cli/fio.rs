//! `rigel fio`: fio's job files translated (every value's comment naming its fio option), refused
//! at the line that wrote an option rigel does not do, run on a loop device in every rw mode, and
//! fio's JSON read back exactly as results.json has it. The ignored test draws fio-plot's charts
//! from rigel's JSON (CI installs fio-plot); fio_agree.rs compares with fio itself.

use super::builder::{results, rigel};
use super::scenario::{Scenario, Spec};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Writes the job file `name` with `text` in the scenario's folder.
fn job(s: &Scenario, name: &str, text: &str) -> PathBuf {
    let path = s.join(name);
    std::fs::write(&path, text).expect("job file written");
    path
}

/// `rigel fio FILE` writing to `dev` (the job's `filename` replaced with `--set`) into `out`; its
/// results.json.
fn fio_on(dev: &str, file: &Path, out: &Path) -> Value {
    rigel()
        .arg("fio")
        .arg(file)
        .args(["--set", &format!("filename={dev}")])
        .arg("--allow-destructive")
        .arg("--out")
        .arg(out)
        .run()
        .code(0);
    results(out)
}

#[test]
#[serial_test::parallel]
fn to_spec_translates_fio_semantics_and_names_each_option() {
    let s = Scenario::new();
    let target = s.join("data.img");
    let file = job(
        &s,
        "mixed.fio",
        "; fio's own syntax: globals, inline comments, env, ranges\n\
             [global]\n\
             ioengine=io_uring\n\
             direct=1\n\
             runtime=3   ; seconds\n\
             time_based\n\
             filename=${RIGEL_FIO_TARGET}\n\
             size=16m\n\
             group_reporting\n\
             \n\
             [seq]\n\
             rw=read\n\
             bs=1m\n\
             iodepth=4\n\
             numjobs=2\n\
             \n\
             [oltp]\n\
             rw=randrw\n\
             rwmixread=70\n\
             bssplit=4k/60:8k/:64k/10\n\
             iodepth=8\n\
             random_distribution=zipf:1.2\n\
             fdatasync=4\n\
             buffer_compress_percentage=50\n",
    );
    let out = rigel()
        .env("RIGEL_FIO_TARGET", &target)
        .arg("fio")
        .arg(&file)
        .arg("--to-spec")
        .run()
        .code(0);
    let spec = &out.stdout;
    let lines = &[
        "duration = \"3s\"   # runtime=3 (",
        "direct = true   # direct=1 (",
        "workers = 3",
        "size = \"16MiB\"",
        "size = \"1MiB\"   # bs=1m (",
        "access = \"sequential\"   # rw=read",
        "per_stream = \"4\"   # iodepth=4",
        "seq = \"2\"   # numjobs=2",
        "mix = \"70% read\"   # rw=randrw (",
        "size = \"4KiB:60.00%, 8KiB:30.00%, 64KiB:10.00%\"   # bssplit=",
        "distribution = \"zipf:1.2\"",
        "durability = \"fdatasync:4\"",
        "compress = \"2.00:1\"   # buffer_compress_percentage=50",
        "oltp = \"8\"   # iodepth=8",
        "shape = \"point\"",
    ];
    spec_has_and_checks(&s, spec, lines, "mixed.toml");
}

#[test]
#[serial_test::parallel]
fn stonewalled_jobs_run_one_after_another() {
    let s = Scenario::new();
    let file = job(
        &s,
        "two.fio",
        "[global]\nruntime=1\nsize=1m\nfilename=a.img\n[r]\nrw=read\n[w]\nstonewall\nrw=write\n",
    );
    let out = rigel()
        .cwd(s.path())
        .arg("fio")
        .arg(&file)
        .arg("--to-spec")
        .run()
        .code(0);
    out.stdout_has("shape = \"basic\"   # stonewall");
    out.stdout_has("engine = \"psync\"   # fio's default: ioengine=psync");
    out.stdout_has("direct = false   # fio's default: direct=0");
}

#[test]
#[serial_test::parallel]
fn options_rigel_does_not_do_are_refused_at_their_line() {
    let s = Scenario::new();
    let head = "[global]\nruntime=1\nfilename=/dev/null\n[j]\n";
    // (the job's own lines after the head, the line refused, what the message names)
    let cases: &[(&str, usize, &str)] = &[
        (
            "rw=read\nstartdelay=5\n",
            6,
            "fio option `startdelay` is not translated",
        ),
        (
            "rw=trimwrite\n",
            5,
            "rw=trimwrite: rigel does not pair a trim with a write of the same block",
        ),
        (
            "ioengine=null\n",
            5,
            "ioengine=null: rigel's engines are io_uring, libaio and psync",
        ),
        ("iodpeth=4\n", 5, "did you mean `iodepth`?"),
        ("ioengine=libaio\n", 5, "libaio with buffered I/O"),
        ("rw=rw\nrate=1m\n", 6, "fio paces reads and writes apart"),
        (
            "bs=4k,8k\nrw=randrw\n",
            5,
            "one size mix for reads and writes",
        ),
        ("bs=1000\n", 5, "multiples of 512 bytes"),
        (
            "size=${RIGEL_FIO_UNSET_VARIABLE}\n",
            5,
            "RIGEL_FIO_UNSET_VARIABLE is not set",
        ),
        ("verify=pattern\nrw=write\n", 5, "verify=pattern"),
        (
            "include missing.fio\n",
            0,
            "missing.fio: cannot read the job file",
        ),
    ];
    for (i, (body, line, says)) in cases.iter().enumerate() {
        let name = format!("refused{i}.fio");
        let file = job(&s, &name, &format!("{head}{body}"));
        let out = rigel()
            .env_remove("RIGEL_FIO_UNSET_VARIABLE")
            .arg("fio")
            .arg(&file)
            .run()
            .code(2);
        if *line > 0 {
            out.stderr_has(&format!("{}:{line}: ", file.display()));
        }
        out.stderr_has(says);
        assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    }
    // No runtime: rigel's points are timed, and the message says how to give one.
    let file = job(&s, "untimed.fio", "[j]\nrw=read\nfilename=/dev/null\n");
    rigel()
        .arg("fio")
        .arg(&file)
        .run()
        .code(2)
        .stderr_has("--runtime=SECONDS");
}

/// fio's JSON of `dir` (via `rigel report --format fio-json`) against its results.json: every
/// job's IOPS and p99 are results.json's own, read with fio's documented fields only.
fn fio_json_reads_back(dir: &Path) {
    rigel()
        .arg("report")
        .arg(dir)
        .args(["--format", "fio-json"])
        .run()
        .code(0);
    let fio: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("fio.json")).expect("fio.json written"),
    )
    .expect("fio.json is JSON");
    let doc = results(dir);
    let points = doc["points"].as_array().expect("points");
    let jobs = fio["jobs"].as_array().expect("jobs[]");
    assert!(fio["fio version"].is_string());
    let classes: usize = points
        .iter()
        .map(|p| p["classes"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(jobs.len(), classes, "one job per class and point");
    let mut i = 0;
    for p in points {
        for c in p["classes"].as_array().expect("classes") {
            let j = &jobs[i];
            i += 1;
            assert_eq!(j["jobname"], c["class"]);
            for dir in ["read", "write"] {
                if c[dir].is_null() {
                    assert_eq!(j[dir]["total_ios"], 0);
                    continue;
                }
                assert_eq!(j[dir]["iops"], c[dir]["iops"], "{dir} iops");
                assert_eq!(j[dir]["total_ios"], c[dir]["ios"], "{dir} ios");
                assert_eq!(
                    j[dir]["clat_ns"]["percentile"]["99.000000"], c[dir]["latency"]["p99_ns"],
                    "{dir} p99"
                );
                assert_eq!(
                    j[dir]["clat_ns"]["percentile"]["50.000000"], c[dir]["latency"]["p50_ns"],
                    "{dir} p50"
                );
            }
        }
    }
}

/// fio's `rw=trim` and `randtrim` are trim classes (sequential and random discards of the job's
/// trim size, `bs`'s third value, else its second), on a target that needs a write's consent.
#[test]
#[serial_test::parallel]
fn trim_modes_translate_to_trim_classes() {
    let s = Scenario::new();
    let target = s.file("t.img", 1 << 20);
    let file = job(
        &s,
        "trims.fio",
        "[global]\nruntime=1\nioengine=io_uring\n\n[seq]\nrw=trim\nbs=4k,64k\n\n\
         [rnd]\nrw=randtrim\nbs=4k,8k,16k\n",
    );
    let out = rigel()
        .arg("fio")
        .arg(&file)
        .args(["--set", &format!("filename={}", target.display())])
        .arg("--to-spec")
        .run()
        .code(0);
    let spec = &out.stdout;
    let lines = &[
        "mix = \"trim\"   # rw=trim",
        "access = \"sequential\"   # rw=trim",
        "size = \"64KiB\"   # bs=4k,64k",
        "mix = \"trim\"   # rw=randtrim",
        "access = \"random\"   # rw=randtrim",
        "size = \"16KiB\"   # bs=4k,8k,16k",
        "destructive = true",
    ];
    spec_has_and_checks(&s, spec, lines, "trims.toml");
}

/// `--to-spec`'s `spec` holds each of `lines`, and is one `rigel check` accepts (saved as
/// `name`).
fn spec_has_and_checks(s: &Scenario, spec: &str, lines: &[&str], name: &str) {
    for line in lines {
        assert!(spec.contains(line), "{line:?} not in\n{spec}");
    }
    let saved = s.join(name);
    std::fs::write(&saved, spec).expect("spec saved");
    rigel().arg("check").arg(&saved).run().code(0);
}

#[test]
#[serial_test::parallel]
fn every_rw_mode_runs_on_a_loop_device() {
    let s = Scenario::new();
    let dev = s.loop_device(64 << 20);
    for (rw, reads, writes) in [
        ("read", true, false),
        ("write", false, true),
        ("randread", true, false),
        ("randwrite", false, true),
        ("rw", true, true),
        ("randrw", true, true),
    ] {
        // The file names a device this host does not have: --set puts the loop device there.
        let file = job(
            &s,
            &format!("{rw}.fio"),
            &format!(
                "[global]\nioengine=io_uring\ndirect=1\nruntime=1\ntime_based\nbs=4k\n\
                 filename=/dev/disk/by-id/not-here\n\n[{rw}-job]\nrw={rw}\niodepth=4\n"
            ),
        );
        let out_dir = s.join(format!("run-{rw}"));
        let doc = fio_on(dev.dev(), &file, &out_dir);
        let c = &doc["points"][0]["classes"][0];
        assert_eq!(c["class"], format!("{rw}-job"));
        assert_eq!(c["read"].is_object(), reads, "{rw}: {c}");
        assert_eq!(c["write"].is_object(), writes, "{rw}: {c}");
        assert!(c["total"]["ios"].as_u64().unwrap_or(0) > 0, "{rw}: no I/O");
        // The device saw it: what the job did reached the loop device.
        let dev_row = &doc["points"][0]["devices"][0];
        assert_eq!(dev_row["name"], dev.name(), "{dev_row}");
        assert_eq!(
            dev_row["reads"].as_u64().unwrap_or(0) > 0,
            reads,
            "{rw}: {dev_row}"
        );
        assert_eq!(
            dev_row["writes"].as_u64().unwrap_or(0) > 0,
            writes,
            "{rw}: {dev_row}"
        );
        fio_json_reads_back(&out_dir);
    }
}

#[test]
#[serial_test::parallel]
fn output_format_json_prints_fios_document_alone() {
    let s = Scenario::new();
    let target = s.join("t.img");
    let out = rigel()
        .arg("fio")
        .args([
            "--name=r",
            "--rw=randread",
            "--ioengine=io_uring",
            "--direct=1",
        ])
        .arg(format!("--filename={}", target.display()))
        .args(["--size=8m", "--runtime=1", "--time_based", "--iodepth=2"])
        .arg("--out")
        .arg(s.join("run"))
        .args(["--output-format", "json"])
        .run()
        .code(0);
    let fio: Value = serde_json::from_str(&out.stdout).expect("stdout is only fio's JSON");
    let doc = results(&s.join("run"));
    assert_eq!(
        fio["jobs"][0]["read"]["iops"],
        doc["points"][0]["classes"][0]["total"]["iops"]
    );
    assert_eq!(fio["jobs"][0]["job options"]["rw"], "randread");
}

#[test]
#[serial_test::parallel]
#[ignore = "needs fio-plot (pip install fio-plot)"]
fn fio_plot_draws_rigel_json_of_a_qd_sweep() {
    let s = Scenario::new();
    let spec = Spec::named("sweep")
        .at(
            &["target"],
            toml::Value::Array(vec![toml::Value::Table({
                let mut t = toml::Table::new();
                t.insert(
                    "path".into(),
                    s.join("sweep.img").display().to_string().into(),
                );
                t.insert("size".into(), "64MiB".into());
                t
            })]),
        )
        .set("run.duration", "1s")
        .set("class.rr.size", "4KiB")
        .set("class.rr.access", "random")
        .set("matrix.rr", "1, 2, 4, 8");
    let path = s.spec("sweep.toml", &spec);
    let run = s.run(&path, "out", &[]).code(0);
    fio_json_reads_back(&run.folder);
    let charts = s.join("charts");
    std::fs::create_dir(&charts).expect("charts folder");
    let out = std::process::Command::new("fio-plot")
        .current_dir(&charts)
        .arg("-i")
        .arg(run.folder.join("fio"))
        .args([
            "-T", "rigel", "-l", "-r", "randread", "-d", "1", "2", "4", "8", "-n", "1",
        ])
        .output()
        .expect("fio-plot runs (CI installs it)");
    assert!(
        out.status.success(),
        "fio-plot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pngs = std::fs::read_dir(&charts)
        .expect("charts")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "png"))
        })
        .count();
    assert_eq!(
        pngs,
        1,
        "fio-plot drew no chart: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    // A script using only fio's documented fields reads back results.json's IOPS and p99.
    let script = "import json,sys\n\
        f=json.load(open(sys.argv[1])); r=json.load(open(sys.argv[2]))\n\
        mine=[(j['read']['iops'], j['read']['clat_ns']['percentile']['99.000000']) for j in f['jobs']]\n\
        theirs=[(c['total']['iops'], c['total']['latency']['p99_ns']) for p in r['points'] for c in p['classes']]\n\
        assert mine==theirs, (mine, theirs)\nprint(len(mine))\n";
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(run.folder.join("fio.json"))
        .arg(run.folder.join("results.json"))
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "4");
}
