//! A worker that panics inside its loop with an I/O in flight: its drop guard drains that I/O
//! before the ring and the arena are freed, and the point ends at once.

use super::*;
use std::io::Read;
use std::time::{Duration, Instant};

#[test]
#[serial_test::parallel]
fn a_worker_panicking_with_io_in_flight_drains_it_before_freeing_the_arena() {
    // A silent pipe: the read in flight never completes by itself; only the drain's cancel ends
    // it.
    let (mut rd, mut wr) = pipe();
    let (volume, point) = one_pipe_read();
    let targets = [ExecTarget {
        fd: rd.as_fd(),
        path: "pipe",
    }];
    let ctl = PointControl::new(1);
    let options = ExecOptions {
        panic_after_turns: Some(1),
        ..ExecOptions::default()
    };
    let began = Instant::now();
    let res = run_point_with(
        &targets,
        &volume,
        &point,
        &settings(20_000, 0, 1),
        &ctl,
        options,
    );
    assert!(matches!(res, Err(ExecError::WorkerPanicked(0))), "{res:?}");
    // The panic ended the point (not the 20 s window), after the drain's cancel.
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "{:?}",
        began.elapsed()
    );
    // The arena is back in the run's pool: only a drained worker gives it back (one left to
    // the kernel is leaked; one dropped by the unwinding without a drain is unmapped).
    assert_eq!(format!("{:?}", ctl.reuse), "Reuse { 1 arenas }");
    // And the read is no longer in flight: what is written now stays in the pipe for us.
    wr.write_all(&[5u8; 4096]).expect("write the pipe");
    rustix::fs::fcntl_setfl(&rd, rustix::fs::OFlags::NONBLOCK)
        .expect("make the pipe's read end non-blocking");
    let mut back = [0u8; 4096];
    let n = rd
        .read(&mut back)
        .expect("the written bytes are still in the pipe");
    assert_eq!(n, 4096);
    assert!(back.iter().all(|&b| b == 5));
}
