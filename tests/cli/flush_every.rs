//! Grouped durable writes at the device: a class with `durability = "fdatasync:8"` on a loop
//! device (a write-back cache without FUA) sends one flush request per 8 writes, as the kernel's
//! trace of issued requests shows, and records as many commits as the flushes the device saw.
//! The same under each engine (`engines.rs`).

use super::engines::{on_engine, ran_on};
use super::scenario::traced_run;
use rigel_testkit::LoopDevice;
use serde_json::Value;

/// Runs a write class `log` of 8 KiB writes with `durability = "fdatasync:8"` and the lines
/// `extra` at load `load` on a fresh loop device for 1 s, tracing the device: its writes, flushes
/// and FUA writes, and the run's results.
fn traced_fdatasync_8(extra: &str, load: u32) -> (usize, usize, usize, Value) {
    traced_fdatasync_8_on(extra, load, None)
}

/// [`traced_fdatasync_8`] on `engine` (`None`: the default).
fn traced_fdatasync_8_on(
    extra: &str,
    load: u32,
    engine: Option<&str>,
) -> (usize, usize, usize, Value) {
    let dev = LoopDevice::new(64 << 20);
    let spec = format!(
        "[[target]]\npath = \"{}\"\ndestructive = true\n\n[run]\nduration = \"1s\"\n\n\
         [class.log]\nsize = \"8KiB\"\nmix = \"write\"\ndurability = \"fdatasync:8\"\n{extra}\n\
         [matrix]\nshape = \"point\"\nlog = \"{load}\"\n",
        dev.dev()
    );
    let (requests, doc) = traced_run(&dev, &on_engine(&spec, engine));
    if let Some(engine) = engine {
        ran_on(&doc, engine);
    }
    let count = |f: fn(&rigel_testkit::Request) -> bool| requests.iter().filter(|r| f(r)).count();
    let (writes, flushes, fua) = (
        count(|r| r.is_write()),
        count(|r| r.is_flush()),
        count(|r| r.is_fua()),
    );
    (writes, flushes, fua, doc)
}

/// The class's results and its `commit`, checked: groups of 8, some commits, no more than `most`
/// (the flushes the device saw, for one committer).
fn commits_of(doc: &Value, most: usize) -> (&Value, &Value) {
    let class = &doc["points"][0]["classes"][0];
    let commit = &class["commit"];
    assert_eq!(commit["every"], 8, "{commit}");
    let commits = commit["commits"].as_u64().expect("commits");
    assert!(
        commits > 0 && commits as usize <= most,
        "{commits} commits, at most {most} expected"
    );
    (class, commit)
}

#[test]
#[serial_test::parallel]
fn fdatasync_8_sends_one_flush_per_8_writes() {
    one_flush_per_8_writes(None);
}

#[test]
#[serial_test::parallel]
fn fdatasync_8_sends_one_flush_per_8_writes_under_psync_and_libaio() {
    one_flush_per_8_writes(Some("psync"));
    one_flush_per_8_writes(Some("libaio"));
}

fn one_flush_per_8_writes(engine: Option<&str>) {
    let (writes, flushes, fua, doc) = traced_fdatasync_8_on("", 1, engine);
    // 20 groups: a flush per write, or none, is far outside `groups` or one fewer. A floor a
    // loaded host serves in its 1 s beside other tests (400 was missed there under psync).
    assert!(writes >= 160, "{writes} writes traced");
    assert_eq!(fua, 0, "no FUA write: the flushes are rigel's");
    // One committer: its groups run one after another, so the device sees exactly one flush per
    // 8 writes (the last group, cut by the window's end, may have no flush yet).
    let groups = writes / 8;
    assert!(
        flushes == groups || flushes + 1 == groups,
        "{writes} writes, {flushes} flushes (expected {groups})"
    );
    let (class, commit) = commits_of(&doc, flushes);
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

/// An open-loop class (`rate`, poisson arrivals) with `fdatasync:8`: its writes go on at their
/// send times while a flush is in flight, and the device still sees one flush per 8 writes.
#[test]
#[serial_test::serial]
fn fdatasync_8_on_a_poisson_rate_class_sends_one_flush_per_8_writes() {
    let (writes, flushes, fua, doc) =
        traced_fdatasync_8("rate = \"2000 iops\"\narrival = \"poisson\"\n", 16);
    assert!(writes >= 1000, "{writes} writes traced");
    assert_eq!(fua, 0, "no FUA write: the flushes are rigel's");
    // The class counts its completed writes into groups of 8 whatever slot carried them: one
    // flush per full group. Writes in flight when the point ends (16 at most) fill no group, and
    // flushes in flight together may reach the device as one (the block layer lets one flush
    // stand for those pending beside it: 245 for 249 groups at a load of 12 on 2 cores), so a
    // tenth fewer is allowed; a flush per write, or none, still fails.
    let groups = writes / 8;
    assert!(
        flushes <= groups && flushes * 10 >= groups * 9,
        "{writes} writes, {flushes} flushes (expected {groups}, or up to a tenth fewer)"
    );
    // At most one commit per 8 writes the device saw; not per flush it saw: flushes in flight
    // together may reach it as one (the block layer lets one flush stand for those pending beside
    // it), seen here as 249 commits over 248 flushes at a load of 12 on 2 cores.
    let (class, commit) = commits_of(&doc, groups);
    assert_eq!(class["pace"]["arrival"], "poisson", "{}", class["pace"]);
    // Writes are sent at their own times while a flush is in flight: the window's writes are
    // the schedule's, not held back to one group at a time.
    let scheduled = class["pace"]["scheduled"].as_u64().expect("scheduled");
    let ios = class["total"]["ios"].as_u64().expect("ios");
    assert!(
        ios * 10 >= scheduled * 8,
        "{ios} writes completed of {scheduled} scheduled"
    );
    // The commit runs from the group's earliest send time: never shorter than from its earliest
    // submission (the service view), which spans at least the flush.
    let mean = |v: &Value| v["mean_ns"].as_f64().expect("mean_ns");
    let (response, service, flush) = (
        mean(&commit["latency"]),
        mean(&commit["service"]),
        mean(&commit["flush"]),
    );
    assert!(
        response >= service && service >= flush,
        "commit {response} ns from the send time, {service} ns from the submission, flush {flush} ns"
    );
    assert!(commit["service_histogram"].is_string(), "{commit}");
}
