//! A worker's io_uring: the ring built with the best setup flags the kernel accepts, then the
//! buffer arena and the targets registered with it when the kernel and the locked-memory limit
//! allow it.

use crate::engines::arena::Arena;
use crate::engines::seam::RingMode;
use io_uring::{IoUring, cqueue, squeue};
use std::io;
use std::os::fd::RawFd;

/// Builds a ring of at least `entries` submission entries, trying the fastest modes first.
pub fn build_ring<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
    entries: u32,
) -> io::Result<(IoUring<S, C>, RingMode)> {
    let entries = entries.max(1).next_power_of_two();
    // CLAMP: a request beyond the kernel's maximum gets the maximum (the worker then hands full
    // submission queues to the kernel as it goes) rather than failing.
    // NO_SQARRAY (6.6+): the kernel reads each entry at its ring index, one indirection (and one
    // cache line) less per submitted I/O; t/io_uring sets it too. Without it on older kernels.
    for no_sqarray in [true, false] {
        let mut b = IoUring::<S, C>::builder();
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
    if let Ok(r) = IoUring::<S, C>::builder()
        .setup_clamp()
        .setup_coop_taskrun()
        .build(entries)
    {
        return Ok((r, RingMode::Coop));
    }
    IoUring::<S, C>::builder()
        .setup_clamp()
        .build(entries)
        .map(|r| (r, RingMode::Plain))
}

/// Builds a ring whose submissions a kernel thread takes (`sqpoll = true`): SQPOLL, pinned with
/// SQ_AFF when a CPU is given, with the other flags SQPOLL allows (DEFER_TASKRUN is not one of
/// them: its completions are delivered only by the thread that submits, which here is the
/// kernel's). Not falling back to a ring without the thread: the spec asked for it, and a run
/// without it would measure something else, so the kernel's refusal is the point's error.
pub fn build_sqpoll_ring<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
    entries: u32,
    sq: rigel_plan::SqPoll,
) -> io::Result<IoUring<S, C>> {
    let entries = entries.max(1).next_power_of_two();
    let mut last = None;
    for (no_sqarray, single_issuer) in [(true, true), (false, true), (false, false)] {
        let mut b = IoUring::<S, C>::builder();
        b.setup_clamp().setup_sqpoll(sq.idle_ms);
        if let Some(cpu) = sq.cpu {
            b.setup_sqpoll_cpu(cpu);
        }
        if single_issuer {
            b.setup_single_issuer();
        }
        if no_sqarray {
            b.setup_no_sqarray();
        }
        match b.build(entries) {
            Ok(r) => return Ok(r),
            Err(e) => last = Some(e),
        }
    }
    let e = last.unwrap_or_else(|| io::Error::from_raw_os_error(libc::EINVAL));
    Err(io::Error::new(
        e.kind(),
        format!("io_uring refused a submission thread (sqpoll): {e}"),
    ))
}

/// Builds a polled ring (`polled = true`): IOPOLL with the fastest flags the kernel accepts beside
/// it. No fallback to an interrupt-driven ring: the spec asked for polling.
pub fn build_polled_ring<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
    entries: u32,
) -> io::Result<(IoUring<S, C>, RingMode)> {
    let entries = entries.max(1).next_power_of_two();
    let mut b = IoUring::<S, C>::builder();
    b.setup_clamp()
        .setup_iopoll()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .setup_coop_taskrun();
    if let Ok(r) = b.build(entries) {
        return Ok((r, RingMode::Deferred));
    }
    IoUring::<S, C>::builder()
        .setup_clamp()
        .setup_iopoll()
        .build(entries)
        .map(|r| (r, RingMode::Plain))
        .map_err(|e| io::Error::new(e.kind(), format!("io_uring refused a polled ring: {e}")))
}

/// The largest buffer io_uring registers as one (a longer one is refused with EFAULT).
const MAX_REGISTERED: usize = 1 << 30;

/// Registers the arena with the ring as fixed buffers, as few as the kernel allows: one for all
/// the slots, or one per GiB cut at slot boundaries. `slots` are the slots' (offset, length) in the
/// arena, in arena order; returns each slot's buffer index.
///
/// One buffer for all slots is what t/io_uring registers: every I/O then reaches its pages
/// through the same registered node, whose cache lines stay hot, where one buffer per slot
/// spread the kernel's lookups over as many nodes (`io_import_reg_buf` took 3.5% of the CPU at
/// QD 64 on page-cache reads against t/io_uring's 1.8%). The pages an I/O covers are the same
/// either way, so a device sees the same segments.
pub fn register_buffers<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
    ring: &IoUring<S, C>,
    arena: &Arena,
    slots: &[(usize, usize)],
) -> io::Result<Vec<u16>> {
    let chunks = chunk_slots(slots, MAX_REGISTERED);
    let iovecs: Vec<libc::iovec> = chunks
        .iter()
        .map(|&(off, len)| libc::iovec {
            iov_base: arena.range(off, len).cast(),
            iov_len: len,
        })
        .collect();
    // SAFETY: every iovec lies inside the arena, which outlives the ring's use of it: the
    // worker drains all I/O before dropping the arena, and drops the ring (unregistering the
    // buffers) before the arena, or leaks both.
    unsafe { ring.submitter().register_buffers(&iovecs)? };
    let mut index = Vec::with_capacity(slots.len());
    let mut chunk = 0;
    for &(off, _) in slots {
        while off >= chunks[chunk].0 + chunks[chunk].1 {
            chunk += 1;
        }
        index.push(u16::try_from(chunk).map_err(|_| io::Error::from_raw_os_error(libc::E2BIG))?);
    }
    Ok(index)
}

/// Cuts slots (offset, length; in increasing offset order, not overlapping) into runs no longer
/// than `max` bytes each, from the first slot's start to the last slot's end; a slot longer than
/// `max` is a run of its own.
fn chunk_slots(slots: &[(usize, usize)], max: usize) -> Vec<(usize, usize)> {
    let mut chunks: Vec<(usize, usize)> = Vec::new();
    for &(off, len) in slots {
        match chunks.last_mut() {
            Some((start, run)) if off + len - *start <= max => *run = off + len - *start,
            _ => chunks.push((off, len)),
        }
    }
    chunks
}

/// Registers the targets' descriptors with the ring, index = target index.
pub fn register_files<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
    ring: &IoUring<S, C>,
    fds: &[RawFd],
) -> io::Result<()> {
    ring.submitter().register_files(fds)
}

/// Queues `entry`, handing the queue to the kernel while it is full (only with more requests than
/// ring entries).
///
/// # Safety
/// Everything `entry` references (buffers, timespecs, descriptors) must stay valid until its
/// completion is reaped, as for [`squeue::SubmissionQueue::push`].
pub unsafe fn push_or_submit<S: squeue::EntryMarker>(
    sq: &mut squeue::SubmissionQueue<'_, S>,
    submitter: &io_uring::Submitter<'_>,
    entry: &S,
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

#[cfg(test)]
mod tests {
    use super::chunk_slots;

    #[test]
    #[serial_test::parallel]
    fn slots_make_one_chunk_up_to_the_limit() {
        let slots: Vec<(usize, usize)> = (0..64).map(|i| (i * 4096, 4096)).collect();
        assert_eq!(chunk_slots(&slots, 1 << 30), vec![(0, 64 * 4096)]);
    }

    #[test]
    #[serial_test::parallel]
    fn chunks_are_cut_at_slot_boundaries() {
        // Slots of 3 KiB padded to 4 KiB strides: a chunk ends with its last slot's bytes.
        let slots: Vec<(usize, usize)> = (0..5).map(|i| (i * 4096, 3072)).collect();
        assert_eq!(
            chunk_slots(&slots, 8192),
            vec![(0, 7168), (8192, 7168), (16384, 3072)]
        );
        // A slot larger than the limit is a chunk of its own.
        assert_eq!(
            chunk_slots(&[(0, 100), (4096, 9000), (16384, 100)], 4096),
            vec![(0, 100), (4096, 9000), (16384, 100)]
        );
    }
}
