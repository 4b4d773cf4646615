//! Real-I/O tests of the executor: O_DIRECT files on tmpfs (/dev/shm) and ext4 (/tmp), and loop
//! devices over tmpfs files (as root, as `.ci/run` runs). Each point runs for about half a second; the
//! tests that measure time or Little's law are `#[serial]`: one at a time, and never beside the
//! module's other real-I/O tests (`#[parallel]`: they run side by side only with each other), so
//! that no other test's I/O threads compete with a measured one's for the CPU.

use super::*;
use rigel_expr::{Access, Mix};
use rigel_plan::{ClassLoad, DataPoint, Layout, RunSettings};
use rigel_results::{PointResult, PointStatus};
use rigel_target::Volume;
use rigel_testkit::LoopDevice;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

mod engines;
mod entering;
mod placement;
mod policy;
mod unwind;
mod verify;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;

/// A test file filled with random data, removed on drop.
struct TempTarget {
    path: PathBuf,
    file: File,
}

impl TempTarget {
    fn new(dir: &str, name: &str, size: u64) -> TempTarget {
        let path = Path::new(dir).join(format!("rigel-exec-{}-{name}", std::process::id()));
        let mut f = File::create(&path).expect("create test file");
        let mut rng = fastrand::Rng::with_seed(size);
        let mut chunk = vec![0u8; MIB as usize];
        let mut left = size;
        while left > 0 {
            rng.fill(&mut chunk);
            let n = left.min(MIB) as usize;
            f.write_all(&chunk[..n]).expect("fill test file");
            left -= n as u64;
        }
        f.sync_all().expect("sync test file");
        let file = open_direct(&path, true);
        TempTarget { path, file }
    }

    fn path(&self) -> &str {
        self.path.to_str().expect("utf-8 temp path")
    }
}

impl Drop for TempTarget {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

fn open_direct(path: &Path, write: bool) -> File {
    OpenOptions::new()
        .read(true)
        .write(write)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .expect("open O_DIRECT")
}

/// A loop device (`rigel_testkit`'s, detached on drop) and an O_DIRECT handle on it.
struct LoopTarget {
    // Declared first, so closed before the device is detached.
    file: File,
    dev: String,
    _device: LoopDevice,
}

impl LoopTarget {
    /// Panics, saying why, when not root or losetup is unavailable (`.ci/run` runs as root).
    fn new(size: u64, read_only: bool) -> LoopTarget {
        let device = LoopDevice::with(size, if read_only { &["-r"] } else { &[] });
        let file = open_direct(device.path(), true);
        LoopTarget {
            file,
            dev: device.dev().to_owned(),
            _device: device,
        }
    }
}

fn class(
    name: &str,
    size: u64,
    access: Access,
    read_percent: u8,
    load: u32,
    per_stream: u32,
) -> ClassLoad {
    let per_stream = if access == Access::Random {
        1
    } else {
        per_stream
    };
    ClassLoad {
        class: name.into(),
        size,
        access,
        mix: Mix::reads_of(read_percent),
        load,
        per_stream,
        outstanding: load * per_stream,
        rate: None,
        arrival: Default::default(),
        pattern: Default::default(),
        engine: Default::default(),
    }
}

fn settings(duration_ms: u64, warmup_ms: u64, workers: u32) -> RunSettings {
    RunSettings {
        duration_ms,
        warmup_ms,
        io_timeout_ms: 30_000,
        direct: true,
        buffers: Default::default(),
        seed: 42,
        workers,
        verify: None,
        sqpoll: None,
        polled: false,
        zones: false,
    }
}

fn run(
    files: &[(&File, &str)],
    layout: Layout,
    classes: Vec<ClassLoad>,
    run: &RunSettings,
) -> (PointResult, PointProbe) {
    let ctl = PointControl::new(classes.len());
    run_with(files, layout, classes, run, &ctl)
}

/// `run` under the caller's controls.
fn run_with(
    files: &[(&File, &str)],
    layout: Layout,
    classes: Vec<ClassLoad>,
    run: &RunSettings,
    ctl: &PointControl,
) -> (PointResult, PointProbe) {
    run_options(files, layout, classes, run, ctl, ExecOptions::default()).expect("point runs")
}

/// `run_with` with explicit executor options (the fake engine, no registration), and the
/// point's error if it could not run: the one place the tests build a volume and a point.
fn run_options(
    files: &[(&File, &str)],
    layout: Layout,
    classes: Vec<ClassLoad>,
    run: &RunSettings,
    ctl: &PointControl,
    options: ExecOptions,
) -> Result<(PointResult, PointProbe), ExecError> {
    let sizes: Vec<u64> = files
        .iter()
        .map(|(f, _)| {
            let m = f.metadata().expect("metadata");
            if m.len() > 0 { m.len() } else { block_size(f) }
        })
        .collect();
    let volume = Volume::new(layout, MIB, &sizes);
    let targets: Vec<ExecTarget> = files
        .iter()
        .map(|(f, p)| ExecTarget {
            fd: f.as_fd(),
            path: p,
        })
        .collect();
    let point = DataPoint {
        id: 1,
        sweep: vec![],
        classes,
    };
    run_point_with(&targets, &volume, &point, run, ctl, options)
}

/// A block device's size (BLKGETSIZE64).
fn block_size(f: &File) -> u64 {
    use std::io::{Seek, SeekFrom};
    // A block device's end is its size (lseek SEEK_END, as BLKGETSIZE64 reports it).
    let mut f = f.try_clone().expect("dup the device");
    f.seek(SeekFrom::End(0)).expect("seek the device's end")
}

/// The loop kept every class at its outstanding count, and the latencies obey Little's law:
/// IOPS × mean latency is the depth held (the recorded time-average in flight) within 2% — each
/// I/O's latency starts at the clock reading it is counted in flight from, even when a batch's
/// earlier replacements delay its submission (`submit_each`).
fn assert_load_kept(result: &PointResult, probe: &PointProbe) {
    assert_littles_law(result, probe);
}

/// As `assert_load_kept`; returns each class's IOPS × mean latency over its outstanding count.
fn assert_littles_law(result: &PointResult, probe: &PointProbe) -> Vec<f64> {
    let mut littles = Vec::new();
    assert_eq!(result.status, PointStatus::Ok);
    for (c, p) in result.classes.iter().zip(&probe.classes) {
        let want = c.outstanding as f64;
        // The depth held counts the spans between the worker's clock readings that end in the
        // window (`window.rs`): a worker that lost its CPU for a few ms across an edge of these
        // short windows moves it by that share, on a loaded host.
        assert!(
            (p.mean_in_flight - want).abs() <= 0.05 * want,
            "{}: mean in flight {} for {} outstanding",
            c.class,
            p.mean_in_flight,
            want
        );
        let little = c.total.iops * c.total.latency.mean_ns / 1e9;
        eprintln!(
            "{}: outstanding {want}, in flight {:.4}, Little {little:.4}, {:.0} IOPS, {} batches",
            c.class, p.mean_in_flight, c.total.iops, probe.batches
        );
        assert_eq!(c.depth_held, Some(p.mean_in_flight), "{}", c.class);
        // Within 2%, and the window's edges: at most `outstanding` I/Os straddle each edge, each
        // counted whole in IOPS and latency but only partly in the depth held (depth 4 over a
        // slow class's few hundred I/Os was 3% apart on a loaded host).
        let edges = 2.0 * want / (c.total.ios.max(1) as f64);
        assert!(
            (little / p.mean_in_flight - 1.0).abs() <= 0.02 + edges,
            "{}: IOPS {} × mean {} ns = {} for a depth held of {}",
            c.class,
            c.total.iops,
            c.total.latency.mean_ns,
            little,
            p.mean_in_flight
        );
        // Enough I/Os that the edges' allowance stays under a third (a debug build's 1 MiB copies
        // on a busy 2-core host made 45 in a 400 ms window).
        assert!(
            c.total.ios as f64 >= 6.0 * want,
            "{}: only {} I/Os",
            c.class,
            c.total.ios
        );
        littles.push(little / want);
    }
    littles
}

#[test]
#[serial_test::serial]
fn tmpfs_random_and_sequential_classes_keep_their_load() {
    let t = TempTarget::new("/dev/shm", "load", 64 * MIB);
    let classes = vec![
        class("small", 4 * KIB, Access::Random, 100, 8, 1),
        class("large", MIB, Access::Sequential, 100, 2, 2),
    ];
    let (r, p) = run(
        &[(&t.file, t.path())],
        Layout::Concat,
        classes,
        &settings(600, 100, 2),
    );
    assert_eq!(p.workers, 2);
    assert_load_kept(&r, &p);
    assert_eq!(r.elapsed_s, 0.6);
    assert!(
        p.fixed_buffers && p.fixed_files,
        "root registers buffers and files"
    );
    let small = r.class("small").expect("small");
    assert_eq!(small.total.bytes, small.total.ios * 4 * KIB);
    assert!(small.write.is_none());
    assert_eq!(small.intervals.len(), 1);
    assert_eq!(small.intervals[0].ios, small.total.ios);
    assert!(small.total.latency.p99_ns >= small.total.latency.p50_ns);
    assert!(r.cpu.user_s + r.cpu.system_s > 0.0);
}

#[test]
#[serial_test::serial]
fn huge_page_buffers_carry_reads_and_writes() {
    let t = TempTarget::new("/dev/shm", "huge", 64 * MIB);
    let mut s = settings(400, 50, 1);
    s.buffers = rigel_plan::Buffers::Huge;
    let classes = vec![class("big", MIB, Access::Random, 50, 4, 1)];
    let (r, p) = run(&[(&t.file, t.path())], Layout::Concat, classes, &s);
    assert_load_kept(&r, &p);
    assert!(p.fixed_buffers, "a huge-page arena registers as any other");
    let big = r.class("big").expect("big");
    let (reads, writes) = (big.read.as_ref(), big.write.as_ref());
    assert!(reads.is_some_and(|d| d.ios > 0) && writes.is_some_and(|d| d.ios > 0));
    assert_eq!(big.total.bytes, big.total.ios * MIB);
}

#[test]
#[serial_test::serial]
fn without_registration_plain_reads_and_writes_do_the_same_work() {
    let t = TempTarget::new("/dev/shm", "plain", 16 * MIB);
    let ctl = PointControl::new(1);
    let options = ExecOptions {
        register_buffers: false,
        register_files: false,
        ..ExecOptions::default()
    };
    let (r, p) = run_options(
        &[(&t.file, t.path())],
        Layout::Concat,
        vec![class("small", 4 * KIB, Access::Random, 50, 4, 1)],
        &settings(300, 0, 1),
        &ctl,
        options,
    )
    .expect("point runs");
    assert!(!p.fixed_buffers && !p.fixed_files);
    assert_load_kept(&r, &p);
    let notes = ctl.live.notes();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].contains("plain reads and writes"));
}

#[test]
#[serial_test::serial]
fn a_deep_queue_is_kept_full() {
    let t = TempTarget::new("/dev/shm", "deep", 64 * MIB);
    let classes = vec![class("small", 4 * KIB, Access::Random, 100, 1000, 1)];
    let (r, p) = run(
        &[(&t.file, t.path())],
        Layout::Concat,
        classes,
        &settings(400, 50, 1),
    );
    assert_load_kept(&r, &p);
}

#[test]
#[serial_test::serial]
fn ext4_mixed_class_honours_the_read_ratio() {
    let t = TempTarget::new("/tmp", "mix", 32 * MIB);
    let classes = vec![class("small", 8 * KIB, Access::Random, 70, 4, 1)];
    let (r, p) = run(
        &[(&t.file, t.path())],
        Layout::Concat,
        classes,
        &settings(1200, 0, 1),
    );
    assert_load_kept(&r, &p);
    let c = &r.classes[0];
    // Two intervals, the second a partial 0.2 s; together they hold every I/O of the window.
    let t_s: Vec<f64> = c.intervals.iter().map(|i| i.t_s).collect();
    assert_eq!(t_s, vec![1.0, 1.2]);
    assert_eq!(c.intervals.iter().map(|i| i.ios).sum::<u64>(), c.total.ios);
    assert!(
        c.intervals
            .iter()
            .all(|i| i.ios > 0 && i.p99_ns > 0 && i.mean_ns > 0.0)
    );
    let reads = c.read.as_ref().expect("reads").ios as f64;
    let writes = c.write.as_ref().expect("writes").ios as f64;
    let share = reads / (reads + writes);
    // Binomial: 5 standard deviations around 70%.
    let sd = (0.7 * 0.3 / (reads + writes)).sqrt();
    assert!((share - 0.7).abs() < 5.0 * sd + 1e-9, "read share {share}");
}

#[test]
#[serial_test::serial]
fn raid0_and_concat_over_several_files_keep_the_load() {
    let a = TempTarget::new("/dev/shm", "vol-a", 16 * MIB);
    let b = TempTarget::new("/dev/shm", "vol-b", 24 * MIB);
    for layout in [Layout::Concat, Layout::Raid0] {
        let classes = vec![class("small", 8 * KIB, Access::Random, 50, 6, 1)];
        let files = [(&a.file, a.path()), (&b.file, b.path())];
        let (r, p) = run(&files, layout, classes, &settings(300, 0, 2));
        assert_load_kept(&r, &p);
    }
}

#[test]
#[serial_test::parallel]
fn written_data_is_random_not_zeros() {
    let t = TempTarget::new("/dev/shm", "wdata", 4 * MIB);
    // Zero the file first so anything non-zero afterwards came from the executor.
    std::fs::write(&t.path, vec![0u8; 4 * MIB as usize]).expect("zero file");
    let classes = vec![class("large", MIB, Access::Sequential, 0, 1, 1)];
    let (r, _) = run(
        &[(&t.file, t.path())],
        Layout::Concat,
        classes,
        &settings(200, 0, 1),
    );
    assert!(r.classes[0].write.as_ref().expect("writes").ios >= 4);
    let data = std::fs::read(&t.path).expect("read back");
    let zeros = data.iter().filter(|&&b| b == 0).count();
    assert!(
        zeros < data.len() / 100,
        "{zeros} zero bytes of {}",
        data.len()
    );
}

#[test]
#[serial_test::serial]
fn stop_flag_ends_the_point_within_a_second() {
    let t = TempTarget::new("/dev/shm", "stop", 8 * MIB);
    let ctl = assert_stop_ends_the_point(&t.file, t.path(), 2, true);
    assert!(ctl.live.total().0 > 0, "live counters moved");
}

/// Runs a 20 s point of `load` 4 KiB random reads of the 8 MiB `file`, raises the stop flag
/// 200 ms in (or, on a host slow to set the point up, once its first I/O completed, within 5 s),
/// and asserts that the point ends, interrupted, within a second of the flag. Returns its
/// controls.
fn assert_stop_ends_the_point(file: &File, path: &str, load: u32, direct: bool) -> PointControl {
    let volume = Volume::new(Layout::Concat, MIB, &[8 * MIB]);
    let targets = [ExecTarget {
        fd: file.as_fd(),
        path,
    }];
    let point = DataPoint {
        id: 1,
        sweep: vec![],
        classes: vec![class("small", 4 * KIB, Access::Random, 100, load, 1)],
    };
    let mut run_settings = settings(20_000, 0, 1);
    run_settings.direct = direct;
    let ctl = PointControl::new(1);
    let (stop, live) = (ctl.stop.clone(), ctl.live.clone());
    let raiser = std::thread::spawn(move || {
        let began = std::time::Instant::now();
        std::thread::sleep(std::time::Duration::from_millis(200));
        while live.total().0 == 0 && began.elapsed() < std::time::Duration::from_secs(5) {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        std::time::Instant::now()
    });
    let res = run_point(&targets, &volume, &point, &run_settings, &ctl);
    let ended = std::time::Instant::now();
    assert!(matches!(res, Err(ExecError::Interrupted)), "{res:?}");
    let raised = raiser.join().expect("the stop flag raised");
    assert!(
        ended.duration_since(raised) < std::time::Duration::from_secs(1),
        "ended {:?} after the stop flag",
        ended.duration_since(raised)
    );
    ctl
}

#[test]
#[serial_test::parallel]
fn a_class_too_large_for_the_volume_is_refused() {
    let t = TempTarget::new("/dev/shm", "small", MIB);
    let volume = Volume::new(Layout::Concat, MIB, &[MIB]);
    let targets = [ExecTarget {
        fd: t.file.as_fd(),
        path: t.path(),
    }];
    let point = DataPoint {
        id: 1,
        sweep: vec![],
        classes: vec![class("large", 2 * MIB, Access::Random, 100, 1, 1)],
    };
    let res = run_point(
        &targets,
        &volume,
        &point,
        &settings(100, 0, 1),
        &PointControl::new(1),
    );
    assert!(matches!(res, Err(ExecError::InvalidPoint(_))), "{res:?}");
}

/// The executor reads the compiler's table of limits: a point `rigel check` would refuse never
/// starts (a sub-resolution window, too many I/Os for one worker's ring).
#[test]
#[serial_test::parallel]
fn points_outside_the_limits_are_refused_before_any_io() {
    let t = TempTarget::new("/dev/shm", "limits", MIB);
    let volume = Volume::new(Layout::Concat, MIB, &[MIB]);
    let targets = [ExecTarget {
        fd: t.file.as_fd(),
        path: t.path(),
    }];
    let point = |load: u32| DataPoint {
        id: 1,
        sweep: vec![],
        classes: vec![class("small", 4 * KIB, Access::Random, 100, load, 1)],
    };
    let ctl = PointControl::new(1);
    for (p, run) in [
        (point(1), settings(0, 0, 1)),
        (point(1), settings(1000, 0, 0)),
        (point(65_536), settings(1000, 0, 1)),
    ] {
        let res = run_point(&targets, &volume, &p, &run, &ctl);
        assert!(matches!(res, Err(ExecError::InvalidPoint(_))), "{res:?}");
        assert_eq!(ctl.live.total().0, 0, "no I/O was issued");
    }
}

#[test]
#[serial_test::serial]
fn loop_device_over_tmpfs_keeps_the_load() {
    let dev = LoopTarget::new(64 * MIB, false);
    let classes = vec![class("small", 4 * KIB, Access::Random, 100, 16, 1)];
    let (r, p) = run(
        &[(&dev.file, &dev.dev)],
        Layout::Concat,
        classes,
        &settings(500, 0, 2),
    );
    // Completions arrive a few at a time here, and each replacement is submitted on its own
    // (`submit_each`): timed from when it was chosen, the system calls submitting those before
    // it were counted nowhere (0.76 of the load in Little's law on the development VM). Timed
    // from the batch's clock reading, IOPS × mean latency is the load.
    let little = assert_littles_law(&r, &p);
    assert!(
        (little[0] - 1.0).abs() <= 0.02,
        "IOPS × mean latency is {:.3} of the load",
        little[0]
    );
}

#[test]
#[serial_test::serial]
fn writing_a_read_only_loop_device_fails_the_point_clearly() {
    let dev = LoopTarget::new(16 * MIB, true);
    let classes = vec![class("small", 4 * KIB, Access::Random, 0, 4, 1)];
    let (r, _) = run(
        &[(&dev.file, &dev.dev)],
        Layout::Concat,
        classes,
        &settings(500, 0, 1),
    );
    let PointStatus::Failed { error } = &r.status else {
        panic!("expected a failed point, got {:?}", r.status)
    };
    assert_eq!(error.target, dev.dev);
    assert_eq!(error.errno, libc::EPERM);
    assert_eq!(error.offset % (4 * KIB), 0);
    assert!(error.offset < 16 * MIB);
    assert!(!error.message.is_empty());
    assert!(r.elapsed_s < 0.5);
}

/// A new pipe: (read end, write end).
fn pipe() -> (File, File) {
    let (rd, wr) = std::io::pipe().expect("pipe");
    (File::from(OwnedFd::from(rd)), File::from(OwnedFd::from(wr)))
}

/// A 1 MiB volume over one pipe and a point of one 4 KiB random read (the pipe ignores offsets).
fn one_pipe_read() -> (Volume, DataPoint) {
    let point = DataPoint {
        id: 1,
        sweep: vec![],
        classes: vec![class("small", 4 * KIB, Access::Random, 100, 1, 1)],
    };
    (Volume::new(Layout::Concat, MIB, &[MIB]), point)
}

#[test]
#[serial_test::serial]
fn stop_is_honoured_while_an_io_never_completes() {
    // A pipe whose write end stays open but silent: a read from it never completes.
    let (rd, wr) = pipe();
    let (volume, point) = one_pipe_read();
    let targets = [ExecTarget {
        fd: rd.as_fd(),
        path: "pipe",
    }];
    let ctl = PointControl::new(1);
    let stop = ctl.stop.clone();
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let began = std::time::Instant::now();
    let res = run_point(&targets, &volume, &point, &settings(20_000, 0, 1), &ctl);
    eprintln!("{res:?} after {:?}", began.elapsed());
    assert!(matches!(res, Err(ExecError::Interrupted)), "{res:?}");
    assert!(began.elapsed() < std::time::Duration::from_millis(1300));
    drop(wr);
}

#[test]
#[serial_test::parallel]
fn a_window_without_any_completion_is_a_failed_point() {
    // A silent pipe again: nothing ever completes, so the point measured nothing and must not
    // pass as "ok" with 0 IOPS.
    let (rd, wr) = pipe();
    let (volume, point) = one_pipe_read();
    let targets = [ExecTarget {
        fd: rd.as_fd(),
        path: "pipe",
    }];
    let r = run_point(
        &targets,
        &volume,
        &point,
        &settings(300, 0, 1),
        &PointControl::new(1),
    )
    .expect("the point runs to its end");
    let PointStatus::Failed { error } = &r.status else {
        panic!("expected a failed point, got {:?}", r.status)
    };
    assert_eq!(error.errno, libc::ETIMEDOUT);
    assert!(error.message.contains("no I/O"), "{}", error.message);
    drop(wr);
}

#[test]
#[serial_test::parallel]
fn short_reads_are_completed_not_counted_short() {
    // A pipe fed in 1000-byte pieces: a 4 KiB read usually gets less and must be resubmitted for
    // the rest (io_uring ignores the offset on a pipe).
    let (rd, mut wr) = pipe();
    let feeding = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let feed = feeding.clone();
    let writer = std::thread::spawn(move || {
        let piece = [7u8; 1000];
        while feed.load(std::sync::atomic::Ordering::Relaxed) {
            if wr.write_all(&piece).is_err() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_micros(20));
        }
    });
    let volume = Volume::new(Layout::Concat, MIB, &[MIB]);
    let targets = [ExecTarget {
        fd: rd.as_fd(),
        path: "pipe",
    }];
    let point = DataPoint {
        id: 1,
        sweep: vec![],
        classes: vec![class("small", 4 * KIB, Access::Random, 100, 1, 1)],
    };
    let ctl = PointControl::new(1);
    let (r, p) = run_point_probed(&targets, &volume, &point, &settings(300, 0, 1), &ctl)
        .expect("point runs");
    drop(rd);
    feeding.store(false, std::sync::atomic::Ordering::Relaxed);
    writer.join().expect("writer");
    assert_eq!(r.status, PointStatus::Ok);
    let c = &r.classes[0];
    assert!(c.total.ios > 10, "{} I/Os", c.total.ios);
    assert!(
        p.requeued >= c.total.ios,
        "{} resubmissions for {} I/Os",
        p.requeued,
        c.total.ios
    );
    assert_eq!(c.total.bytes, c.total.ios * 4 * KIB);
}

#[test]
#[serial_test::serial]
fn a_window_agreed_ahead_starts_then_after_a_longer_warmup() {
    let t = TempTarget::new("/dev/shm", "window-at", 8 * MIB);
    // Far enough ahead that even a loaded host has set the point up by then.
    let at = std::time::SystemTime::now() + std::time::Duration::from_millis(800);
    let ctl = PointControl {
        window_at: Some(at),
        ..PointControl::new(1)
    };
    let (r, _) = run_with(
        &[(&t.file, t.path())],
        Layout::Concat,
        vec![class("small", 4 * KIB, Access::Random, 100, 2, 1)],
        &settings(200, 0, 1),
        &ctl,
    );
    let at_ns = at
        .duration_since(std::time::SystemTime::UNIX_EPOCH)
        .expect("after 1970")
        .as_nanos() as u64;
    let start_ns = r.window.expect("a window").start_ns;
    // The window starts at the agreed time (to the clock conversion's rounding), not when the
    // workers were ready (at once: warmup 0).
    assert!(
        start_ns.abs_diff(at_ns) < 1_000_000,
        "window starts {} ms from the agreed time",
        (start_ns as f64 - at_ns as f64) / 1e6
    );
    // What came before it was warmup: I/O done, not counted in the window.
    let window_ios = r.class("small").expect("small").total.ios;
    assert!(
        ctl.live.total().0 > window_ios,
        "warmup I/O before the window"
    );
}
