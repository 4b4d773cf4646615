//! The few OS calls the executor makes outside an engine's I/O that need `unsafe`: the kernel's
//! monotonic clock (to calibrate the TSC), the process's CPU time, and a shared mapping of a file
//! (`verify`'s journal). They live here, beside the engines, so that all of rigel-exec's `unsafe`
//! is in one audited folder and the policy, `point` and `verify` are safe code
//! (`tests/layering` checks it).

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicU16, AtomicU64};

/// CLOCK_MONOTONIC from the kernel (through the vDSO), ns.
pub(crate) fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a pointer to a live timespec; CLOCK_MONOTONIC cannot fail.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The process's user and system CPU seconds so far (getrusage RUSAGE_SELF: every thread),
/// `None` if the kernel refuses.
pub(crate) fn process_cpu_s() -> Option<(f64, f64)> {
    // SAFETY: rusage is plain old data; zeroed is a valid value, and getrusage only writes it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid `who` and a pointer to a live rusage; cannot fail with these arguments.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    if rc != 0 {
        return None;
    }
    let secs = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    Some((secs(ru.ru_utime), secs(ru.ru_stime)))
}

/// A read-write `MAP_SHARED` mapping of a whole file: its bytes are the file's pages, so every
/// store is in the page cache at once. Shared between threads only through atomics (`u16s`,
/// `u64_at`); plain bytes are written through `&mut` (before the mapping is shared).
pub(crate) struct SharedMap {
    base: *mut u8,
    len: usize,
}

// SAFETY: the mapping is plain shared memory owned by this value; through `&self` it is reached
// only as atomics, so threads sharing it cannot race on plain bytes.
unsafe impl Send for SharedMap {}
// SAFETY: as above.
unsafe impl Sync for SharedMap {}

impl SharedMap {
    /// Maps the first `len` bytes of `file` (opened read-write, at least `len` long).
    pub(crate) fn new(file: &File, len: usize) -> io::Result<SharedMap> {
        // SAFETY: a fresh shared mapping of `len` bytes of an open file; the kernel picks the
        // address, and a failure is MAP_FAILED (checked).
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(SharedMap {
            base: base.cast(),
            len,
        })
    }

    /// Writes `bytes` at `offset` (panics outside the mapping). `&mut`: no other thread holds it.
    pub(crate) fn write(&mut self, offset: usize, bytes: &[u8]) {
        assert!(offset <= self.len && bytes.len() <= self.len - offset);
        // SAFETY: [offset, offset + len) lies inside this live mapping (checked), and the
        // exclusive borrow means no atomic view of it is alive.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.base.add(offset), bytes.len())
        };
    }

    /// `count` u16s from `offset` (even, inside the mapping) as atomics.
    pub(crate) fn u16s(&self, offset: usize, count: usize) -> &[AtomicU16] {
        assert!(offset % 2 == 0 && offset <= self.len && count <= (self.len - offset) / 2);
        // SAFETY: the range lies inside the live mapping (checked), 2-aligned (the mapping is
        // page aligned, the offset even), initialised (a file's pages); AtomicU16 has u16's
        // layout, and every access through `&self` is atomic. The slice borrows `self`.
        unsafe { std::slice::from_raw_parts(self.base.add(offset).cast::<AtomicU16>(), count) }
    }

    /// The u64 at `offset` (8-aligned, inside the mapping) as an atomic.
    pub(crate) fn u64_at(&self, offset: usize) -> &AtomicU64 {
        assert!(offset % 8 == 0 && offset <= self.len && self.len - offset >= 8);
        // SAFETY: as for `u16s`: inside the live mapping, aligned, initialised, reached only
        // atomically through `&self`, borrowed no longer than `self`.
        unsafe { &*self.base.add(offset).cast::<AtomicU64>() }
    }

    /// Writes the mapping's dirty pages back to the file and waits (`msync(MS_SYNC)`).
    pub(crate) fn sync(&self) -> io::Result<()> {
        // SAFETY: `base..base+len` is this mapping, alive while `self` is.
        let r = unsafe { libc::msync(self.base.cast(), self.len, libc::MS_SYNC) };
        if r == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}

impl Drop for SharedMap {
    fn drop(&mut self) {
        // SAFETY: this mapping was made by `mmap` with this length and nothing refers to it past
        // this point (every view borrows `self`).
        unsafe {
            libc::munmap(self.base.cast(), self.len);
        }
    }
}
