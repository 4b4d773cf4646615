//! A trim's system calls, the one place every engine takes them from: what each target is (a
//! block device discards through the block layer, a file punches a hole), whether this kernel's
//! io_uring discards a block device itself (`BLOCK_URING_CMD_DISCARD`, Linux 6.12+), and the
//! synchronous discard the engines without it run (`BLKDISCARD`, `fallocate(PUNCH_HOLE)`).

use std::os::fd::RawFd;

/// io_uring's block discard command (`BLOCK_URING_CMD_DISCARD`, `_IO(0x12, 0)` in
/// `linux/fs.h`): an `IORING_OP_URING_CMD` on a block device's descriptor with the start in
/// `sqe->addr` and the length in `sqe->addr3`.
pub(crate) const BLOCK_URING_CMD_DISCARD: u32 = 0x12 << 8;

/// `BLKDISCARD` (`_IO(0x12, 119)`): discards `[start, start + len)` of a block device.
const BLKDISCARD: libc::c_ulong = (0x12 << 8) | 119;

/// The mode a file's trim punches a hole with: the blocks go, the size stays.
pub(crate) const PUNCH_HOLE: i32 = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;

/// Whether each descriptor is a block device (a file otherwise), read once when an engine opens.
pub(crate) fn block_targets(fds: &[RawFd]) -> Vec<bool> {
    fds.iter()
        .map(|&fd| {
            // SAFETY: `stat` is plain old data, zeroed is a valid value, and fstat only writes it;
            // `fd` is a descriptor the point keeps open.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            // SAFETY: as above.
            let rc = unsafe { libc::fstat(fd, &mut st) };
            rc == 0 && st.st_mode & libc::S_IFMT == libc::S_IFBLK
        })
        .collect()
}

/// Whether this kernel's io_uring discards a block device (`BLOCK_URING_CMD_DISCARD` came in
/// Linux 6.12); older kernels refuse the command with `-EOPNOTSUPP`, so the engines run
/// `BLKDISCARD` at the push instead.
pub(crate) fn uring_discards() -> bool {
    let release = rustix::system::uname();
    let release = release.release().to_string_lossy();
    let mut parts = release.split(|c: char| !c.is_ascii_digit());
    let major: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let minor: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    (major, minor) >= (6, 12)
}

/// Discards `len` bytes at `offset` of `fd` now, synchronously: `BLKDISCARD` on a block device,
/// `fallocate(PUNCH_HOLE | KEEP_SIZE)` on a file. 0, or `-errno`.
pub(crate) fn discard(fd: RawFd, block: bool, offset: u64, len: u64) -> i32 {
    let rc = if block {
        let range: [u64; 2] = [offset, len];
        // SAFETY: BLKDISCARD reads two u64s (start, length) from a live array; `fd` is open.
        unsafe { libc::ioctl(fd, BLKDISCARD as _, range.as_ptr()) }
    } else {
        // SAFETY: no memory is passed; `fd` is open.
        unsafe { libc::fallocate(fd, PUNCH_HOLE, offset as libc::off_t, len as libc::off_t) }
    };
    if rc < 0 {
        -std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO)
    } else {
        0
    }
}
