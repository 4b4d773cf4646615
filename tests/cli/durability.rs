//! Durable writes at the device: a `dsync` class's writes reach a loop device (a write-back cache
//! without FUA) each with a flush, as the kernel's trace of issued requests shows; the same class
//! without durability sends none (the control). The same under each engine (`engines.rs`).

use super::builder::{results, rigel};
use super::engines::{on_engine, ran_on};
use rigel_testkit::{BlockTrace, LoopDevice};

/// (writes, flushes, FUA writes) the device was sent for one run of a write class on `engine`
/// (`None`: the default).
fn traced(durability: &str, engine: Option<&str>) -> (usize, usize, usize) {
    let dev = LoopDevice::new(64 << 20);
    let tmp = tempfile::tempdir_in("/dev/shm").expect("a tmpfs temp dir");
    let spec = format!(
        "[[target]]\npath = \"{}\"\ndestructive = true\n\n[run]\nduration = \"1s\"\n\n\
         [class.log]\nsize = \"8KiB\"\nmix = \"write\"\ndurability = \"{durability}\"\n\
         rate = \"400 iops\"\n\n[matrix]\nshape = \"point\"\nlog = \"1\"\n",
        dev.dev()
    );
    let path = tmp.path().join("spec.toml");
    std::fs::write(&path, on_engine(&spec, engine)).expect("spec written");
    let trace = BlockTrace::start(&dev.numbers().expect("numbers"), 8 << 10);
    rigel()
        .arg("run")
        .arg(&path)
        .arg("--allow-destructive")
        .arg("--out")
        .arg(tmp.path().join("run"))
        .run()
        .code(0);
    let requests = trace.stop();
    if let Some(engine) = engine {
        ran_on(&results(&tmp.path().join("run")), engine);
    }
    let writes = requests.iter().filter(|r| r.is_write()).count();
    let flushes = requests.iter().filter(|r| r.is_flush()).count();
    let fua = requests.iter().filter(|r| r.is_fua()).count();
    (writes, flushes, fua)
}

#[test]
#[serial_test::serial]
fn dsync_writes_reach_the_device_with_a_flush_each() {
    flush_each(None);
}

#[test]
#[serial_test::serial]
fn dsync_writes_reach_the_device_with_a_flush_each_under_psync_and_libaio() {
    flush_each(Some("psync"));
    flush_each(Some("libaio"));
}

fn flush_each(engine: Option<&str>) {
    let (writes, flushes, fua) = traced("dsync", engine);
    assert!(writes >= 200, "{writes} writes traced");
    // One write at a time (the class's load is 1): every write's flush is its own, none merged.
    assert!(
        fua + flushes >= writes,
        "{writes} writes, {flushes} flushes, {fua} FUA writes"
    );
    let (writes, flushes, fua) = traced("none", engine);
    assert!(writes >= 200, "{writes} writes traced");
    assert_eq!((flushes, fua), (0, 0), "without durability, no flush");
}
