//! A worker's buffer arena: one page-aligned mapping (4 KiB or huge pages) carved into the
//! slots' buffers. The policy owns it (every engine borrows a request's range until its
//! completion); io_uring registers it (`engines::io_uring::setup`).

use rigel_plan::Buffers;
use std::io;

/// Alignment of every slot's buffer: a page satisfies any device's direct-I/O alignment.
pub const BUF_ALIGN: usize = rigel_plan::limits::BUFFER_ALIGN as usize;
/// The size of a transparent huge page: `Pages` arenas at least this large are told not to use
/// them; `Huge` arenas are made of them.
const HUGE_PAGE: usize = 2 << 20;

/// One page-aligned allocation carved into per-slot buffers.
pub struct Arena {
    ptr: *mut u8,
    len: usize,
    /// The anonymous mapping holding the arena (start, length), unmapped on drop.
    map: (*mut u8, usize),
    /// What backs it (`run.buffers`): a kept arena only serves a point asking for the same.
    pub pages: Buffers,
    /// Filled with random data (else zeroed, or what earlier reads left).
    pub random: bool,
}

// SAFETY: the arena owns its allocation exclusively (no aliasing pointer survives its owner), so
// moving it to another thread (a later point's worker, through `Reuse`) is sound.
unsafe impl Send for Arena {}

impl Arena {
    /// An arena of `bytes` (rounded up to a page, or to a huge page), zeroed.
    ///
    /// `Pages`: 4 KiB pages, as fio's and most applications' buffers. Where each page lands in
    /// physical memory is the kernel's choice, and a direct I/O reaches the device as one segment
    /// per physically contiguous run: on a virtio disk without indirect descriptors (a 256-entry
    /// ring, 254 segments per request) a 1 MiB read of scattered pages fills the whole ring, so the
    /// device holds one such request at a time, where a read of contiguous pages takes a few
    /// entries. fio's buffers are subject to the same chance.
    /// `Huge`: 2 MiB transparent huge pages (asked with `MADV_HUGEPAGE`, faulted in at once): an
    /// I/O of up to 2 MiB is one segment, whatever the allocator's state, as fio's `iomem=mmaphuge`.
    pub fn new(bytes: usize, pages: Buffers) -> io::Result<Arena> {
        match pages {
            Buffers::Pages => Arena::small_pages(bytes),
            Buffers::Huge => Arena::huge_pages(bytes),
        }
    }

    fn small_pages(bytes: usize) -> io::Result<Arena> {
        let size = bytes.max(BUF_ALIGN).next_multiple_of(BUF_ALIGN);
        let ptr = map_anonymous(size)?;
        if size >= HUGE_PAGE {
            // With transparent huge pages set to "always" the kernel would back a large arena
            // with huge pages; ask for small ones (a hint: an error changes nothing else).
            // SAFETY: [ptr, ptr + size) is this mapping, page aligned.
            unsafe { libc::madvise(ptr.cast(), size, libc::MADV_NOHUGEPAGE) };
        }
        // Not touched here: the pages are faulted in by the buffers' registration (or the first
        // I/O), as fio's malloc'd buffers are, so both tools take them from the allocator the same
        // way (an aligned allocation zeroed them first). Where they land decides a large direct
        // I/O's segment count: docs/executor.md, "Causes found".
        Ok(Arena {
            ptr,
            len: size,
            map: (ptr, size),
            pages: Buffers::Pages,
            random: false,
        })
    }

    fn huge_pages(bytes: usize) -> io::Result<Arena> {
        let size = bytes.max(1).next_multiple_of(HUGE_PAGE);
        // One huge page more than needed, so a huge-page-aligned start lies inside the mapping.
        let map_len = size + HUGE_PAGE;
        let base = map_anonymous(map_len)?;
        // SAFETY: the offset is below HUGE_PAGE, so the start stays inside the mapping, and
        // [ptr, ptr + size) too (the mapping is size + HUGE_PAGE long).
        let ptr = unsafe { base.add(base.align_offset(HUGE_PAGE)) };
        // SAFETY: [ptr, ptr + size) is inside this mapping, huge-page aligned. Both are hints:
        // without transparent huge pages the arena is 4 KiB pages, and unfaulted pages are
        // faulted by the registration or the first I/O.
        unsafe {
            libc::madvise(ptr.cast(), size, libc::MADV_HUGEPAGE);
            libc::madvise(ptr.cast(), size, libc::MADV_POPULATE_WRITE);
        }
        Ok(Arena {
            ptr,
            len: size,
            map: (base, map_len),
            pages: Buffers::Huge,
            random: false,
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Pointer to bytes `[offset, offset + len)` of the arena, for the kernel to read or write.
    /// The range is checked in every build (two comparisons per I/O): a range outside the arena
    /// panics here rather than sending the kernel beyond the mapping.
    #[inline]
    pub fn range(&self, offset: usize, len: usize) -> *mut u8 {
        assert!(
            len <= self.len && offset <= self.len - len,
            "arena range {offset}+{len} outside its {} bytes",
            self.len
        );
        // SAFETY: offset <= self.len, so the result is inside the allocation or one past its end.
        unsafe { self.ptr.add(offset) }
    }

    /// Bytes `[offset, offset + len)` of the arena as a slice, to write a slot's data before
    /// its I/O. The range is checked as by [`Arena::range`].
    ///
    /// # Safety
    /// No I/O in flight may use any of these bytes while the slice lives (the kernel may use
    /// other ranges meanwhile; the exclusive borrow keeps the arena's other users out).
    #[inline]
    pub unsafe fn slot_mut(&mut self, offset: usize, len: usize) -> &mut [u8] {
        let ptr = self.range(offset, len);
        // SAFETY: `range` checked that [ptr, ptr + len) lies inside the live mapping (read-write,
        // initialised: zeroed or filled); the caller guarantees no I/O uses it meanwhile, and
        // the slice borrows the arena exclusively, so no other slice or pointer is taken from it.
        unsafe { std::slice::from_raw_parts_mut(ptr, len) }
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
        // SAFETY: `map` is the mapping this arena made, unmapped once. The worker drops the arena
        // only after every I/O using it has completed (or leaks it when it cannot be sure, see
        // the worker's drain).
        unsafe { libc::munmap(self.map.0.cast(), self.map.1) };
    }
}

/// A new private anonymous mapping of `len` bytes (> 0): zeroed, page aligned, not yet faulted in.
fn map_anonymous(len: usize) -> io::Result<*mut u8> {
    // SAFETY: a new mapping at an address of the kernel's choice; no existing memory is affected.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    Ok(base.cast())
}
