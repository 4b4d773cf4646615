//! Recognising data worth keeping: filesystem, volume-manager and partition-table signatures at
//! the start (and end) of a device or image. A hit makes the write guard ask for `--force`.

/// Bytes from the start of a target that `detect` looks at.
pub const HEAD_LEN: usize = 256 << 10;
/// Bytes from the end of a target that `detect_tail` looks at.
pub const TAIL_LEN: usize = 128 << 10;

/// (offset from the start, magic bytes, what it means). Specific signatures come before the
/// generic boot-sector one that many of them also carry.
const HEAD_MAGICS: &[(usize, &[u8], &str)] = &[
    (1080, &[0x53, 0xef], "an ext2/ext3/ext4 filesystem"),
    (0, b"XFSB", "an XFS filesystem"),
    (0x10040, b"_BHRfS_M", "a btrfs filesystem"),
    (1024, &[0x10, 0x20, 0xf5, 0xf2], "an F2FS filesystem"),
    (3, b"NTFS    ", "an NTFS filesystem"),
    (3, b"EXFAT   ", "an exFAT filesystem"),
    (54, b"FAT12   ", "a FAT filesystem"),
    (54, b"FAT16   ", "a FAT filesystem"),
    (82, b"FAT32   ", "a FAT filesystem"),
    (0, b"hsqs", "a squashfs filesystem"),
    (32769, b"CD001", "an ISO 9660 filesystem"),
    (4086, b"SWAPSPACE2", "a swap area"),
    (4086, b"SWAP-SPACE", "a swap area"),
    (65526, b"SWAPSPACE2", "a swap area"),
    (0, b"LUKS\xba\xbe", "a LUKS encrypted volume"),
    (0, b"LABELONE", "an LVM2 physical volume"),
    (512, b"LABELONE", "an LVM2 physical volume"),
    (1024, b"LABELONE", "an LVM2 physical volume"),
    (1536, b"LABELONE", "an LVM2 physical volume"),
    (0, &[0xfc, 0x4e, 0x2b, 0xa9], "an md RAID member (1.1)"),
    (4096, &[0xfc, 0x4e, 0x2b, 0xa9], "an md RAID member (1.2)"),
    (
        4096 + 24,
        &[
            0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca, 0x82, 0x65, 0xf5, 0x7f, 0x48, 0xba,
            0x6d, 0x81,
        ],
        "a bcache device",
    ),
    (0, b"bluestore block device", "a Ceph BlueStore device"),
    (512, b"EFI PART", "a GPT partition table"),
    (4096, b"EFI PART", "a GPT partition table"),
    (510, &[0x55, 0xaa], "an MBR partition table or boot sector"),
];

/// ZFS keeps its uberblock ring in the second 128 KiB of each label, 1 KiB slots at least.
const ZFS_UBERBLOCKS: std::ops::Range<usize> = (128 << 10)..(256 << 10);
const ZFS_MAGIC: [u8; 8] = 0x00ba_b10c_u64.to_le_bytes();

/// What the first bytes of a target hold, if it looks like anyone's data.
pub fn detect(head: &[u8]) -> Option<&'static str> {
    let hit = HEAD_MAGICS
        .iter()
        .find(|(off, magic, _)| head.get(*off..off + magic.len()) == Some(magic));
    if let Some((_, _, what)) = hit {
        return Some(what);
    }
    let zfs = ZFS_UBERBLOCKS
        .step_by(1024)
        .any(|off| head.get(off..off + 8) == Some(&ZFS_MAGIC[..]));
    zfs.then_some("a ZFS pool member")
}

/// What the last bytes of a target of `size` bytes hold: `tail` ends at `size`. Looks for the GPT
/// backup header and md metadata kept at the end (0.90 and 1.0).
pub fn detect_tail(tail: &[u8], size: u64, logical_block_size: u32) -> Option<&'static str> {
    let start = size - tail.len() as u64;
    let at = |offset: u64, magic: &[u8]| {
        let Some(rel) = offset.checked_sub(start) else {
            return false;
        };
        let rel = rel as usize;
        tail.get(rel..rel + magic.len()) == Some(magic)
    };
    let md_magic = [0xfc, 0x4e, 0x2b, 0xa9];
    if size >= u64::from(logical_block_size)
        && at(size - u64::from(logical_block_size), b"EFI PART")
    {
        return Some("a GPT partition table (backup header)");
    }
    let md090 = (size & !0xffff).checked_sub(0x10000);
    if md090.is_some_and(|off| at(off, &md_magic)) {
        return Some("an md RAID member (0.90)");
    }
    let md10 = (size.saturating_sub(8192)) & !0xfff;
    (size >= 8192 && at(md10, &md_magic)).then_some("an md RAID member (1.0)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(offset: usize, magic: &[u8]) -> Vec<u8> {
        let mut head = vec![0u8; HEAD_LEN];
        head[offset..offset + magic.len()].copy_from_slice(magic);
        head
    }

    #[test]
    fn zeros_and_short_heads_are_clean() {
        assert_eq!(detect(&vec![0u8; HEAD_LEN]), None);
        assert_eq!(detect(&[]), None);
        assert_eq!(detect(&[0x55, 0xaa]), None);
    }

    #[test]
    fn every_magic_is_found() {
        for (off, magic, what) in HEAD_MAGICS {
            let found = detect(&with(*off, magic));
            // FAT and NTFS boot sectors also end in 55 AA; the specific name must win.
            assert_eq!(found, Some(*what), "magic at {off}");
        }
        assert_eq!(
            detect(&with(130 << 10, &ZFS_MAGIC)),
            Some("a ZFS pool member")
        );
    }

    #[test]
    fn specific_names_win_over_the_boot_sector() {
        let mut head = with(82, b"FAT32   ");
        head[510] = 0x55;
        head[511] = 0xaa;
        assert_eq!(detect(&head), Some("a FAT filesystem"));
    }

    #[test]
    fn tail_signatures() {
        let size = 10 << 20;
        let mut tail = vec![0u8; TAIL_LEN];
        assert_eq!(detect_tail(&tail, size, 512), None);
        tail[TAIL_LEN - 512..TAIL_LEN - 504].copy_from_slice(b"EFI PART");
        assert_eq!(
            detect_tail(&tail, size, 512),
            Some("a GPT partition table (backup header)")
        );
        let mut tail = vec![0u8; TAIL_LEN];
        let off = TAIL_LEN - 0x10000;
        tail[off..off + 4].copy_from_slice(&[0xfc, 0x4e, 0x2b, 0xa9]);
        assert_eq!(
            detect_tail(&tail, size, 512),
            Some("an md RAID member (0.90)")
        );
        assert_eq!(detect_tail(&[], 0, 512), None);
    }
}
