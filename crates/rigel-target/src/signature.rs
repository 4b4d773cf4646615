//! Recognising data worth keeping: filesystem, volume-manager and partition-table signatures at
//! the start (and end) of a device or image. A hit makes the write guard ask for `--force`.

/// Bytes from the start of a target that `detect` looks at: up to the last LUKS2 secondary header
/// (4 MiB) and VMFS's superblock (2 MiB).
pub const HEAD_LEN: usize = (4 << 20) + (4 << 10);
/// Bytes from the end of a target that `detect_tail` looks at: ZFS's two end labels (512 KiB plus
/// up to 256 KiB of alignment) and DRBD's metadata.
pub const TAIL_LEN: usize = 1 << 20;

/// (offset from the start, magic bytes, what it means). Specific signatures come before the
/// generic boot-sector one that many of them also carry. Offsets follow util-linux's libblkid
/// (libblkid/src/superblocks/*.c, partitions/*.c) unless a comment says otherwise.
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
    // luks.c: LUKS1 and LUKS2 share the primary magic; LUKS2 keeps a secondary header ("SKUL")
    // at one of LUKS2_HDR2_OFFSETS.
    (0, b"LUKS\xba\xbe", "a LUKS encrypted volume"),
    (0x4000, b"SKUL\xba\xbe", "a LUKS encrypted volume"),
    (0x8000, b"SKUL\xba\xbe", "a LUKS encrypted volume"),
    (0x10000, b"SKUL\xba\xbe", "a LUKS encrypted volume"),
    (0x20000, b"SKUL\xba\xbe", "a LUKS encrypted volume"),
    (0x40000, b"SKUL\xba\xbe", "a LUKS encrypted volume"),
    (0x80000, b"SKUL\xba\xbe", "a LUKS encrypted volume"),
    (0x100000, b"SKUL\xba\xbe", "a LUKS encrypted volume"),
    (0x200000, b"SKUL\xba\xbe", "a LUKS encrypted volume"),
    (0x400000, b"SKUL\xba\xbe", "a LUKS encrypted volume"),
    (0, b"LABELONE", "an LVM2 physical volume"),
    (512, b"LABELONE", "an LVM2 physical volume"),
    (1024, b"LABELONE", "an LVM2 physical volume"),
    (1536, b"LABELONE", "an LVM2 physical volume"),
    (0, &[0xfc, 0x4e, 0x2b, 0xa9], "an md RAID member (1.1)"),
    (4096, &[0xfc, 0x4e, 0x2b, 0xa9], "an md RAID member (1.2)"),
    // ocfs.c: oracleasm_idinfo, the ASMLib disk label.
    (32, b"ORCLDISK", "an Oracle ASM disk (ASMLib label)"),
    // ocfs.c: ocfs2_idinfo at 1, 2, 4 and 8 KiB (by block size); ocfs_idinfo at 8 KiB.
    (1 << 10, b"OCFSV2", "an OCFS2 filesystem"),
    (2 << 10, b"OCFSV2", "an OCFS2 filesystem"),
    (4 << 10, b"OCFSV2", "an OCFS2 filesystem"),
    (8 << 10, b"OCFSV2", "an OCFS2 filesystem"),
    (8 << 10, b"OracleCFS", "an OCFS filesystem"),
    // bcache.c: BCACHE_SB_OFF (4096) + offsetof(magic) (24).
    (
        4096 + 24,
        &[
            0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca, 0x82, 0x65, 0xf5, 0x7f, 0x48, 0xba,
            0x6d, 0x81,
        ],
        "a bcache device",
    ),
    (
        4096 + 24,
        &[
            0xc6, 0x85, 0x73, 0xf6, 0x66, 0xce, 0x90, 0xa9, 0xd9, 0x6a, 0x60, 0xcf, 0x80, 0x3d,
            0xf7, 0xef,
        ],
        "a bcachefs device",
    ),
    // bluestore.c
    (0, b"bluestore block device", "a Ceph BlueStore device"),
    // vmfs.c: VMFS_volume_member at 1 MiB, VMFS at 2 MiB.
    (1 << 20, &[0x0d, 0xd0, 0x01, 0xc0], "a VMware VMFS volume"),
    (2 << 20, &[0x5e, 0xf1, 0xab, 0x2f], "a VMware VMFS volume"),
    // vxfs.c
    (1024, &[0xf5, 0xfc, 0x01, 0xa5], "a VxFS filesystem"),
    (8192, &[0xa5, 0x01, 0xfc, 0xf5], "a VxFS filesystem"),
    (512, b"EFI PART", "a GPT partition table"),
    (4096, b"EFI PART", "a GPT partition table"),
    // partitions/sun.c: the Sun VTOC label, also the platform block of a VxVM cdsdisk.
    (
        508,
        &[0xda, 0xbe],
        "a Sun VTOC disk label (Solaris, or a VxVM cdsdisk)",
    ),
    (510, &[0x55, 0xaa], "an MBR partition table or boot sector"),
];

/// Windows LDM (and VxVM, whose design it licensed) start their private region with a PRIVHEAD
/// sector. libblkid does not know it; the kernel's block/partitions/ldm.h puts the first copy at
/// sector 6 (OFF_PRIV1) and the last in the disk's last sector. VxVM's private region moves with
/// its format, so every sector of the head is looked at.
const PRIVHEAD: &[u8] = b"PRIVHEAD";
const PRIVHEAD_NAME: &str = "a Windows LDM or Veritas VxVM private region";

/// zfs.c: four 256 KiB vdev labels, two at the start and two at the end (aligned down to 256
/// KiB); each keeps its uberblock ring in its second 128 KiB, 1 KiB slots at least, and the
/// uberblock starts with 0x00bab10c in the writer's byte order.
const ZFS_LABEL: u64 = 256 << 10;
const ZFS_MAGIC: u64 = 0x00ba_b10c;

fn zfs_label_holds_uberblock(bytes: &[u8], label_start: usize) -> bool {
    let ring = label_start + (128 << 10)..label_start + (256 << 10);
    ring.step_by(1024).any(|off| {
        bytes.get(off..off + 8).is_some_and(|b| {
            b == ZFS_MAGIC.to_le_bytes().as_slice() || b == ZFS_MAGIC.to_be_bytes().as_slice()
        })
    })
}

/// What the first bytes of a target hold, if it looks like anyone's data.
pub fn detect(head: &[u8]) -> Option<&'static str> {
    let hit = HEAD_MAGICS
        .iter()
        .find(|(off, magic, _)| head.get(*off..off + magic.len()) == Some(magic));
    if let Some((_, _, what)) = hit {
        return Some(what);
    }
    if head.chunks(512).any(|s| s.starts_with(PRIVHEAD)) {
        return Some(PRIVHEAD_NAME);
    }
    let zfs = (0..2).any(|l| zfs_label_holds_uberblock(head, l * ZFS_LABEL as usize));
    zfs.then_some("a ZFS pool member")
}

/// What the last bytes of a target of `size` bytes hold: `tail` ends at `size`. Looks for the GPT
/// backup header, md metadata kept at the end (0.90 and 1.0), ZFS's end labels, DRBD's metadata
/// and LDM's last PRIVHEAD.
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
    if size >= 8192 && at(md10, &md_magic) {
        return Some("an md RAID member (1.0)");
    }
    // drbd.c: kboff -4 (size - 4096), magic at offsetof(md_on_disk_08 / meta_data_on_disk_9,
    // magic) = 60, big-endian: 8.x clean and unclean, 9.
    let drbd = size.checked_sub(4096).map(|o| o + 60);
    let drbd_magics: [&[u8]; 3] = [
        b"\x83\x74\x02\x6b",
        b"\x83\x74\x02\x6c",
        b"\x83\x74\x02\x6d",
    ];
    if drbd.is_some_and(|off| drbd_magics.iter().any(|m| at(off, m))) {
        return Some("a DRBD device (metadata at the end)");
    }
    if size >= 512 && at(size - 512, PRIVHEAD) {
        return Some(PRIVHEAD_NAME);
    }
    // zfs.c label_offset(): labels 2 and 3 end at the size aligned down to 256 KiB.
    let end = size - size % ZFS_LABEL;
    let zfs = [2, 1].iter().any(|&back| {
        end.checked_sub(back * ZFS_LABEL)
            .and_then(|label| label.checked_sub(start))
            .is_some_and(|rel| zfs_label_holds_uberblock(tail, rel as usize))
    });
    zfs.then_some("a ZFS pool member (end labels)")
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
            detect(&with(130 << 10, &ZFS_MAGIC.to_le_bytes())),
            Some("a ZFS pool member")
        );
        assert_eq!(
            detect(&with((256 + 129) << 10, &ZFS_MAGIC.to_be_bytes())),
            Some("a ZFS pool member")
        );
        assert_eq!(detect(&with(3072, b"PRIVHEAD")), Some(PRIVHEAD_NAME));
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

    #[test]
    fn end_signatures_drbd_ldm_and_zfs() {
        let size: u64 = 64 << 20;
        let at = |offset: u64, magic: &[u8]| {
            let mut tail = vec![0u8; TAIL_LEN];
            let rel = (offset - (size - TAIL_LEN as u64)) as usize;
            tail[rel..rel + magic.len()].copy_from_slice(magic);
            detect_tail(&tail, size, 512)
        };
        assert_eq!(
            at(size - 4096 + 60, b"\x83\x74\x02\x6d"),
            Some("a DRBD device (metadata at the end)")
        );
        assert_eq!(at(size - 512, b"PRIVHEAD"), Some(PRIVHEAD_NAME));
        let label3 = size - ZFS_LABEL;
        assert_eq!(
            at(label3 + (200 << 10), &ZFS_MAGIC.to_le_bytes()),
            Some("a ZFS pool member (end labels)")
        );
        // Outside the uberblock ring (its first 128 KiB hold the name-value pairs): nothing.
        assert_eq!(at(label3 + (16 << 10), &ZFS_MAGIC.to_le_bytes()), None);
    }
}
