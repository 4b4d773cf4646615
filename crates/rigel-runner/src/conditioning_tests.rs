//! The executor's I/O budget as the fill uses it, on a real tmpfs file with O_DIRECT: a point
//! ends after exactly its budget (split over workers), long before its window, and a sequential
//! pass of one volume of I/Os writes every block.

use rigel_exec::{self as exec, ExecOptions, ExecTarget, PointControl};
use rigel_expr::{Access, Mix};
use rigel_plan::{ClassLoad, DataPoint, Layout, PreconditionPlan, RunSettings};
use rigel_results::PointStatus;
use rigel_target::Volume;
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt;
use std::time::{Duration, Instant};

const SIZE: u64 = 1 << 20;

fn settings(workers: u32) -> RunSettings {
    RunSettings {
        duration_ms: 10_000,
        warmup_ms: 0,
        io_timeout_ms: 30_000,
        direct: true,
        buffers: Default::default(),
        seed: 7,
        workers,
        verify: None,
        sqpoll: None,
        polled: false,
        zones: false,
    }
}

/// Runs `point` on a zeroed 1 MiB tmpfs file with a budget of `ios`: the completed (I/Os, bytes),
/// the time taken, and the file's content after.
fn budgeted(point: &DataPoint, workers: u32, ios: u64) -> (u64, u64, Duration, Vec<u8>) {
    let dir = tempfile::tempdir_in("/dev/shm").expect("a tmpfs dir");
    let path = dir.path().join("t.bin");
    std::fs::write(&path, vec![0u8; SIZE as usize]).expect("zeroed file");
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_DIRECT)
        .open(&path)
        .expect("O_DIRECT on tmpfs");
    let targets = [ExecTarget {
        fd: file.as_fd(),
        path: "t.bin",
    }];
    let volume = Volume::new(Layout::Concat, 1 << 20, &[SIZE]);
    let ctl = PointControl::new(1);
    let options = ExecOptions {
        ios: Some(ios),
        ..ExecOptions::default()
    };
    let t = Instant::now();
    let (r, _) = exec::run_point_with(&targets, &volume, point, &settings(workers), &ctl, options)
        .expect("the point runs");
    let took = t.elapsed();
    assert!(matches!(r.status, PointStatus::Ok), "{:?}", r.status);
    let (done, bytes) = ctl.live.total();
    (done, bytes, took, std::fs::read(&path).expect("read back"))
}

#[test]
fn a_budget_ends_the_point_after_exactly_that_many_ios_over_workers() {
    let point = DataPoint {
        id: 1,
        sweep: Vec::new(),
        classes: vec![ClassLoad {
            class: "w".into(),
            size: 4096,
            access: Access::Random,
            mix: Mix::reads_of(0),
            load: 8,
            per_stream: 1,
            outstanding: 8,
            rate: None,
            arrival: Default::default(),
            pattern: Default::default(),
            engine: Default::default(),
        }],
    };
    // Odd, so the two workers' shares differ by one.
    let (ios, bytes, took, _) = budgeted(&point, 2, 1001);
    assert_eq!((ios, bytes), (1001, 1001 * 4096));
    assert!(
        took < Duration::from_secs(5),
        "ended by its window: {took:?}"
    );
}

#[test]
fn a_sequential_pass_writes_every_block_once() {
    let plan = PreconditionPlan {
        passes: 1,
        pattern: Access::Sequential,
        size: 4096,
        depth: 16,
        pass_limit_ms: 10_000,
        read: false,
        bytes: None,
    };
    let (ios, _, _, content) = budgeted(&plan.pass_point(0), 1, SIZE / 4096);
    assert_eq!(ios, SIZE / 4096);
    // Write data is random: a block still all zeros was never written.
    let untouched = content
        .chunks(4096)
        .filter(|b| b.iter().all(|&x| x == 0))
        .count();
    assert_eq!(untouched, 0);
}
