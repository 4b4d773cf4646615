//! The psync engine's core against a real O_DIRECT file on tmpfs: inline and pooled, data
//! written comes back, durable writes and flushes complete, errors come back as -errno, and the
//! pool really runs its requests at once (one thread each).

use super::{MAX_THREADS, Psync, SyncDone, SyncOp, SyncReq};
use crate::engines::arena::Arena;
use crate::engines::libaio::aio::tests::ShmFile;
use rigel_plan::Buffers;
use std::os::fd::AsRawFd;
use std::time::Duration;

const BLOCK: usize = 4096;

fn req(op: SyncOp, fd: i32, buf: *mut u8, offset: usize, data: u64) -> SyncReq {
    SyncReq {
        op,
        fd,
        buf,
        len: BLOCK as u32,
        offset: offset as u64,
        data,
    }
}

fn reap_all(e: &mut Psync, n: usize) -> Vec<SyncDone> {
    let mut got = Vec::new();
    while got.len() < n {
        let k = e.reap(1, Some(Duration::from_secs(5)), |d| got.push(d));
        assert!(k > 0, "no completion within 5 s ({} of {n})", got.len());
    }
    got.sort_by_key(|d| d.data);
    got
}

/// Writes 8 blocks (half of them durable), flushes, reads them back through `slots` slots.
fn round_trip(slots: usize) {
    let f = ShmFile::new(&format!("psync-{slots}"));
    let fd = f.file.as_raw_fd();
    let mut arena = Arena::new(16 * BLOCK, Buffers::Pages).expect("arena");
    for (i, b) in arena.bytes_mut().chunks_mut(BLOCK).take(8).enumerate() {
        b.fill(0x40 + i as u8);
    }
    let mut e = Psync::new(slots).expect("engine");
    assert_eq!(e.threads(), if slots > 1 { slots } else { 0 });
    for chunk in (0..8).collect::<Vec<usize>>().chunks(slots) {
        for &i in chunk {
            let op = SyncOp::Write { dsync: i % 2 == 1 };
            e.prep(req(
                op,
                fd,
                arena.range(i * BLOCK, BLOCK),
                3 * i * BLOCK,
                i as u64,
            ));
        }
        e.submit();
        let done = reap_all(&mut e, chunk.len());
        assert!(done.iter().all(|d| d.res == BLOCK as i64), "{done:?}");
    }
    e.prep(SyncReq {
        len: 0,
        ..req(
            SyncOp::Flush { data_only: true },
            fd,
            std::ptr::null_mut(),
            0,
            99,
        )
    });
    e.submit();
    assert_eq!(reap_all(&mut e, 1), vec![SyncDone { data: 99, res: 0 }]);
    for chunk in (0..8).collect::<Vec<usize>>().chunks(slots) {
        for &i in chunk {
            e.prep(req(
                SyncOp::Read,
                fd,
                arena.range((8 + i) * BLOCK, BLOCK),
                3 * i * BLOCK,
                i as u64,
            ));
        }
        e.submit();
        reap_all(&mut e, chunk.len());
    }
    assert_eq!(e.in_flight(), 0);
    let bytes = arena.bytes_mut();
    for i in 0..8 {
        assert!(
            bytes[(8 + i) * BLOCK..(9 + i) * BLOCK]
                .iter()
                .all(|&b| b == 0x40 + i as u8),
            "block {i} read back wrong ({slots} slots)"
        );
    }
}

#[test]
#[serial_test::parallel]
fn inline_writes_flush_and_read_back() {
    round_trip(1);
}

#[test]
#[serial_test::parallel]
fn pooled_writes_flush_and_read_back() {
    round_trip(4);
}

#[test]
#[serial_test::parallel]
fn errors_come_back_as_negative_errno() {
    let arena = Arena::new(BLOCK, Buffers::Pages).expect("arena");
    for slots in [1, 2] {
        let mut e = Psync::new(slots).expect("engine");
        e.prep(req(SyncOp::Read, 1 << 20, arena.range(0, BLOCK), 0, 7));
        e.submit();
        assert_eq!(
            reap_all(&mut e, 1),
            vec![SyncDone {
                data: 7,
                res: -i64::from(libc::EBADF)
            }]
        );
    }
}

#[test]
#[serial_test::parallel]
fn every_pooled_request_is_reported_and_its_thread_reused() {
    // pread on a pipe fails (ESPIPE) at once: four such requests, then four real reads, on four
    // threads; none lost, each thread free again for the next round, nothing left in flight.
    let mut fds = [0i32; 2];
    // SAFETY: test-only: a pipe's two descriptors written to a live array.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let arena = Arena::new(4 * BLOCK, Buffers::Pages).expect("arena");
    let f = ShmFile::new("psync-reuse");
    let mut e = Psync::new(4).expect("engine");
    for round in 0..3 {
        let (fd, want) = if round == 1 {
            (f.file.as_raw_fd(), BLOCK as i64)
        } else {
            (fds[0], -i64::from(libc::ESPIPE))
        };
        for i in 0..4 {
            e.prep(req(
                SyncOp::Read,
                fd,
                arena.range(i * BLOCK, BLOCK),
                i * BLOCK,
                i as u64,
            ));
        }
        e.submit();
        let done = reap_all(&mut e, 4);
        assert_eq!(
            done.iter().map(|d| d.data).collect::<Vec<_>>(),
            vec![0, 1, 2, 3]
        );
        assert!(
            done.iter().all(|d| d.res == want),
            "round {round}: {done:?}"
        );
        assert_eq!(e.in_flight(), 0);
    }
    // SAFETY: test-only: closing the pipe this test made.
    unsafe {
        libc::close(fds[0]);
        libc::close(fds[1]);
    }
}

#[test]
#[serial_test::parallel]
fn more_threads_than_the_cap_are_refused() {
    let e = Psync::new(MAX_THREADS + 1).err().expect("refused");
    assert!(e.to_string().contains("at most 256"), "{e}");
}
