//! The seam's trim held by every engine with real I/O: a written range trimmed through
//! [`Op::Trim`] completes with 0 and reads back as zeros, on a tmpfs file (a hole punched) and
//! on a loop device (the block layer's discard, counted by the device's own discard counters).

use super::contract_tests::take;
use super::io_uring::IoUringEngine;
use super::libaio::LibaioEngine;
use super::libaio::aio::tests::ShmFile;
use super::psync::PsyncEngine;
use super::seam::{Engine, Live, Op, Open, Rw, Trim};
use crate::engines::arena::Arena;
use crate::engines::clock::{Elapsed, monotonic_ns};
use crate::options::ExecOptions;
use rigel_plan::Buffers;
use rigel_testkit::loopdev::LoopDevice;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;

const BLOCK: usize = 4096;

/// Writes two blocks at 64 KiB, trims them, reads them back: zeros, each request one completion.
fn trims<E: Engine>(fd: RawFd) {
    let mut arena = Arena::new(4 * BLOCK, Buffers::Pages).expect("arena");
    arena.bytes_mut()[..2 * BLOCK].fill(0x5a);
    arena.bytes_mut()[2 * BLOCK..].fill(0xff);
    let buffers = [(0, 2 * BLOCK), (2 * BLOCK, 2 * BLOCK)];
    let options = ExecOptions::default();
    let fds = [fd];
    let open = Open {
        entries: 3,
        fds: &fds,
        arena: &arena,
        buffers: &buffers,
        options: &options,
        sqpoll: None,
        polled: false,
    };
    let mut opened = E::open(&open).expect("open the engine");
    let buf_index = |slot: usize| opened.buf_index.get(slot).copied().unwrap_or(0);
    let (b0, b1) = (buf_index(0), buf_index(1));
    let clock = Elapsed::new(monotonic_ns());
    let rw = |buf: *mut u8, buf_index: u16, write: bool| {
        Op::Rw(Rw {
            target: 0,
            offset: 16 * BLOCK as u64,
            buf,
            len: 2 * BLOCK as u32,
            buf_index,
            write,
            dsync: write,
        })
    };
    {
        let mut live = opened.engine.live();
        // SAFETY: the arena's first half, untouched until its completion.
        unsafe { live.push(1, rw(arena.range(0, 2 * BLOCK), b0, true)) };
        let done = take(&mut live, &clock, 1);
        assert_eq!(done[0].result(), 2 * BLOCK as i32, "{}: the write", E::NAME);
        live.trim(
            2,
            Trim {
                target: 0,
                offset: 16 * BLOCK as u64,
                len: 2 * BLOCK as u64,
            },
        );
        let done = take(&mut live, &clock, 1);
        assert_eq!(
            (done[0].tag(), done[0].result()),
            (2, 0),
            "{}: the trim",
            E::NAME
        );
        // SAFETY: the arena's second half, untouched until its completion.
        unsafe { live.push(3, rw(arena.range(2 * BLOCK, 2 * BLOCK), b1, false)) };
        let done = take(&mut live, &clock, 1);
        assert_eq!(done[0].result(), 2 * BLOCK as i32, "{}: the read", E::NAME);
    }
    opened.engine.close();
    assert!(
        arena.bytes_mut()[2 * BLOCK..].iter().all(|&b| b == 0),
        "{}: a trimmed range read back with data",
        E::NAME
    );
}

fn on_a_file<E: Engine>() {
    let f = ShmFile::new(&format!("trim-{}", E::NAME));
    trims::<E>(f.file.as_raw_fd());
}

fn on_a_loop_device<E: Engine>() {
    let dev = LoopDevice::new(1 << 20);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_DIRECT)
        .open(dev.dev())
        .expect("open the loop device O_DIRECT");
    let (before, sectors) = (dev.discards(), dev.sectors_discarded());
    trims::<E>(file.as_raw_fd());
    assert!(
        dev.discards() > before,
        "{}: the device counted no discard",
        E::NAME
    );
    assert_eq!(
        dev.sectors_discarded() - sectors,
        (2 * BLOCK / 512) as u64,
        "{}: the device discarded another range",
        E::NAME
    );
}

#[test]
#[serial_test::parallel]
fn every_engine_punches_a_hole_in_a_file() {
    on_a_file::<IoUringEngine>();
    on_a_file::<LibaioEngine>();
    on_a_file::<PsyncEngine>();
}

#[test]
#[serial_test::parallel]
fn every_engine_discards_on_a_block_device_counted_by_the_device() {
    on_a_loop_device::<IoUringEngine>();
    on_a_loop_device::<LibaioEngine>();
    on_a_loop_device::<PsyncEngine>();
}
