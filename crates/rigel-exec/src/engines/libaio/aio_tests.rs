//! The AIO engine's core against a real O_DIRECT file on tmpfs: data written comes back, durable
//! writes and flushes complete, a refused request completes with its error, a wait is bounded.

use super::{Aio, AioDone};
use crate::engines::arena::Arena;
use rigel_plan::Buffers;
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::time::Duration;

const BLOCK: usize = 4096;

/// A 1 MiB file on /dev/shm opened O_DIRECT, removed on drop.
pub(crate) struct ShmFile {
    path: PathBuf,
    pub(crate) file: File,
}

impl ShmFile {
    pub(crate) fn new(name: &str) -> ShmFile {
        let path = PathBuf::from(format!(
            "/dev/shm/rigel-engine-{}-{name}",
            std::process::id()
        ));
        std::fs::write(&path, vec![0u8; 1 << 20]).expect("create the test file");
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_DIRECT)
            .open(&path)
            .expect("open O_DIRECT on tmpfs");
        ShmFile { path, file }
    }
}

impl Drop for ShmFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Every completion until `n` are reaped (bounded: a lost one fails the test, not hangs it).
fn reap_all(aio: &mut Aio, n: usize) -> Vec<AioDone> {
    let mut got = Vec::new();
    while got.len() < n {
        let k = aio
            .reap(1, Some(Duration::from_secs(5)), |d| got.push(d))
            .expect("io_getevents");
        assert!(k > 0, "no completion within 5 s ({} of {n})", got.len());
    }
    got.sort_by_key(|d| d.data);
    got
}

#[test]
#[serial_test::parallel]
fn writes_at_depth_eight_read_back_as_written() {
    let f = ShmFile::new("aio-rw");
    let fd = f.file.as_raw_fd();
    let mut arena = Arena::new(16 * BLOCK, Buffers::Pages).expect("arena");
    for (i, b) in arena.bytes_mut().chunks_mut(BLOCK).take(8).enumerate() {
        b.fill(i as u8 + 1);
    }
    let mut aio = Aio::new(8).expect("io_setup");
    // Linux maps the completion ring to user space: reaps read it without a system call.
    assert!(aio.user_ring);
    for i in 0..8usize {
        // Blocks written out of order, one apart: block 2i.
        aio.prep_write(
            i as u64,
            fd,
            arena.range(i * BLOCK, BLOCK),
            BLOCK as u32,
            (2 * i * BLOCK) as u64,
            i % 2 == 0,
        );
    }
    assert_eq!(aio.in_flight(), 8);
    aio.submit().expect("io_submit");
    let done = reap_all(&mut aio, 8);
    assert!(done.iter().all(|d| d.res == BLOCK as i64), "{done:?}");
    assert_eq!(aio.in_flight(), 0);
    for i in 0..8usize {
        aio.prep_read(
            i as u64,
            fd,
            arena.range((8 + i) * BLOCK, BLOCK),
            BLOCK as u32,
            (2 * i * BLOCK) as u64,
        );
    }
    aio.submit().expect("io_submit");
    let done = reap_all(&mut aio, 8);
    assert_eq!(
        done.iter().map(|d| d.data).collect::<Vec<_>>(),
        (0..8).collect::<Vec<u64>>()
    );
    assert!(done.iter().all(|d| d.res == BLOCK as i64), "{done:?}");
    let bytes = arena.bytes_mut();
    for i in 0..8 {
        let back = &bytes[(8 + i) * BLOCK..(9 + i) * BLOCK];
        assert!(
            back.iter().all(|&b| b == i as u8 + 1),
            "block {i} read back wrong"
        );
    }
}

#[test]
#[serial_test::parallel]
fn a_flush_completes_and_a_refused_request_completes_with_its_error() {
    let f = ShmFile::new("aio-flush");
    let mut aio = Aio::new(4).expect("io_setup");
    let arena = Arena::new(BLOCK, Buffers::Pages).expect("arena");
    aio.prep_flush(0, f.file.as_raw_fd(), true);
    // A closed descriptor: the kernel refuses it at submission.
    aio.prep_read(1, 1 << 20, arena.range(0, BLOCK), BLOCK as u32, 0);
    aio.prep_read(
        2,
        f.file.as_raw_fd(),
        arena.range(0, BLOCK),
        BLOCK as u32,
        0,
    );
    aio.submit().expect("io_submit");
    let done = reap_all(&mut aio, 3);
    assert_eq!(done[0], AioDone { data: 0, res: 0 });
    assert_eq!(
        done[1],
        AioDone {
            data: 1,
            res: -i64::from(libc::EBADF)
        }
    );
    assert_eq!(
        done[2],
        AioDone {
            data: 2,
            res: BLOCK as i64
        }
    );
}

#[test]
#[serial_test::parallel]
fn a_wait_with_nothing_to_reap_ends_at_its_timeout() {
    let mut aio = Aio::new(1).expect("io_setup");
    let t = std::time::Instant::now();
    let n = aio
        .reap(1, Some(Duration::from_millis(20)), |_| {})
        .expect("reap");
    assert_eq!(n, 0);
    assert!(t.elapsed() < Duration::from_secs(1));
}

#[test]
#[serial_test::parallel]
fn buffered_targets_are_refused_with_the_reason() {
    assert!(Aio::check_direct(true).is_ok());
    let e = Aio::check_direct(false).expect_err("buffered refused");
    assert!(e.contains("O_DIRECT") && e.contains("psync"), "{e}");
}
