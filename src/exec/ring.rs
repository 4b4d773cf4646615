//! A worker's io_uring and its buffer arena: the ring built with the best setup flags the kernel
//! accepts, the arena allocated aligned, then both the arena and the targets registered with the
//! ring when the kernel and the locked-memory limit allow it.

use io_uring::IoUring;
use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::io;
use std::os::fd::RawFd;

/// Alignment of every slot's buffer: a page satisfies any device's direct-I/O alignment.
pub const BUF_ALIGN: usize = crate::plan::limits::BUFFER_ALIGN as usize;
/// The size of a transparent huge page: arenas at least this large are told not to use them.
const HUGE_PAGE: usize = 2 << 20;

/// Which setup flags the ring got (the strongest set the kernel accepted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RingMode {
    /// SINGLE_ISSUER | DEFER_TASKRUN | COOP_TASKRUN (kernel 6.1+).
    Deferred,
    /// COOP_TASKRUN only (5.19+).
    Coop,
    /// No optional flags.
    Plain,
}

/// Builds a ring of at least `entries` submission entries, trying the fastest modes first.
pub fn build_ring(entries: u32) -> io::Result<(IoUring, RingMode)> {
    let entries = entries.max(1).next_power_of_two();
    // CLAMP: a request beyond the kernel's maximum gets the maximum (the worker then hands full
    // submission queues to the kernel as it goes) rather than failing.
    // NO_SQARRAY (6.6+): the kernel reads each entry at its ring index, one indirection (and one
    // cache line) less per submitted I/O; t/io_uring sets it too. Without it on older kernels.
    for no_sqarray in [true, false] {
        let mut b = IoUring::builder();
        b.setup_clamp()
            .setup_single_issuer()
            .setup_defer_taskrun()
            .setup_coop_taskrun();
        if no_sqarray {
            b.setup_no_sqarray();
        }
        if let Ok(r) = b.build(entries) {
            return Ok((r, RingMode::Deferred));
        }
    }
    if let Ok(r) = IoUring::builder()
        .setup_clamp()
        .setup_coop_taskrun()
        .build(entries)
    {
        return Ok((r, RingMode::Coop));
    }
    IoUring::builder()
        .setup_clamp()
        .build(entries)
        .map(|r| (r, RingMode::Plain))
}

/// One page-aligned allocation carved into per-slot buffers.
pub struct Arena {
    ptr: *mut u8,
    layout: Layout,
    /// Filled with random data (else zeroed, or what earlier reads left).
    pub random: bool,
}

// SAFETY: the arena owns its allocation exclusively (no aliasing pointer survives its owner), so
// moving it to another thread (a later point's worker, through `Reuse`) is sound.
unsafe impl Send for Arena {}

impl Arena {
    /// An arena of `bytes` (rounded up to a page), zeroed, in 4 KiB pages.
    ///
    /// 4 KiB pages, as fio's and most applications' buffers: a 1 MiB request is then 256 segments,
    /// which a device with a lower segment limit (virtio-blk: 254) receives as two requests it may
    /// serve in parallel. In one huge page it was a single request, and rigel measured the device
    /// slower than fio did (1 MiB random reads at QD 4 on a virtio disk: 0.69× fio's IOPS).
    pub fn new(bytes: usize) -> io::Result<Arena> {
        let size = bytes.max(BUF_ALIGN).next_multiple_of(BUF_ALIGN);
        let layout = Layout::from_size_align(size, BUF_ALIGN)
            .map_err(|_| io::Error::from_raw_os_error(libc::ENOMEM))?;
        // SAFETY: the layout has a non-zero size (at least one page).
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(io::Error::from_raw_os_error(libc::ENOMEM));
        }
        if size >= HUGE_PAGE {
            // With transparent huge pages set to "always" the kernel would back a large arena
            // with huge pages; ask for small ones (a hint: an error changes nothing else).
            // SAFETY: [ptr, ptr + size) is this allocation, page aligned (madvise needs the
            // start aligned; the allocator maps allocations this large on their own pages).
            unsafe { libc::madvise(ptr.cast(), size, libc::MADV_NOHUGEPAGE) };
        }
        Ok(Arena {
            ptr,
            layout,
            random: false,
        })
    }

    pub fn len(&self) -> usize {
        self.layout.size()
    }

    /// Pointer to byte `offset` of the arena (`offset < len()`).
    pub fn at(&self, offset: usize) -> *mut u8 {
        debug_assert!(offset < self.len());
        // SAFETY: `offset` is inside the allocation, so the result stays in bounds.
        unsafe { self.ptr.add(offset) }
    }

    /// The arena as bytes, to fill it before any I/O is in flight.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: ptr is a live allocation of `len()` bytes owned by self, zero-initialised, and
        // the exclusive borrow of self guarantees no other reference exists (no I/O is in flight
        // while the worker fills it: it only does so before the first submission).
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len()) }
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        // SAFETY: ptr was allocated with exactly this layout and is freed once. The worker drops
        // the arena only after every I/O using it has completed (or leaks it when it cannot be
        // sure, see the worker's drain).
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// Registers `buffers` (pointer, length) with the ring as fixed buffers, index = position.
pub fn register_buffers(
    ring: &IoUring,
    arena: &Arena,
    buffers: &[(usize, usize)],
) -> io::Result<()> {
    let iovecs: Vec<libc::iovec> = buffers
        .iter()
        .map(|&(off, len)| libc::iovec {
            iov_base: arena.at(off).cast(),
            iov_len: len,
        })
        .collect();
    // SAFETY: every iovec points inside the arena, which outlives the ring's use of it: the
    // worker drains all I/O before dropping the arena, and drops the ring (unregistering the
    // buffers) before the arena, or leaks both.
    unsafe { ring.submitter().register_buffers(&iovecs) }
}

/// Registers the targets' descriptors with the ring, index = target index.
pub fn register_files(ring: &IoUring, fds: &[RawFd]) -> io::Result<()> {
    ring.submitter().register_files(fds)
}

/// Queues `entry`, handing the queue to the kernel while it is full (only with more requests than
/// ring entries).
///
/// # Safety
/// Everything `entry` references (buffers, timespecs, descriptors) must stay valid until its
/// completion is reaped, as for [`squeue::SubmissionQueue::push`].
pub unsafe fn push_or_submit(
    sq: &mut io_uring::squeue::SubmissionQueue<'_>,
    submitter: &io_uring::Submitter<'_>,
    entry: &io_uring::squeue::Entry,
) {
    loop {
        // SAFETY: the caller guarantees what the entry references outlives the request.
        if unsafe { sq.push(entry) }.is_ok() {
            return;
        }
        sq.sync();
        let _ = submitter.submit();
        sq.sync();
    }
}
