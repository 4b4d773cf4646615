//! A trim's system calls, the one place every engine takes them from: what each target is (a
//! block device discards through the block layer, a file punches a hole), whether this kernel's
//! io_uring discards a block device itself (`BLOCK_URING_CMD_DISCARD`, Linux 6.12+), the
//! synchronous discard the engines without it run (`BLKDISCARD`, `fallocate(PUNCH_HOLE)`), and
//! what a target promises a trimmed block reads back as (verification holds it to that).

use std::os::fd::{BorrowedFd, RawFd};

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

/// The loop driver's block major (`LOOP_MAJOR`, include/uapi/linux/major.h).
const LOOP_MAJOR: u32 = 7;

/// Why `fd` promises that a trimmed block reads back as zeros, or None where it may keep the
/// data. A file's trim punches a hole, which reads zeros; a loop device's discard punches a hole
/// in its backing file (or, over a device, zeroes it: `blkdev_fallocate`); an NVMe namespace reads
/// zeros where its Identify Namespace DLFEAT bits 2:0 are 001b. Any other device may deallocate a
/// discarded block or keep it.
pub(crate) fn zeros_after_trim(fd: BorrowedFd<'_>) -> Option<&'static str> {
    use rustix::fs::{FileType, fstat, major, minor};
    let st = fstat(fd).ok()?;
    let rdev = (major(st.st_rdev), minor(st.st_rdev));
    let block = match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => return Some("a file, whose trims punch holes that read zeros"),
        FileType::BlockDevice if rdev.0 == LOOP_MAJOR => {
            return Some("a loop device, whose discards punch holes in its file");
        }
        FileType::BlockDevice => true,
        FileType::CharacterDevice => false,
        _ => return None,
    };
    (rigel_target::is_nvme_namespace(block, rdev)
        && super::nvme::Namespace::identify(fd).is_ok_and(|ns| ns.reads_zeros_after_trim))
    .then_some("an NVMe namespace whose DLFEAT says a deallocated block reads zeros")
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
