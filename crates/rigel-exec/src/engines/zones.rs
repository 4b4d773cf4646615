//! A zoned block device's zones as the kernel reports them (`BLKREPORTZONE`) and their reset
//! (`BLKRESETZONE`): the two calls `zones = "sequential"` makes off the hot path's clock
//! (`policy::zones`). Here because they need `unsafe` (ioctls with kernel structures).

use std::io;
use std::os::fd::RawFd;

/// `_IOWR(0x12, 130, struct blk_zone_report)`, `_IOW(0x12, 131, struct blk_zone_range)`.
const BLKREPORTZONE: u32 = (3 << 30) | (16 << 16) | (0x12 << 8) | 130;
const BLKRESETZONE: u32 = (1 << 30) | (16 << 16) | (0x12 << 8) | 131;
/// `struct blk_zone_report`'s flag: the zones' `capacity` is valid (5.9+).
const REP_CAPACITY: u32 = 1;
/// Zone types and conditions (`linux/blkzoned.h`).
const TYPE_CONVENTIONAL: u8 = 1;
const COND_READONLY: u8 = 0xd;
const COND_FULL: u8 = 0xe;
const COND_OFFLINE: u8 = 0xf;

/// `struct blk_zone` (64 bytes; sectors of 512 bytes).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct BlkZone {
    start: u64,
    len: u64,
    wp: u64,
    kind: u8,
    cond: u8,
    non_seq: u8,
    reset: u8,
    resv: [u8; 4],
    capacity: u64,
    reserved: [u8; 24],
}

const _: () = assert!(size_of::<BlkZone>() == 64);

/// `struct blk_zone_report` followed by room for `BATCH` zones.
#[repr(C)]
struct Report {
    sector: u64,
    nr_zones: u32,
    flags: u32,
    zones: [BlkZone; BATCH],
}

const BATCH: usize = 64;

/// One sequential-write zone, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Zone {
    pub start: u64,
    /// Bytes that may be written from `start` (the zone's capacity, at most its size).
    pub capacity: u64,
    /// The write pointer (`start + capacity` when full).
    pub wp: u64,
}

impl Zone {
    pub(crate) fn is_full(&self) -> bool {
        self.wp >= self.start + self.capacity
    }
}

/// The sequential-write zones of the block device `fd` (conventional, read-only and offline ones
/// left out); empty when the device is not zoned (the kernel refuses the report).
pub(crate) fn report(fd: RawFd) -> io::Result<Vec<Zone>> {
    let mut out = Vec::new();
    let mut sector = 0u64;
    loop {
        let mut rep = Box::new(Report {
            sector,
            nr_zones: BATCH as u32,
            flags: 0,
            zones: [BlkZone::default(); BATCH],
        });
        // SAFETY: `rep` is a live `struct blk_zone_report` with room for `nr_zones` zones after
        // its header, which the kernel fills; the call is synchronous.
        let rc = unsafe { libc::ioctl(fd, BLKREPORTZONE as _, &mut *rep as *mut Report) };
        if rc < 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                // Not a zoned device (ENOTTY on a file, EOPNOTSUPP on a regular disk).
                Some(libc::ENOTTY | libc::EOPNOTSUPP | libc::EINVAL) if out.is_empty() => Ok(out),
                _ => Err(io::Error::new(e.kind(), format!("BLKREPORTZONE: {e}"))),
            };
        }
        let n = (rep.nr_zones as usize).min(BATCH);
        if n == 0 {
            return Ok(out);
        }
        for z in &rep.zones[..n] {
            sector = z.start + z.len;
            if z.kind == TYPE_CONVENTIONAL || matches!(z.cond, COND_READONLY | COND_OFFLINE) {
                continue;
            }
            let capacity = if rep.flags & REP_CAPACITY != 0 && z.capacity > 0 {
                z.capacity
            } else {
                z.len
            };
            let wp = if z.cond == COND_FULL {
                z.start + capacity
            } else {
                z.wp
            };
            out.push(Zone {
                start: z.start * 512,
                capacity: capacity * 512,
                wp: wp * 512,
            });
        }
    }
}

/// Resets the zone starting at byte `start` (its write pointer back to its start, its data gone).
pub(crate) fn reset(fd: RawFd, zone: &Zone) -> io::Result<()> {
    // The kernel resets whole zones, named by their start and the zone size.
    let range: [u64; 2] = [zone.start / 512, zone_sectors(fd)?];
    // SAFETY: BLKRESETZONE reads a `struct blk_zone_range` (two u64s) from a live array.
    let rc = unsafe { libc::ioctl(fd, BLKRESETZONE as _, range.as_ptr()) };
    if rc < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(
            e.kind(),
            format!("BLKRESETZONE at byte {}: {e}", zone.start),
        ));
    }
    Ok(())
}

/// The device's zone size in sectors (`BLKGETZONESZ`).
fn zone_sectors(fd: RawFd) -> io::Result<u64> {
    /// `_IOR(0x12, 132, __u32)`.
    const BLKGETZONESZ: u32 = (2 << 30) | (4 << 16) | (0x12 << 8) | 132;
    let mut sectors: u32 = 0;
    // SAFETY: BLKGETZONESZ writes one u32 into a live variable.
    let rc = unsafe { libc::ioctl(fd, BLKGETZONESZ as _, &mut sectors as *mut u32) };
    if rc < 0 || sectors == 0 {
        return Err(io::Error::other(format!(
            "BLKGETZONESZ: {}",
            io::Error::last_os_error()
        )));
    }
    Ok(u64::from(sectors))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[serial_test::parallel]
    fn the_ioctl_numbers_are_the_kernels() {
        // linux/blkzoned.h on x86_64.
        assert_eq!(BLKREPORTZONE, 0xc010_1282);
        assert_eq!(BLKRESETZONE, 0x4010_1283);
    }

    #[test]
    #[serial_test::parallel]
    fn a_file_has_no_zones() {
        use std::os::fd::AsRawFd;
        let f = tempfile::tempfile().unwrap();
        assert!(report(f.as_raw_fd()).unwrap().is_empty());
    }
}
