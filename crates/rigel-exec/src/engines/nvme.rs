//! NVMe commands sent straight to a namespace's generic character device (`/dev/ngXnY`): the
//! command layout the kernel's passthrough takes (`struct nvme_uring_cmd`, which is also
//! `struct nvme_passthru_cmd` but for its last word), the namespace's identity (NSID from
//! `NVME_IOCTL_ID`, size and LBA format from an Identify Namespace admin command), and one
//! synchronous read (`NVME_IOCTL_IO_CMD`) for the reads that happen off the hot path (`verify`'s
//! read-back). The hot path's commands go through io_uring (`io_uring::passthru`).

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};

/// NVMe I/O command set opcodes.
pub(crate) const OP_FLUSH: u8 = 0x00;
pub(crate) const OP_WRITE: u8 = 0x01;
pub(crate) const OP_READ: u8 = 0x02;
/// Dataset Management: with its Deallocate attribute, a trim of the ranges it lists.
pub(crate) const OP_DSM: u8 = 0x09;
/// DSM's Attribute Deallocate (CDW11 bit 2).
const DSM_DEALLOCATE: u32 = 1 << 2;
/// Identify (admin command set).
const OP_IDENTIFY: u8 = 0x06;
/// Write's Force Unit Access bit (CDW12 bit 30): completes only once durable (`RWF_DSYNC`).
pub(crate) const FUA: u32 = 1 << 30;

/// `_IOWR('N', 0x80, struct nvme_uring_cmd)`: io_uring's `cmd_op` for an I/O command.
pub(crate) const URING_CMD_IO: u32 = ioc_rw(0x80);
/// `_IO('N', 0x40)`: the namespace's NSID.
const IOCTL_ID: u32 = 0x4e40;
/// `_IOWR('N', 0x41, struct nvme_admin_cmd)` and `_IOWR('N', 0x43, struct nvme_passthru_cmd)`.
const IOCTL_ADMIN_CMD: u32 = ioc_rw(0x41);
const IOCTL_IO_CMD: u32 = ioc_rw(0x43);

/// `_IOWR('N', nr, <72-byte struct>)`.
const fn ioc_rw(nr: u32) -> u32 {
    (3 << 30) | ((size_of::<Cmd>() as u32) << 16) | ((b'N' as u32) << 8) | nr
}

/// `struct nvme_uring_cmd` / `struct nvme_passthru_cmd` (72 bytes; the last word is the
/// ioctl's result, reserved in io_uring's form).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Cmd {
    pub opcode: u8,
    pub flags: u8,
    pub rsvd1: u16,
    pub nsid: u32,
    pub cdw2: u32,
    pub cdw3: u32,
    pub metadata: u64,
    pub addr: u64,
    pub metadata_len: u32,
    pub data_len: u32,
    pub cdw10: u32,
    pub cdw11: u32,
    pub cdw12: u32,
    pub cdw13: u32,
    pub cdw14: u32,
    pub cdw15: u32,
    pub timeout_ms: u32,
    pub result: u32,
}

const _: () = assert!(size_of::<Cmd>() == 72);

impl Cmd {
    /// The command as the 80 bytes of an SQE128's command area (zero-padded).
    pub(crate) fn bytes(&self) -> [u8; 80] {
        let mut out = [0u8; 80];
        let words = [
            u32::from(self.opcode) | u32::from(self.flags) << 8 | u32::from(self.rsvd1) << 16,
            self.nsid,
            self.cdw2,
            self.cdw3,
            self.metadata as u32,
            (self.metadata >> 32) as u32,
            self.addr as u32,
            (self.addr >> 32) as u32,
            self.metadata_len,
            self.data_len,
            self.cdw10,
            self.cdw11,
            self.cdw12,
            self.cdw13,
            self.cdw14,
            self.cdw15,
            self.timeout_ms,
            self.result,
        ];
        for (chunk, w) in out.chunks_exact_mut(4).zip(words) {
            chunk.copy_from_slice(&w.to_ne_bytes());
        }
        out
    }
}

/// A namespace as its identify data describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Namespace {
    pub nsid: u32,
    /// log2 of the LBA data size of the namespace's current format.
    pub lba_shift: u32,
    /// Namespace size in LBAs (NSZE).
    pub blocks: u64,
    /// DLFEAT bits 2:0 are 001b: a deallocated (trimmed) block reads back as zeros.
    pub reads_zeros_after_trim: bool,
}

impl Namespace {
    /// The namespace behind the generic character device `fd` (Identify Namespace, CNS 0).
    pub(crate) fn identify(fd: BorrowedFd<'_>) -> io::Result<Namespace> {
        let raw = fd.as_raw_fd();
        // SAFETY: NVME_IOCTL_ID takes no argument; on a descriptor that is not an NVMe
        // namespace the kernel answers an error (checked).
        let nsid = unsafe { libc::ioctl(raw, IOCTL_ID as _) };
        if nsid <= 0 {
            return Err(io::Error::other(format!(
                "not an NVMe namespace (NVME_IOCTL_ID: {})",
                io::Error::last_os_error()
            )));
        }
        let nsid = nsid as u32;
        let mut data = vec![0u8; 4096];
        let mut cmd = Cmd {
            opcode: OP_IDENTIFY,
            nsid,
            addr: data.as_mut_ptr() as u64,
            data_len: data.len() as u32,
            ..Cmd::default()
        };
        ioctl_cmd(raw, IOCTL_ADMIN_CMD, &mut cmd)
            .map_err(|e| io::Error::new(e.kind(), format!("Identify Namespace {nsid}: {e}")))?;
        parse_identify(nsid, &data)
    }

    /// The command reading or writing `len` bytes at byte `offset` from or to `addr`.
    #[inline(always)]
    pub(crate) fn rw(&self, write: bool, fua: bool, offset: u64, addr: u64, len: u32) -> Cmd {
        let slba = offset >> self.lba_shift;
        let nlb = (len >> self.lba_shift).saturating_sub(1);
        Cmd {
            opcode: if write { OP_WRITE } else { OP_READ },
            nsid: self.nsid,
            addr,
            data_len: len,
            cdw10: slba as u32,
            cdw11: (slba >> 32) as u32,
            cdw12: nlb | if write && fua { FUA } else { 0 },
            ..Cmd::default()
        }
    }

    /// A Dataset Management command deallocating (trimming) `len` bytes at byte `offset`: one
    /// range, written into `range` (16 bytes the caller keeps until the command completes).
    /// None when the range's block count does not fit the command's 32 bits.
    pub(crate) fn trim(&self, offset: u64, len: u64, range: &mut [u8; 16]) -> Option<Cmd> {
        let blocks = u32::try_from(len >> self.lba_shift).ok()?;
        // Context attributes (none), length in blocks, starting LBA.
        range[0..4].copy_from_slice(&0u32.to_le_bytes());
        range[4..8].copy_from_slice(&blocks.to_le_bytes());
        range[8..16].copy_from_slice(&(offset >> self.lba_shift).to_le_bytes());
        Some(Cmd {
            opcode: OP_DSM,
            nsid: self.nsid,
            addr: range.as_ptr() as u64,
            data_len: 16,
            // One range (0-based count).
            cdw10: 0,
            cdw11: DSM_DEALLOCATE,
            ..Cmd::default()
        })
    }

    /// The namespace's Flush command.
    pub(crate) fn flush(&self) -> Cmd {
        Cmd {
            opcode: OP_FLUSH,
            nsid: self.nsid,
            ..Cmd::default()
        }
    }

    /// Reads `buf.len()` bytes at byte `offset` synchronously (off the hot path), in pieces
    /// the kernel maps at once.
    pub(crate) fn read_at(
        &self,
        fd: BorrowedFd<'_>,
        buf: &mut [u8],
        offset: u64,
    ) -> io::Result<()> {
        /// Below any controller's transfer limit (MDTS is at least 4 KiB pages × 2^5 in
        /// practice; Linux caps a passthrough ioctl at the queue's max_hw_sectors).
        const PIECE: usize = 128 << 10;
        let block = 1usize << self.lba_shift;
        if offset % block as u64 != 0 || buf.len() % block != 0 {
            return Err(io::Error::other(format!(
                "a passthrough read of {} bytes at {offset} is not in whole {block}-byte blocks",
                buf.len()
            )));
        }
        let mut done = 0;
        while done < buf.len() {
            let n = (buf.len() - done).min(PIECE);
            let piece = &mut buf[done..done + n];
            let mut cmd = self.rw(
                false,
                false,
                offset + done as u64,
                piece.as_mut_ptr() as u64,
                n as u32,
            );
            ioctl_cmd(fd.as_raw_fd(), IOCTL_IO_CMD, &mut cmd)?;
            done += n;
        }
        Ok(())
    }
}

/// Sends `cmd` through a passthrough ioctl; an NVMe status is an I/O error naming it.
fn ioctl_cmd(fd: RawFd, request: u32, cmd: &mut Cmd) -> io::Result<()> {
    // SAFETY: `cmd` is a live, correctly laid out passthrough command (72 bytes, checked above)
    // whose `addr` and `data_len`, when set, describe a buffer the caller holds mutably for the
    // call; the ioctl is synchronous, so nothing outlives it.
    let rc = unsafe { libc::ioctl(fd, request as _, cmd as *mut Cmd) };
    match rc {
        0 => Ok(()),
        rc if rc < 0 => Err(io::Error::last_os_error()),
        status => Err(status_error(status)),
    }
}

/// An NVMe completion status (status code type and code) as an I/O error.
pub(crate) fn status_error(status: i32) -> io::Error {
    io::Error::other(format!(
        "NVMe status {:#x} (type {:#x}, code {:#04x})",
        status,
        (status >> 8) & 0x7,
        status & 0xff
    ))
}

/// NSZE, and the LBA data size of the format FLBAS selects.
fn parse_identify(nsid: u32, data: &[u8]) -> io::Result<Namespace> {
    let blocks = u64::from_le_bytes(data[0..8].try_into().unwrap_or_default());
    let nlbaf = u32::from(data[25]);
    let flbas = u32::from(data[26]);
    // FLBAS bits 3:0, and bits 6:5 as the high bits when more than 16 formats exist.
    let index = (flbas & 0xf)
        | if nlbaf >= 16 {
            (flbas >> 5 & 0x3) << 4
        } else {
            0
        };
    let lbads = u32::from(data[128 + 4 * index as usize + 2]);
    if !(9..=16).contains(&lbads) || blocks == 0 {
        return Err(io::Error::other(format!(
            "namespace {nsid}: unusable format (LBA format {index}: 2^{lbads}-byte blocks, {blocks} blocks)"
        )));
    }
    Ok(Namespace {
        nsid,
        lba_shift: lbads,
        blocks,
        // DLFEAT (byte 33): 001b zeros, 010b all ones, 000b not reported.
        reads_zeros_after_trim: data[33] & 0x7 == 1,
    })
}

/// The namespace of `fd` when it is a character device (a passthrough target), else None; an
/// error when it is a character device that does not answer as a namespace.
pub(crate) fn passthru_namespace(fd: BorrowedFd<'_>) -> io::Result<Option<Namespace>> {
    let st = rustix::fs::fstat(fd)?;
    if rustix::fs::FileType::from_raw_mode(st.st_mode) != rustix::fs::FileType::CharacterDevice {
        return Ok(None);
    }
    Namespace::identify(fd).map(Some)
}

/// Whether any of `fds` is a character device: the worker then runs the passthrough engine.
pub(crate) fn any_passthru(fds: &[RawFd]) -> bool {
    fds.iter().any(|&fd| {
        // SAFETY: the worker's target descriptors stay open for the whole point.
        let fd = unsafe { BorrowedFd::borrow_raw(fd) };
        rustix::fs::fstat(fd).is_ok_and(|st| {
            rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::CharacterDevice
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[serial_test::parallel]
    fn the_uring_command_op_and_layout_are_the_kernels() {
        // include/uapi/linux/nvme_ioctl.h: NVME_URING_CMD_IO, NVME_IOCTL_IO_CMD.
        assert_eq!(URING_CMD_IO, 0xc048_4e80);
        assert_eq!(IOCTL_IO_CMD, 0xc048_4e43);
        let c = Namespace {
            nsid: 1,
            lba_shift: 12,
            blocks: 1 << 18,
            reads_zeros_after_trim: false,
        }
        .rw(true, true, 5 << 44 | 8192, 0x1122_3344_5566_7788, 16384);
        let b = c.bytes();
        assert_eq!(b[0], OP_WRITE);
        assert_eq!(u32::from_ne_bytes(b[4..8].try_into().unwrap()), 1);
        assert_eq!(
            u64::from_ne_bytes(b[24..32].try_into().unwrap()),
            0x1122_3344_5566_7788
        );
        assert_eq!(u32::from_ne_bytes(b[36..40].try_into().unwrap()), 16384);
        // SLBA = offset / 4096 across CDW10 (low) and CDW11 (high); NLB is 0-based.
        assert_eq!(u32::from_ne_bytes(b[40..44].try_into().unwrap()), 2);
        assert_eq!(u32::from_ne_bytes(b[44..48].try_into().unwrap()), 5);
        assert_eq!(u32::from_ne_bytes(b[48..52].try_into().unwrap()), 3 | FUA);
    }

    #[test]
    #[serial_test::parallel]
    fn a_trim_is_one_deallocated_range_in_blocks() {
        let ns = Namespace {
            nsid: 2,
            lba_shift: 12,
            blocks: 1 << 30,
            reads_zeros_after_trim: false,
        };
        let mut range = [0u8; 16];
        let c = ns.trim(5 << 32 | 8192, 65536, &mut range).unwrap();
        assert_eq!(
            (c.opcode, c.nsid, c.data_len, c.cdw10, c.cdw11),
            (OP_DSM, 2, 16, 0, 4)
        );
        assert_eq!(c.addr, range.as_ptr() as u64);
        assert_eq!(u32::from_le_bytes(range[4..8].try_into().unwrap()), 16);
        assert_eq!(
            u64::from_le_bytes(range[8..16].try_into().unwrap()),
            5 << 20 | 2
        );
        // More blocks than a range counts: refused, not truncated.
        assert!(ns.trim(0, 1 << 44, &mut range).is_none());
    }

    #[test]
    #[serial_test::parallel]
    fn identify_data_gives_the_size_and_the_current_formats_block() {
        let mut data = vec![0u8; 4096];
        data[0..8].copy_from_slice(&262_144u64.to_le_bytes());
        data[25] = 1; // two formats (0-based)
        data[26] = 1; // the second one in use
        data[128 + 2] = 9;
        data[132 + 2] = 12;
        let ns = parse_identify(1, &data).unwrap();
        assert_eq!((ns.lba_shift, ns.blocks), (12, 262_144));
        assert!(!ns.reads_zeros_after_trim);
        // DLFEAT 001b: deallocated blocks read zeros; 010b (all ones) is no promise of zeros.
        data[33] = 0x9;
        assert!(parse_identify(1, &data).unwrap().reads_zeros_after_trim);
        data[33] = 0x2;
        assert!(!parse_identify(1, &data).unwrap().reads_zeros_after_trim);
        data[26] = 2; // a format with no size: refused, not divided by
        assert!(parse_identify(1, &data).is_err());
    }

    #[test]
    #[serial_test::parallel]
    fn a_regular_file_is_no_passthrough_target() {
        let f = tempfile::tempfile().unwrap();
        assert!(
            passthru_namespace(rustix::fd::AsFd::as_fd(&f))
                .unwrap()
                .is_none()
        );
        assert!(!any_passthru(&[f.as_raw_fd()]));
    }
}
