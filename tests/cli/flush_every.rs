//! Grouped durable writes at the device: a class with `durability = "fdatasync:8"` on a loop
//! device (a write-back cache without FUA) sends one flush request per 8 writes, as the kernel's
//! trace of issued requests shows, and records as many commits as the flushes the device saw.

use super::traced::traced_run;
use rigel_testkit::LoopDevice;

#[test]
#[serial_test::serial]
fn fdatasync_8_sends_one_flush_per_8_writes() {
    let dev = LoopDevice::new(64 << 20);
    let spec = format!(
        "[[target]]\npath = \"{}\"\ndestructive = true\n\n[run]\nduration = \"1s\"\n\n\
         [class.log]\nsize = \"8KiB\"\nmix = \"write\"\ndurability = \"fdatasync:8\"\n\n\
         [matrix]\nshape = \"point\"\nlog = \"1\"\n",
        dev.dev()
    );
    let (requests, doc) = traced_run(&dev, &spec);
    let writes = requests.iter().filter(|r| r.is_write()).count();
    let flushes = requests.iter().filter(|r| r.is_flush()).count();
    let fua = requests.iter().filter(|r| r.is_fua()).count();
    assert!(writes >= 400, "{writes} writes traced");
    assert_eq!(fua, 0, "no FUA write: the flushes are rigel's");
    // One committer: its groups run one after another, so the device sees exactly one flush per
    // 8 writes (the last group, cut by the window's end, may have no flush yet).
    let groups = writes / 8;
    assert!(
        flushes == groups || flushes + 1 == groups,
        "{writes} writes, {flushes} flushes (expected {groups})"
    );
    let class = &doc["points"][0]["classes"][0];
    let commit = &class["commit"];
    assert_eq!(commit["every"], 8, "{commit}");
    let commits = commit["commits"].as_u64().expect("commits");
    assert!(
        commits > 0 && commits as usize <= flushes,
        "{commits} commits, {flushes} flushes"
    );
    // A commit is eight writes and a flush: longer than the flush alone, and than a write.
    let commit_mean = commit["latency"]["mean_ns"].as_f64().expect("mean");
    let flush_mean = commit["flush"]["mean_ns"].as_f64().expect("flush mean");
    let write_mean = class["write"]["latency"]["mean_ns"]
        .as_f64()
        .expect("write mean");
    assert!(
        commit_mean > flush_mean + 7.0 * write_mean,
        "commit {commit_mean} ns, flush {flush_mean} ns, write {write_mean} ns"
    );
}
