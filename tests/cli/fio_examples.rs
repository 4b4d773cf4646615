//! fio's own `examples/` under `rigel fio`, on a loop device: every example that uses only
//! block-storage options rigel translates runs, and every other one is refused (exit 2) at the
//! line that wrote the option its message names. The expected outcome of each example is listed
//! here (fio's files are not copied into this repository: the test reads them from
//! `RIGEL_FIO_EXAMPLES`, an `examples/` folder of axboe/fio), and the tally's counts in docs/fio.md
//! are this list's. The list is of the commit docs/fio.md's tally names; CI, which reaches package
//! registries only, runs it on the examples of the fio it installs (Debian's fio 3.33 source,
//! which `.ci/run` downloads): 81 of them are the tally's, and 5 more, since removed from fio,
//! are listed in [`OLDER`].

use super::builder::{repo, results, rigel};
use super::scenario::Scenario;
use std::path::{Path, PathBuf};

/// What `rigel fio EXAMPLE` does with the filename, size and runtime rewritten.
#[derive(Clone, Copy, Debug)]
enum Outcome {
    /// Runs, and does I/O on the loop device.
    Runs,
    /// Refused as libaio with buffered I/O, at the `ioengine` line; runs with `--set direct=1`.
    RunsDirect,
    /// Refused (exit 2) with a message saying this, at a line that names the option.
    Refused(&'static str),
}
use Outcome::{Refused, Runs, RunsDirect};

/// Every example of axboe/fio at the commit docs/fio.md names, and what rigel does with it.
const EXAMPLES: &[(&str, Outcome)] = &[
    ("1mbs_clients", Refused("fio option `ratemin`")),
    ("aio-read", Runs),
    ("atomic-verify", Refused("fio option `atomic`")),
    ("backwards-read", Refused("rw=read:-8k")),
    ("basic-verify", Runs),
    ("butterfly", Refused("fio option `flow`")),
    ("cmdprio-bssplit", Refused("fio option `log_prio`")),
    ("cmdprio-percentage", Refused("fio option `log_prio`")),
    ("cpp_null", Refused("ioengine=cpp_null")),
    ("cpuio", Refused("fio option `cpuload`")),
    (
        "cross-stripe-verify",
        Refused("fio option `verify_backlog`"),
    ),
    ("dedupe-global", Refused("fio option `dedupe_mode`")),
    ("dev-dax", Refused("fio option `cpus_allowed_policy`")),
    ("dfs", Refused("the environment variable POOL is not set")),
    ("dircreate-ioengine", Refused("fio option `openfiles`")),
    ("dirdelete-ioengine", Refused("fio option `unlink`")),
    ("dirstat-ioengine", Refused("ioengine=dirstat")),
    ("disk-zone-profile", Refused("fio option `zonesize`")),
    ("e4defrag", Refused("fio option `donorname`")),
    ("e4defrag2", Refused("fio option `donorname`")),
    ("enospc-pressure", Refused("fio option `continue_on_error`")),
    (
        "example_latency_steadystate",
        Refused("fio option `steadystate`"),
    ),
    ("exec", Refused("fio option `program`")),
    ("exitwhat", Refused("fio option `number_ios`")),
    ("falloc", Refused("ioengine=falloc")),
    ("filecreate-ioengine", Refused("fio option `openfiles`")),
    ("filedelete-ioengine", Refused("fio option `unlink`")),
    ("filestat-ioengine", Refused("ioengine=filestat")),
    ("fio-rand-RW", RunsDirect),
    ("fio-rand-read", RunsDirect),
    ("fio-rand-write", RunsDirect),
    ("fio-seq-RW", RunsDirect),
    ("fio-seq-read", Runs),
    ("fio-seq-write", RunsDirect),
    (
        "fixed-rate-submission",
        Refused("fio option `io_submit_mode`"),
    ),
    ("flow", Refused("fio option `flow_sleep`")),
    ("fsx", Refused("fio option `loops`")),
    ("ftruncate", Refused("ioengine=ftruncate")),
    ("gfapi", Refused("`$filenum` is not expanded")),
    ("gpudirect-rdmaio-client", Refused("fio option `hostname`")),
    ("gpudirect-rdmaio-server", Refused("fio option `port`")),
    (
        "http-s3-crypto",
        Refused("the environment variable S3_KEY is not set"),
    ),
    (
        "http-s3-storage-class",
        Refused("the environment variable S3_KEY is not set"),
    ),
    (
        "http-s3",
        Refused("the environment variable S3_KEY is not set"),
    ),
    ("http-swift", Refused("`$jobnum` is not expanded")),
    ("http-webdav", Refused("`$jobnum` is not expanded")),
    ("ime", Refused("`$jobnum` is not expanded")),
    ("iometer-file-access-server", Runs),
    ("jesd219", Refused("fio option `blockalign`")),
    ("latency-profile", Refused("fio option `random_generator`")),
    ("libblkio-io_uring", Refused("fio option `libblkio_driver`")),
    (
        "libblkio-virtio-blk-vfio-pci",
        Refused("fio option `libblkio_driver`"),
    ),
    (
        "libcufile-cufile",
        Refused("the environment variable FIO_DIR is not set"),
    ),
    (
        "libcufile-posix",
        Refused("the environment variable FIO_DIR is not set"),
    ),
    ("libhdfs", Refused("ioengine=libhdfs")),
    (
        "libhipfile-hipfile",
        Refused("the environment variable FIO_DIR is not set"),
    ),
    (
        "libhipfile-posix",
        Refused("the environment variable FIO_DIR is not set"),
    ),
    ("libiscsi", Refused("ioengine=libiscsi")),
    ("libpmem", Refused("fio option `scramble_buffers`")),
    ("libzbc-rand-write", Refused("fio option `zonesize`")),
    ("libzbc-seq-read", Refused("fio option `zonesize`")),
    ("mtd", Refused("fio option `ignore_error`")),
    // fio 3.33 writes `uri=nbd+unix:///?socket=${unixsocket}`, the tally's commit `uri=${uri}`.
    ("nbd", Refused("is not set: export it")),
    ("netio", Refused("fio option `port`")),
    ("netio_multicast", Refused("fio option `protocol`")),
    ("netio_vsock", Refused("fio option `port`")),
    ("netio_vsock_receiver", Refused("fio option `port`")),
    ("netio_vsock_sender", Refused("fio option `port`")),
    ("nfs", Refused("`$clientuid` is not expanded")),
    ("null", Refused("ioengine=null")),
    ("numa", Refused("fio option `numa_cpu_nodes`")),
    ("page_fault", Refused("`$mb_memory` is not expanded")),
    (
        "poisson-rate-submission",
        Refused("fio option `io_submit_mode`"),
    ),
    ("rados", Refused("fio option `clientname`")),
    ("rand-zones", Runs),
    ("rbd", Refused("fio option `clientname`")),
    ("rdmaio-client", Refused("fio option `hostname`")),
    ("rdmaio-server", Refused("fio option `port`")),
    ("sequence-distribution", Refused("fio option `io_size`")),
    ("sg_verify-fail", Refused("fio option `buffer_pattern`")),
    ("sg_verify", Refused("fio option `buffer_pattern`")),
    ("sg_write_same_ndob", Refused("fio option `buffer_pattern`")),
    (
        "sprandom",
        Refused("the environment variable FIO_BS is not set"),
    ),
    ("ssd-steadystate", Runs),
    ("ssd-test", Runs),
    ("steadystate", Refused("fio option `threads`")),
    ("surface-scan", Refused("fio option `verify_pattern`")),
    ("tiobench-example", Runs),
    ("uring-cmd-bsg", Refused("fio option `cmd_type`")),
    ("uring-cmd-fdp", Refused("fio option `cmd_type`")),
    ("uring-cmd-ng", Refused("fio option `cmd_type`")),
    ("uring-cmd-pi-ext", Refused("fio option `cmd_type`")),
    ("uring-cmd-pi-sb", Refused("fio option `cmd_type`")),
    (
        "uring-cmd-trim-multi-range",
        Refused("fio option `cmd_type`"),
    ),
    ("uring-cmd-write-mode", Refused("fio option `cmd_type`")),
    ("uring-cmd-zoned-append", Refused("fio option `cmd_type`")),
    ("uring-cmd-zoned", Refused("fio option `cmd_type`")),
    ("waitfor", Refused("fio option `threads`")),
    (
        "xnvme-compare",
        Refused("the environment variable FIO_RW is not set"),
    ),
    (
        "xnvme-fdp",
        Refused("the environment variable FIO_RW is not set"),
    ),
    ("xnvme-pi", Refused("fio option `md_per_io_size`")),
    (
        "xnvme-zoned",
        Refused("the environment variable FIO_RW is not set"),
    ),
    ("zbd-rand-write-trim-gc", Refused("fio option `zonesize`")),
    (
        "zbd-rand-write-zone-reset-gc",
        Refused("fio option `zonesize`"),
    ),
    ("zbd-rand-write", Refused("fio option `zonesize`")),
    ("zbd-seq-read", Refused("fio option `zonesize`")),
    ("zipf", Refused("ioengine=null")),
];

/// Examples of older fio releases (3.33, Debian's) that the tally's commit no longer has.
const OLDER: &[(&str, Outcome)] = &[
    (
        "librpma_apm-client",
        Refused("fio option `create_serialize`"),
    ),
    (
        "librpma_apm-server",
        Refused("fio option `create_serialize`"),
    ),
    (
        "librpma_gpspm-client",
        Refused("fio option `create_serialize`"),
    ),
    (
        "librpma_gpspm-server",
        Refused("fio option `create_serialize`"),
    ),
    ("pmemblk", Refused("fio option `cpus_allowed_policy`")),
];

/// Fewer examples than this in the folder is not fio's examples folder (3.33 has 86).
const AT_LEAST: usize = 80;

/// Environment variables the examples expand: unset, so each is refused naming its own.
const EXAMPLE_VARIABLES: [&str; 7] = [
    "FIO_DIR",
    "S3_KEY",
    "POOL",
    "uri",
    "unixsocket",
    "FIO_BS",
    "FIO_RW",
];

/// The folder of fio's examples, from `RIGEL_FIO_EXAMPLES`.
fn examples_dir() -> PathBuf {
    let dir = std::env::var_os("RIGEL_FIO_EXAMPLES").expect(
        "RIGEL_FIO_EXAMPLES names a checkout of axboe/fio's examples/ (.ci/run fetches it)",
    );
    PathBuf::from(dir)
}

/// `rigel fio EXAMPLE` on `dev` (filename, size and runtime set over the example's own) plus
/// `more`, from the examples' folder (some include others by relative name).
fn run(dir: &Path, name: &str, dev: &str, out: &Path, more: &[&str]) -> super::builder::Output {
    let mut cmd = rigel().cwd(dir).arg("fio").arg(format!("{name}.fio"));
    for set in [
        format!("filename={dev}"),
        "size=128m".to_owned(),
        "runtime=1".to_owned(),
    ]
    .iter()
    .map(String::as_str)
    .chain(more.iter().copied())
    {
        cmd = cmd.args(["--set", set]);
    }
    for var in EXAMPLE_VARIABLES {
        cmd = cmd.env_remove(var);
    }
    cmd.arg("--allow-destructive")
        .arg("-q")
        .arg("--out")
        .arg(out)
        .run()
}

/// The example ran and its I/O reached the loop device.
fn ran(name: &str, out: &super::builder::Output, folder: &Path, dev: &str) {
    assert_eq!(out.code, 0, "{name}: {}", out.stderr);
    let doc = results(folder);
    let points = doc["points"].as_array().expect("points");
    assert!(!points.is_empty(), "{name}: no point");
    let device = dev.trim_start_matches("/dev/");
    let served: f64 = points
        .iter()
        .flat_map(|p| p["devices"].as_array().into_iter().flatten())
        .filter(|d| d["name"] == device)
        .map(|d| d["reads"].as_f64().unwrap_or(0.0) + d["writes"].as_f64().unwrap_or(0.0))
        .sum();
    assert!(served > 0.0, "{name}: no request reached {dev}");
}

/// The example was refused at a line of its own file that names the option the message names.
fn refused_at_its_line(dir: &Path, name: &str, out: &super::builder::Output, says: &str) {
    assert_eq!(out.code, 2, "{name}: {}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{name}: {}", out.stderr);
    assert!(
        out.stderr.contains(says),
        "{name}: {says:?} not in {}",
        out.stderr
    );
    let file = format!("{name}.fio");
    let at = out
        .stderr
        .split(&format!("{file}:"))
        .nth(1)
        .unwrap_or_else(|| panic!("{name}: no {file}:LINE in {}", out.stderr));
    let (line, rest) = at.split_once(": ").expect("LINE: message");
    let line: usize = line
        .parse()
        .unwrap_or_else(|_| panic!("{name}: line {line:?}"));
    // The option as the message names it: `fio option `X``, or `KEY=VALUE: …`.
    let option = match rest.strip_prefix("fio option `") {
        Some(r) => r.split('`').next().expect("the option"),
        None => rest.split('=').next().expect("KEY=VALUE"),
    };
    let text = std::fs::read_to_string(dir.join(&file)).expect("the example");
    let written = text.lines().nth(line - 1).unwrap_or_default();
    assert!(
        written.trim_start().starts_with(option),
        "{name}: refused at line {line} (`{written}`), which does not write `{option}`"
    );
}

#[test]
#[serial_test::parallel]
#[ignore = "needs fio's examples (RIGEL_FIO_EXAMPLES)"]
fn fio_examples_run_or_are_refused_at_the_line_of_their_option() {
    let dir = examples_dir();
    let mut found: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| {
            let name = e.ok()?.file_name().to_string_lossy().into_owned();
            Some(name.strip_suffix(".fio")?.to_owned())
        })
        .collect();
    found.sort();
    // Every example in the folder is classified (a new one must be added to the list), and the
    // folder is fio's (not an empty or stray one).
    let outcome = |name: &str| {
        EXAMPLES
            .iter()
            .chain(OLDER)
            .find(|(n, _)| *n == name)
            .map(|(_, o)| *o)
    };
    let unlisted: Vec<&String> = found.iter().filter(|n| outcome(n).is_none()).collect();
    assert!(
        unlisted.is_empty(),
        "fio examples not in this list: {unlisted:?}"
    );
    assert!(
        found.len() >= AT_LEAST,
        "{}: {} examples, not fio's examples folder",
        dir.display(),
        found.len()
    );
    let s = Scenario::new();
    let dev = s.loop_device(256 << 20);
    for name in &found {
        let name = name.as_str();
        let outcome = outcome(name).expect("listed above");
        let folder = s.join(format!("run-{name}"));
        let out = run(&dir, name, dev.dev(), &folder, &[]);
        match outcome {
            Runs => ran(name, &out, &folder, dev.dev()),
            Refused(says) => refused_at_its_line(&dir, name, &out, says),
            RunsDirect => {
                refused_at_its_line(&dir, name, &out, "libaio with buffered I/O");
                let folder = s.join(format!("run-{name}-direct"));
                let out = run(&dir, name, dev.dev(), &folder, &["direct=1"]);
                ran(name, &out, &folder, dev.dev());
            }
        }
    }
    // docs/fio.md's tally is this list's.
    let count = |f: fn(&Outcome) -> bool| EXAMPLES.iter().filter(|(_, o)| f(o)).count();
    let runs = count(|o| matches!(o, Runs));
    let direct = count(|o| matches!(o, RunsDirect));
    let doc = std::fs::read_to_string(repo().join("docs/fio.md")).expect("docs/fio.md");
    for said in [
        format!("{} job files)", EXAMPLES.len()),
        format!("**ran: {runs}**"),
        format!("{direct} more run with `--set direct=1`"),
        format!("**refused: {}**", EXAMPLES.len() - runs),
    ] {
        assert!(doc.contains(&said), "docs/fio.md does not say {said:?}");
    }
}
