//! Which entry a worker chose, on real I/O: submit-only while reads complete during their
//! submission (buffered reads of a cached file on ext4), a waiting entry for a device's reads.

use super::*;

/// `file` read at queue depth 1 for 300 ms; the point's probe.
fn probe_qd1(file: &File, path: &str, direct: bool) -> PointProbe {
    // The worker (started from this thread, so at its priority) ahead of the host's other work:
    // beside a build, one that lost its CPU for 40 ms across an edge of this 300 ms window held
    // 0.87 of its one I/O in flight.
    rustix::process::setpriority_process(None, -20).expect("nice -20 (the tests run as root)");
    let mut run_settings = settings(300, 0, 1);
    run_settings.direct = direct;
    let classes = vec![class("small", 4 * KIB, Access::Random, 100, 1, 1)];
    let (result, probe) = run(&[(file, path)], Layout::Concat, classes, &run_settings);
    assert_load_kept(&result, &probe);
    probe
}

#[test]
#[serial_test::serial]
fn page_cache_reads_are_entered_submit_only() {
    // A buffered read of a cached page completes during the submission where the filesystem
    // serves it without blocking (ext4, xfs, btrfs). tmpfs does not: io_uring hands its reads,
    // buffered or O_DIRECT, to its worker threads, and they complete later.
    let (t, buffered) = cached_ext4_file("inline");
    let probe = probe_qd1(&buffered, t.path(), false);
    assert!(
        probe.inline_turns * 10 >= probe.batches * 9,
        "{} of {} turns submit-only",
        probe.inline_turns,
        probe.batches
    );
}

/// An 8 MiB file in /tmp opened for buffered reads, every page read once so that the point's
/// reads all find it cached; panics where /tmp is tmpfs, which completes no read during its
/// submission (on this machine and CI's, /tmp is on the root filesystem, ext4).
fn cached_ext4_file(name: &str) -> (TempTarget, File) {
    let tmpfs = rustix::fs::statfs("/tmp").map(|fs| fs.f_type == TMPFS_MAGIC);
    assert!(
        matches!(tmpfs, Ok(false)),
        "this test needs /tmp on a disk filesystem, not tmpfs ({tmpfs:?})"
    );
    let t = TempTarget::new("/tmp", name, 8 * MIB);
    let buffered = File::open(&t.path).expect("open buffered");
    std::io::copy(&mut &buffered, &mut std::io::sink()).expect("read the file once");
    (t, buffered)
}

/// statfs's f_type of tmpfs.
const TMPFS_MAGIC: i64 = 0x0102_1994;

#[test]
#[serial_test::serial]
fn device_reads_wait_in_the_kernel() {
    let dev = LoopTarget::new(8 * MIB, true);
    let probe = probe_qd1(&dev.file, &dev.dev, true);
    // One submit-only try per 257 turns, and none of them finds a completion: a loop device
    // completes from its own worker thread, and DEFER_TASKRUN delivers it to a waiting entry.
    assert!(probe.batches > 100, "{} turns", probe.batches);
    assert!(
        probe.submit_only * 100 <= probe.batches,
        "{} submit-only entries in {} turns",
        probe.submit_only,
        probe.batches
    );
    assert!(
        probe.inline_turns <= probe.submit_only,
        "{} inline of {} tried",
        probe.inline_turns,
        probe.submit_only
    );
}

#[test]
#[serial_test::serial]
fn stop_is_seen_while_submitting_only() {
    // Submit-only entries never deliver the timer; the waiting entry every millisecond does.
    let (t, file) = cached_ext4_file("stop-inline");
    assert_stop_ends_the_point(&file, t.path(), 1, false);
}
