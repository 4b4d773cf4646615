//! The seam's contract held by the libaio and psync engines (and the passthrough ring on
//! targets that are not namespaces), with real O_DIRECT I/O on tmpfs:
//! one completion per request with its tag unchanged, writes read back, a flush completes, a
//! timer completes after its interval and bounds the wait, a cancel completes the timers and
//! yields its own completion, and `enter` waits for a completion rather than spinning.

use super::libaio::LibaioEngine;
use super::libaio::aio::tests::ShmFile;
use super::psync::PsyncEngine;
use super::seam::{Completion, Engine, Interval, Live, Op, Open, Rw};
use crate::engines::arena::Arena;
use crate::engines::clock::{Elapsed, monotonic_ns};
use crate::options::ExecOptions;
use rigel_plan::Buffers;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

const BLOCK: usize = 4096;

/// Enters until `n` completions came (each `enter` must bring one within 5 s).
pub(super) fn take<L: Live>(live: &mut L, clock: &Elapsed, n: usize) -> Vec<Completion> {
    let mut got = Vec::new();
    let until = Instant::now() + Duration::from_secs(5);
    while got.len() < n {
        assert!(
            Instant::now() < until,
            "{} of {n} completions in 5 s",
            got.len()
        );
        live.enter(clock, clock.ns(), n - got.len(), None)
            .expect("enter");
        live.ready();
        while let Some(c) = live.next() {
            got.push(c);
        }
        live.consumed();
    }
    got.sort_by_key(|c| c.tag);
    got
}

fn rw(target: u32, offset: usize, buf: *mut u8, write: bool) -> Op<'static> {
    Op::Rw(Rw {
        target,
        offset: offset as u64,
        buf,
        len: BLOCK as u32,
        buf_index: 0,
        write,
        dsync: write,
    })
}

fn holds_the_contract<E: Engine>(slots: usize) {
    static TICK: Interval = Interval::from_ns(30_000_000);
    let f = ShmFile::new(&format!("contract-{}-{slots}", E::NAME));
    let fds = [f.file.as_raw_fd()];
    let mut arena = Arena::new(2 * slots * BLOCK, Buffers::Pages).expect("arena");
    for (i, b) in arena.bytes_mut().chunks_mut(BLOCK).take(slots).enumerate() {
        b.fill(0x11 * (i as u8 + 1));
    }
    let buffers: Vec<(usize, usize)> = (0..2 * slots).map(|i| (i * BLOCK, BLOCK)).collect();
    let options = ExecOptions::default();
    let open = Open {
        entries: slots as u32 + 1,
        fds: &fds,
        arena: &arena,
        // Both halves (writes, then reads back): an engine that registers buffers registers
        // them all, as one (index 0).
        buffers: &buffers,
        options: &options,
        sqpoll: None,
        polled: false,
    };
    let mut opened = E::open(&open).expect("open the engine");
    let clock = Elapsed::new(monotonic_ns());
    {
        let mut live = opened.engine.live();
        for i in 0..slots {
            // SAFETY: each slot's own block of the arena, untouched until its completion.
            unsafe {
                live.push(
                    100 + i as u64,
                    rw(0, i * BLOCK, arena.range(i * BLOCK, BLOCK), true),
                )
            };
        }
        let done = take(&mut live, &clock, slots);
        assert_eq!(
            done.iter().map(|c| c.tag).collect::<Vec<_>>(),
            (100..100 + slots as u64).collect::<Vec<_>>()
        );
        assert!(done.iter().all(|c| c.result == BLOCK as i32), "{done:?}");
        // SAFETY: a flush references no memory.
        unsafe {
            live.push(
                7,
                Op::Flush {
                    target: 0,
                    data_only: true,
                },
            )
        };
        let done = take(&mut live, &clock, 1);
        assert_eq!((done[0].tag, done[0].result), (7, 0));
        for i in 0..slots {
            let at = (slots + i) * BLOCK;
            // SAFETY: as above, the second half of the arena.
            unsafe {
                live.push(
                    200 + i as u64,
                    rw(0, i * BLOCK, arena.range(at, BLOCK), false),
                )
            };
        }
        let done = take(&mut live, &clock, slots);
        assert!(done.iter().all(|c| c.result == BLOCK as i32), "{done:?}");
        // A timer alone: enter waits for it (no completion before its 30 ms), then it completes.
        let t = Instant::now();
        // SAFETY: a static interval.
        unsafe { live.push(9, Op::Timer(&TICK)) };
        let done = take(&mut live, &clock, 1);
        assert_eq!(done[0].tag, 9);
        assert!(
            t.elapsed() >= Duration::from_millis(29),
            "{:?}",
            t.elapsed()
        );
        // A cancel completes the pending timer and yields its own completion.
        // SAFETY: a static interval.
        unsafe { live.push(10, Op::Timer(&TICK)) };
        live.cancel(11);
        let done = take(&mut live, &clock, 2);
        assert_eq!(done.iter().map(|c| c.tag).collect::<Vec<_>>(), vec![10, 11]);
        assert_eq!(done[0].result, -libc::ECANCELED);
    }
    let bytes = arena.bytes_mut();
    for i in 0..slots {
        let back = &bytes[(slots + i) * BLOCK..(slots + i + 1) * BLOCK];
        assert!(
            back.iter().all(|&b| b == 0x11 * (i as u8 + 1)),
            "{} slot {i}",
            E::NAME
        );
    }
    assert!(!opened.engine.options().is_empty());
    opened.engine.close();
}

#[test]
#[serial_test::parallel]
fn libaio_holds_the_seams_contract() {
    holds_the_contract::<LibaioEngine>(1);
    holds_the_contract::<LibaioEngine>(8);
}

/// The passthrough ring on targets that are not namespaces (a volume mixing them): its big
/// entries, its table of requests and their results hold the contract as the usual ring does.
#[test]
#[serial_test::parallel]
fn the_passthrough_ring_holds_the_seams_contract_on_other_targets() {
    holds_the_contract::<super::io_uring::passthru::PassthruEngine>(1);
    holds_the_contract::<super::io_uring::passthru::PassthruEngine>(8);
}

#[test]
#[serial_test::parallel]
fn psync_holds_the_seams_contract_inline_and_pooled() {
    holds_the_contract::<PsyncEngine>(1);
    holds_the_contract::<PsyncEngine>(8);
}

#[test]
#[serial_test::parallel]
fn libaio_refuses_a_buffered_target_with_the_reason() {
    let f = ShmFile::new("contract-buffered");
    let path = format!("/proc/self/fd/{}", f.file.as_raw_fd());
    let buffered = std::fs::OpenOptions::new()
        .read(true)
        .open(path)
        .expect("reopen buffered");
    let arena = Arena::new(BLOCK, Buffers::Pages).expect("arena");
    let options = ExecOptions::default();
    let open = Open {
        entries: 2,
        fds: &[buffered.as_raw_fd()],
        arena: &arena,
        buffers: &[(0, BLOCK)],
        options: &options,
        sqpoll: None,
        polled: false,
    };
    let e = LibaioEngine::open(&open).err().expect("refused");
    assert!(e.to_string().contains("needs O_DIRECT"), "{e}");
}
