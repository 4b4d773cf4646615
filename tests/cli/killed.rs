//! A rigel SIGKILLed with I/O in flight, and the next rigel on its target: the killed one's
//! io_uring is torn down by the kernel after the process is gone, and until the device has
//! answered the I/O the ring still holds the target open, so its flock (and a written block
//! device's O_EXCL claim) outlive the process. The next rigel waits for that, saying so, and
//! starts; a live rigel is refused at once. The I/O is held in flight by a FUSE file's stall
//! (tests/support/faultfs.rs) under a loop device, so they need root and /dev/fuse (`.ci/run` has
//! both).

use super::builder::rigel;
use super::faults::faultfs::{self, Faults};
use super::faults::signal;
use super::scenario::Spec;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What the next rigel prints while it waits (rigel_fs::lock::ExitedWait).
const WAITING: &str = "waiting (at most 5 s) for a rigel that has exited";

/// 4 KiB random I/O on `target` (`mix`: "read" or "write") for `duration`, one point at QD 4.
fn spec(dir: &Path, name: &str, target: &Path, mix: &str, duration: &str) -> PathBuf {
    let spec = Spec::named(name)
        .destructive_target(target)
        .set("run.duration", duration)
        .set("class.io.size", "4KiB")
        .set("class.io.mix", mix)
        .set("matrix.io", "4");
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, spec.text()).expect("spec written");
    path
}

// Not a timing test: it waits for what it needs (the writer's lock, its I/O, the stall), and
// its bounds (a refusal within 5 s, a wait of at most 5 s) are for hangs, so it runs beside others.
#[test]
#[serial_test::parallel]
fn the_target_of_a_rigel_killed_with_io_in_flight_is_taken_by_the_next_and_a_live_one_refuses() {
    let fs = faultfs::mounted(Faults::new(16 << 20));
    let dev = fs.loop_device().expect("a loop device over the FUSE file");
    let tmp = tempfile::tempdir().expect("tmp");
    let writer = spec(tmp.path(), "writer", &dev.dev, "write", "60s");
    // The next rigel reads (the killed writer's flock refused it) or writes (its O_EXCL claim on
    // the device refused it first).
    for (round, next_mix) in ["read", "write"].into_iter().enumerate() {
        let killed = rigel()
            .args(["run", "-q", "--allow-destructive"])
            .arg(&writer)
            .arg("--out")
            .arg(tmp.path().join(format!("killed-{round}")))
            .spawn();
        let pid = killed.id();
        let deadline = Instant::now() + Duration::from_secs(60);
        // The writer holds the device's lock (in /proc/locks, under its pid) and has written:
        // I/O counts alone do not say it, since udev's probe of a new loop device reads it too.
        let device = std::fs::File::open(&dev.dev).expect("the loop device opens");
        while !rigel_fs::lock::others_holding(&device).contains(&pid) {
            assert!(
                Instant::now() < deadline,
                "the writer never locked its target"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        let start = fs.ios();
        while fs.ios() < start + 100 {
            assert!(Instant::now() < deadline, "the writer never wrote");
            std::thread::sleep(Duration::from_millis(10));
        }
        let next_spec = spec(tmp.path(), next_mix, &dev.dev, next_mix, "300ms");
        let next_run = |out: &str| {
            rigel()
                .args(["run", "-q", "--allow-destructive"])
                .arg(&next_spec)
                .arg("--out")
                .arg(tmp.path().join(format!("{out}-{round}")))
                .run()
        };
        // Alive, it refuses the next rigel at once, and nothing is waited for.
        let started = Instant::now();
        let refused = next_run("refused");
        let took = started.elapsed();
        assert_eq!(refused.code, 1, "{}", refused.stderr);
        assert!(!refused.stderr.contains(WAITING), "{}", refused.stderr);
        assert!(took < Duration::from_secs(5), "refused after {took:?}");
        let holder = format!("(pid {pid})");
        assert!(refused.stderr.contains(&holder), "{}", refused.stderr);
        // One I/O held in the device for 3 s; rigel killed while it is: gone, reaped.
        fs.stall_next(Duration::from_secs(3));
        while fs.stalled() <= round as u64 {
            assert!(Instant::now() < deadline, "no I/O stalled");
            std::thread::sleep(Duration::from_millis(5));
        }
        signal(&killed, "-KILL");
        let done = killed.wait_with_output().expect("rigel is gone");
        assert_eq!(done.status.code(), None, "the writer ended before the kill");
        let next = next_run("next");
        assert_eq!(next.code, 0, "{}", next.stderr);
        assert!(!next.stderr.contains("in use"), "{}", next.stderr);
        // The reader did wait: the stalled I/O kept the killed rigel's target locked past its
        // end. A writer first reads the device's first and last blocks (the signature check),
        // which queue behind the stalled I/O in the loop device, so it comes to the O_EXCL open
        // as the ring is torn down: it waits or not, and is let in.
        if next_mix == "read" {
            assert!(next.stderr.contains(WAITING), "{}", next.stderr);
        }
    }
}
