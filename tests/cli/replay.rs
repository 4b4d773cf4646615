//! `rigel replay`, checked at the device: a known run on one loop device is captured, replayed on
//! another while a second capture watches it, and the second trace must hold the first one's
//! requests (sizes, directions, offsets, flushes) in its order, each sent at the traced time.

use super::builder::{results, rigel};
use super::capture::wait_recording;
use super::replay_sends::imported;
use super::scenario::Scenario;
use rigel_testkit::LoopDevice;
use rigel_trace::format::{Record, flag};
use std::path::Path;

/// Captures `dev` into `out` while `during` runs (the capture is stopped with SIGINT after it).
fn capturing(dev: &LoopDevice, out: &Path, during: impl FnOnce()) {
    let mut capture = rigel()
        .args(["capture", dev.dev(), "--duration", "60s", "--out"])
        .arg(out)
        .spawn();
    wait_recording(capture.id());
    during();
    let killed = std::process::Command::new("kill")
        .args(["-INT", &capture.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let status = capture.wait().expect("the capture ends");
    assert!(status.success(), "capture exited with {status}");
}

/// The requests of a trace that are not the kernel's readahead (udev's buffered probes of a
/// device that was opened or closed, which no replay sends).
fn requests(dir: &Path) -> Vec<Record> {
    let t = rigel_trace::folder::load(dir).expect("the trace");
    assert_eq!(t.header.dropped, 0, "the capture lost events");
    t.records
        .into_iter()
        .filter(|r| !r.has(flag::READAHEAD))
        .collect()
}

type Key = (rigel_trace::Op, u32, u64);

fn key(r: &Record) -> Key {
    (r.op, r.size, r.offset)
}

#[test]
#[serial_test::serial]
fn a_replayed_capture_reaches_another_device_in_the_traces_order_at_its_times() {
    let (a, b) = (LoopDevice::new(32 << 20), LoopDevice::new(32 << 20));
    // No merges: each device sees every request as it was sent (two adjacent ones sent in one
    // submission would otherwise reach it as one).
    for d in [&a, &b] {
        d.no_merges();
    }
    let tmp = Scenario::new();
    // A size mix, reads and writes on a skew, poisson sends; a few writes with RWF_DSYNC, which
    // the loop device (no FUA) receives as writes and flushes.
    let spec = format!(
        "[[target]]\npath = \"{}\"\ndestructive = true\n\n[run]\nduration = \"1500ms\"\n\n\
         [class.io]\nsize = \"4KiB:50%, 16KiB:30%, 64KiB:20%\"\nmix = \"70% read\"\n\
         distribution = \"zipf:1.1\"\nrate = \"2000 iops\"\narrival = \"poisson\"\n\n\
         [class.commit]\nsize = \"4KiB\"\nmix = \"write\"\ndurability = \"dsync\"\n\
         rate = \"100 iops\"\n\n[matrix]\nshape = \"point\"\nio = \"16\"\ncommit = \"1\"\n",
        a.dev()
    );
    let spec_path = tmp.path().join("spec.toml");
    std::fs::write(&spec_path, spec).expect("spec written");
    let (cap_a, cap_b) = (tmp.path().join("cap-a"), tmp.path().join("cap-b"));
    capturing(&a, &cap_a, || {
        rigel()
            .arg("run")
            .arg(&spec_path)
            .args(["--allow-destructive", "--out"])
            .arg(tmp.path().join("run"))
            .run()
            .code(0);
    });
    let replayed = tmp.path().join("replayed");
    capturing(&b, &cap_b, || {
        rigel()
            .arg("replay")
            .arg(&cap_a)
            .args(["--target", b.dev(), "--allow-destructive", "--out"])
            .arg(&replayed)
            .run()
            .code(0);
    });
    let (traced, seen) = (requests(&cap_a), requests(&cap_b));
    let flushes = traced
        .iter()
        .filter(|r| r.op == rigel_trace::Op::Flush)
        .count();
    assert!(flushes >= 50, "{flushes} flushes traced");
    // The replay starts where the second trace holds the first one's first 20 requests (before
    // it: the replay's own probe of its target), in any order within 40 requests from one of
    // them: a loaded host's kernel may hold one of them (a write io_uring hands to a worker, a
    // flush) past a few later ones, which the order check below bounds (under a load of 8, no
    // 20 in a row were exactly those).
    let (ka, kb): (Vec<Key>, Vec<Key>) = (
        traced.iter().map(key).collect(),
        seen.iter().map(key).collect(),
    );
    let head = &ka[..20];
    let holds_head = |w: &[Key]| {
        let mut left = head.to_vec();
        for k in w {
            if let Some(p) = left.iter().position(|x| x == k) {
                left.swap_remove(p);
            }
        }
        left.is_empty()
    };
    let start = (0..kb.len())
        .find(|&i| head.contains(&kb[i]) && holds_head(&kb[i..kb.len().min(i + 40)]))
        .expect("the trace's first 20 requests together at the second device");
    // Each traced request, in order, is matched to the next unused request of the same kind,
    // size and offset at the second device, looking at most 256 ahead.
    let mut used = vec![false; seen.len()];
    let mut from = start;
    let mut pairs = Vec::new();
    let mut merged_flushes = 0usize;
    for (j, k) in ka.iter().enumerate() {
        let found = (from..seen.len().min(from + 256)).find(|&i| !used[i] && kb[i] == *k);
        // Flushes pending together may reach the device as one (the block layer merges them):
        // a flush may go missing, counted below, never a read or a write.
        if found.is_none() && k.0 == rigel_trace::Op::Flush {
            merged_flushes += 1;
            continue;
        }
        let Some(i) = found else {
            panic!(
                "traced request {j} of {} ({k:?}) never reached the second device (looked \
                 from its request {from}: {:?})",
                ka.len(),
                &kb[from..kb.len().min(from + 8)]
            );
        };
        used[i] = true;
        pairs.push((j, i));
        while from < seen.len() && used[from] {
            from += 1;
        }
    }
    let flushes = ka.iter().filter(|k| k.0 == rigel_trace::Op::Flush).count();
    assert!(
        merged_flushes * 10 <= flushes,
        "{merged_flushes} of {flushes} traced flushes never reached the second device"
    );
    // What the second device got besides: only reads (probes of the device opened and closed).
    let extra: Vec<&Record> = (start..seen.len())
        .filter(|&i| !used[i])
        .map(|i| &seen[i])
        .collect();
    assert!(
        extra.iter().all(|r| r.op == rigel_trace::Op::Read) && extra.len() <= 200,
        "{} requests the trace did not hold: {:?}",
        extra.len(),
        &extra[..extra.len().min(10)]
    );
    // rigel's own account of its sends' lateness: the device must agree with it.
    let doc = results(&replayed);
    let pace = &doc["points"][0]["classes"][0]["pace"];
    let lag_p99 = pace["lag"]["latency"]["p99_ns"]
        .as_u64()
        .expect("the replay's lag");
    // The times: each request's issue at the second device minus its traced issue, against the
    // median of that difference (the replay's start). Positive is late.
    let tolerance = 1_000_000 + 2 * lag_p99;
    let late: Vec<i64> = {
        let d: Vec<i64> = pairs
            .iter()
            .map(|&(j, i)| seen[i].issue_ns as i64 - traced[j].issue_ns as i64)
            .collect();
        let mut sorted = d.clone();
        sorted.sort_unstable();
        let mid = sorted[sorted.len() / 2];
        d.iter().map(|x| x - mid).collect()
    };
    // The order: a request reaches the device before one traced earlier only when both were
    // sent close together (within 1 ms, or within rigel's lag on a host so loaded that it was
    // late), when the earlier is a flush, or when the earlier one reached the device late by
    // the gap: the kernel held it after rigel sent it (io_uring hands a write that would block,
    // and every fsync, to a worker thread, which a busy host may run milliseconds later). A
    // replay that sent out of order shows instead as the later request reaching the device
    // early, which no kernel delay explains.
    let flush = |j: usize| traced[j].op == rigel_trace::Op::Flush;
    let mut held = 0usize;
    for (p, w) in pairs.windows(2).enumerate() {
        let ((j0, i0), (_, i1)) = (w[0], w[1]);
        if i1 < i0 && !flush(j0) {
            let apart = seen[i0].issue_ns.abs_diff(seen[i1].issue_ns);
            if apart < tolerance {
                continue;
            }
            let (late0, early1) = (late[p], -late[p + 1]);
            assert!(
                early1 < tolerance as i64 && late0 + tolerance as i64 >= apart as i64,
                "{w:?}: reordered {apart} ns apart, the earlier {late0} ns late, the later \
                 {early1} ns early"
            );
            held += 1;
        }
    }
    assert!(
        held * 100 <= pairs.len(),
        "{held} of {} requests held back by the kernel past the next",
        pairs.len()
    );
    let mut err: Vec<u64> = late.iter().map(|x| x.unsigned_abs()).collect();
    err.sort_unstable();
    let p99 = err[err.len() * 99 / 100];
    // 1 ms at p99 when rigel sent on time; on a host so loaded that it did not, the device's
    // error is what rigel reported as its lag, no more.
    assert!(
        p99 <= tolerance,
        "send times off the trace's by {p99} ns at p99 (rigel's lag p99 {lag_p99} ns)"
    );
    eprintln!(
        "{} requests replayed in order, {} extra reads; send time error p99 {:.3} ms, max {:.3} \
         ms; rigel's lag p99 {:.3} ms",
        pairs.len(),
        extra.len(),
        p99 as f64 / 1e6,
        err[err.len() - 1] as f64 / 1e6,
        lag_p99 as f64 / 1e6
    );
    // The replay's folder reports like any run's, flushes as commits.
    assert!(doc["points"][0]["classes"][0]["commit"]["commits"].as_u64() > Some(0));
    rigel().arg("report").arg(&replayed).run().code(0);
    // It sent at the trace's times, not by a drawn arrival: its pacing says so, and no warning
    // holds it to a uniform schedule it never claimed.
    let md = std::fs::read_to_string(replayed.join("report.md")).expect("report.md");
    assert!(md.contains("the trace's times (replay)"), "{md}");
    assert!(!md.contains("| uniform |"), "{md}");
    assert!(!md.contains("the uniform arrival"), "{md}");
}

#[test]
#[serial_test::parallel]
fn a_replay_needs_a_target_that_holds_its_requests_and_consent_to_write() {
    let tmp = Scenario::new();
    let cap = imported(
        &tmp,
        "fio version 2 iolog\n/x add\n/x open\n/x write 0 65536\n/x read 1048576 4096\n/x close\n",
    );
    // A target smaller than the largest request.
    rigel()
        .arg("replay")
        .arg(&cap)
        .arg("--target")
        .arg(tmp.path().join("small.dat"))
        .args(["--size", "32KiB"])
        .run()
        .code(2)
        .stderr_has("smaller than the trace's largest request");
    // A file rigel did not make: writes need consent, as for `rigel run`.
    let theirs = tmp.path().join("theirs.dat");
    std::fs::write(&theirs, vec![7u8; 4 << 20]).expect("a file of someone else's");
    rigel()
        .arg("replay")
        .arg(&cap)
        .arg("--target")
        .arg(&theirs)
        .args(["--out"])
        .arg(tmp.path().join("r1"))
        .run()
        .code(1);
    assert_eq!(
        std::fs::read(&theirs).expect("still there"),
        vec![7u8; 4 << 20],
        "the replay wrote without consent"
    );
    // A new file rigel makes: the requests land, wrapped onto its 1 MiB (the read at 1 MiB
    // wraps to 0), at twice the speed.
    rigel()
        .arg("replay")
        .arg(&cap)
        .arg("--target")
        .arg(tmp.path().join("mine.dat"))
        .args(["--size", "1MiB", "--speed", "2x", "--out"])
        .arg(tmp.path().join("r2"))
        .run()
        .code(0);
    let doc = results(&tmp.path().join("r2"));
    let total = &doc["points"][0]["classes"][0]["total"];
    assert_eq!(total["ios"].as_u64(), Some(2), "{total}");
    assert_eq!(total["bytes"].as_u64(), Some(65536 + 4096), "{total}");
    rigel()
        .arg("replay")
        .arg(&cap)
        .arg("--target")
        .arg(tmp.path().join("x.dat"))
        .args(["--size", "1MiB", "--speed", "fast"])
        .run()
        .code(2)
        .stderr_has("--speed");
}

/// A trace's header is data: a device name carrying a `[[target]]` table stays in a comment, and
/// the replay plans (and writes) only the target named on the command line.
#[test]
#[serial_test::parallel]
fn a_hostile_trace_header_adds_no_target() {
    let tmp = Scenario::new();
    let cap = imported(
        &tmp,
        "fio version 2 iolog\n/x add\n/x open\n/x write 0 65536\n/x read 1048576 4096\n/x close\n",
    );
    let evil = tmp.path().join("evil.dat");
    let mut trace = rigel_trace::folder::load(&cap).expect("the imported trace");
    trace.header.device = format!(
        "/dev/sdz\n[[target]]\npath = {:?}\nsize = \"1MiB\"\ndestructive = true\n",
        evil.display().to_string()
    );
    let hostile = tmp.path().join("hostile");
    rigel_trace::folder::save(&hostile, &trace).expect("the hostile trace saved");
    let out = tmp.path().join("r");
    rigel()
        .arg("replay")
        .arg(&hostile)
        .arg("--target")
        .arg(tmp.path().join("mine.dat"))
        .args(["--size", "1MiB", "--allow-destructive", "--out"])
        .arg(&out)
        .run()
        .code(0);
    assert!(
        !evil.exists(),
        "the trace's header made rigel write {}",
        evil.display()
    );
    let spec: toml::Value =
        toml::from_str(&std::fs::read_to_string(out.join("spec.toml")).expect("the run's spec"))
            .expect("TOML");
    let targets = spec["target"].as_array().expect("targets");
    assert_eq!(targets.len(), 1, "{spec}");
}

/// `rigel derive` of a trace whose header fields (device, model, host, kernel, start, source,
/// clock) each carry a `[[target]]` table: the derived spec plans `${target}` alone, and
/// `rigel check` accepts it.
#[test]
#[serial_test::parallel]
fn a_hostile_trace_header_derives_a_spec_of_one_target() {
    let tmp = Scenario::new();
    let cap = imported(
        &tmp,
        "fio version 2 iolog\n/x add\n/x open\n/x write 0 65536\n/x read 1048576 4096\n/x close\n",
    );
    let evil = tmp.path().join("evil.dat");
    let table = format!(
        "\n[[target]]\npath = {:?}\nsize = \"1MiB\"\ndestructive = true\n",
        evil.display().to_string()
    );
    let mut trace = rigel_trace::folder::load(&cap).expect("the imported trace");
    let h = &mut trace.header;
    h.device = format!("/dev/sdz{table}");
    h.model = Some(table.clone());
    for field in [
        &mut h.host,
        &mut h.kernel,
        &mut h.start,
        &mut h.source,
        &mut h.clock,
    ] {
        *field = table.clone();
    }
    let hostile = tmp.path().join("hostile");
    rigel_trace::folder::save(&hostile, &trace).expect("the hostile trace saved");
    rigel().arg("derive").arg(&hostile).run().code(0);
    let derived = hostile.join("spec.toml");
    let spec: toml::Value =
        toml::from_str(&std::fs::read_to_string(&derived).expect("the derived spec"))
            .expect("TOML");
    let targets = spec["target"].as_array().expect("targets");
    assert_eq!(targets.len(), 1, "{spec}");
    assert_eq!(targets[0]["path"].as_str(), Some("${target}"), "{spec}");
    rigel().arg("check").arg(&derived).run().code(0);
}
