//! Tests that need root: real block devices (`rigel_testkit`'s loop devices, detached by a guard
//! even when the test fails) and mounts (ext4 on those, and a ramfs, which has no user xattrs).
//! They run as root (as `.ci/run` does) and fail, saying what is missing, elsewhere.

use super::open::test_plan;
use super::*;
use rigel_plan::{Layout, PlannedTarget, RunPlan};
use rigel_testkit::{LoopDevice, is_root};
use std::fs;
use std::ops::ControlFlow;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Command;

fn run(cmd: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .map_err(|e| format!("{cmd}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd} {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// A filesystem this test mounted on a temp dir; unmounted on drop (before its device goes).
struct Mount {
    dir: tempfile::TempDir,
}

impl Mount {
    fn new(device: &str) -> Mount {
        Mount::with(&[device])
    }

    /// Panics, saying why, where mounting fails (not root, no mount).
    fn with(args: &[&str]) -> Mount {
        assert!(is_root(), "mounting needs root (.ci/run runs as root)");
        let dir = tempfile::tempdir().expect("a mount point");
        let target = dir.path().to_string_lossy().into_owned();
        let mut args = args.to_vec();
        args.push(&target);
        if let Err(e) = run("mount", &args) {
            panic!("cannot mount: {e}");
        }
        Mount { dir }
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        if let Err(e) = run("umount", &[&self.dir.path().to_string_lossy()]) {
            eprintln!(
                "warning: could not unmount {}: {e}",
                self.dir.path().display()
            );
        }
    }
}

fn mkfs_ext4(device: &str) {
    if let Err(e) = run("mkfs.ext4", &["-q", "-F", device]) {
        panic!("mkfs.ext4 failed (apt-get install e2fsprogs): {e}");
    }
}

fn plan_for(path: &str, written: bool, destructive: bool, io_size: u64) -> RunPlan {
    let target = PlannedTarget {
        name: String::new(),
        path: path.into(),
        size: None,
        destructive,
        named_on_command_line: false,
        written,
    };
    test_plan(vec![target], Layout::Concat, 1 << 20, &[io_size])
}

fn open(plan: &RunPlan, consent: Consent) -> Result<OpenVolume, TargetError> {
    open_volume(plan, consent, &mut |_| ControlFlow::Continue(()))
}

const ALLOW: Consent = Consent {
    allow_destructive: true,
    force: false,
};
const FORCE: Consent = Consent {
    allow_destructive: true,
    force: true,
};

fn refusal(result: Result<OpenVolume, TargetError>) -> Reason {
    match result {
        Err(TargetError::Refused(r)) => r.reason,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn probing_a_loop_device_gives_its_size_and_block_sizes() {
    let dev = LoopDevice::with(64 << 20, &["--sector-size", "4096"]);
    let vol = open(&plan_for(dev.dev(), false, false, 4096), Consent::default()).unwrap();
    let t = &vol.targets[0];
    assert_eq!(t.probe.kind, TargetKind::Block);
    assert_eq!(t.probe.size, 64 << 20);
    assert_eq!(t.probe.logical_block_size, 4096);
    assert_eq!(t.probe.physical_block_size, 4096);
    assert_eq!(t.probe.dio_offset_align, 4096);
    assert_eq!(vol.volume.size(), 64 << 20);
    assert_eq!(t.info.kind, "block");
    assert_eq!(t.info.logical_block_size, 4096);
    assert_eq!(t.info.rotational, Some(false));
    assert!(!t.info.scheduler.is_empty());
    assert!(t.info.queue_depth.is_some());
    assert!(t.info.model.starts_with("loop over "), "{}", t.info.model);

    // 512-byte I/Os cannot go O_DIRECT to a 4 KiB-sector device.
    let err = open(&plan_for(dev.dev(), false, false, 512), Consent::default()).unwrap_err();
    assert!(
        matches!(err, TargetError::Misaligned { align: 4096, .. }),
        "{err}"
    );
}

#[test]
fn a_clean_loop_device_is_written_only_with_both_consents() {
    let dev = LoopDevice::with(16 << 20, &[]);
    let path = dev.dev().to_owned();
    let reason = refusal(open(&plan_for(&path, true, true, 4096), Consent::default()));
    assert!(matches!(
        reason,
        Reason::NoConsent {
            kind: TargetKind::Block,
            ..
        }
    ));
    let reason = refusal(open(&plan_for(&path, true, false, 4096), ALLOW));
    assert!(matches!(reason, Reason::NoConsent { spec: false, .. }));
    let vol = open(&plan_for(&path, true, true, 4096), ALLOW).unwrap();
    assert!(vol.targets[0].writable);
    // Held exclusively while open: nobody can mount it meanwhile, nor open it exclusively.
    let again = open(&plan_for(&path, true, true, 4096), ALLOW);
    assert_eq!(refusal(again), Reason::Busy);
}

#[test]
fn an_ext4_signature_needs_force_and_a_mount_is_always_refused() {
    let dev = LoopDevice::with(32 << 20, &[]);
    let path = dev.dev().to_owned();
    mkfs_ext4(&path);
    let plan = plan_for(&path, true, true, 4096);
    let reason = refusal(open(&plan, ALLOW));
    // rigel's table says "ext2/ext3/ext4", blkid says "TYPE=ext4".
    assert!(
        matches!(&reason, Reason::Signature { found } if found.contains("ext")),
        "{reason:?}"
    );
    // Reading is always allowed.
    open(&plan_for(&path, false, false, 4096), Consent::default()).unwrap();

    {
        let _mount = Mount::new(&path);
        let reason = refusal(open(&plan, FORCE));
        assert!(matches!(reason, Reason::Mounted { .. }), "{reason:?}");
        let text = Refusal {
            path: path.clone().into(),
            reason,
        }
        .to_string();
        assert!(
            text.contains(&path) && text.contains("mounted on"),
            "{text}"
        );
    }
    let vol = open(&plan, FORCE).unwrap();
    assert!(vol.targets[0].writable);
}

/// An MBR with one Linux partition from sector 2048 to the end.
fn write_mbr(device: &str, size: u64) {
    let mut sector = [0u8; 512];
    let entry = &mut sector[446..462];
    entry[4] = 0x83;
    entry[8..12].copy_from_slice(&2048u32.to_le_bytes());
    entry[12..16].copy_from_slice(&((size / 512 - 2048) as u32).to_le_bytes());
    sector[510] = 0x55;
    sector[511] = 0xaa;
    use std::os::unix::fs::FileExt;
    let f = fs::OpenOptions::new().write(true).open(device).unwrap();
    f.write_all_at(&sector, 0).unwrap();
    f.sync_all().unwrap();
}

#[test]
fn a_disk_whose_partition_is_mounted_is_refused() {
    let size = 48 << 20;
    let dev = LoopDevice::with(size, &["--partscan"]);
    let path = dev.dev().to_owned();
    write_mbr(&path, size);
    let part = format!("{path}p1");
    // Kernels without the MBR parser (CONFIG_MSDOS_PARTITION) learn the partition from partx.
    let scanned = run("blockdev", &["--rereadpt", &path]).is_ok() && Path::new(&part).exists();
    if !scanned && let Err(e) = run("partx", &["-a", &path]) {
        panic!("cannot add the partition (util-linux): {e}");
    }
    for _ in 0..50 {
        if Path::new(&part).exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(Path::new(&part).exists(), "no partition device {part}");
    mkfs_ext4(&part);
    let plan = plan_for(&path, true, true, 4096);
    // rigel's table names the MBR; blkid says PTTYPE=dos.
    let reason = refusal(open(&plan, ALLOW));
    assert!(
        matches!(&reason, Reason::Signature { found }
            if found.contains("MBR") || found.contains("PTTYPE=dos")),
        "{reason:?}"
    );
    let _mount = Mount::new(&part);
    let part_name = Path::new(&part)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    match refusal(open(&plan, FORCE)) {
        Reason::Mounted { device, .. } => assert_eq!(device, part_name),
        other => panic!("expected the partition's mount, got {other:?}"),
    }
}

#[test]
fn a_file_backing_a_loop_device_is_refused() {
    let dev = LoopDevice::with(8 << 20, &[]);
    let backing = run("losetup", &["--noheadings", "-O", "BACK-FILE", dev.dev()]).unwrap();
    let reason = refusal(open(&plan_for(&backing, true, true, 4096), FORCE));
    assert_eq!(
        reason,
        Reason::BacksLoop {
            loop_device: dev.name().to_owned()
        }
    );
}

/// ramfs has no xattrs at all: the mark is a record in the state folder of marks, bound to the
/// file's inode, length, mtime and sampled blocks.
#[test]
fn without_xattrs_the_mark_is_a_record_in_the_state_folder() {
    let mount = Mount::with(&["-t", "ramfs", "ramfs"]);
    let path = mount.dir.path().join("data.bin");
    let size = FILL_CHUNK as u64 + 4096;
    let mut quiet = |_: &FillProgress| ControlFlow::Continue(());
    let (prep, _) = ensure_file(&path, size, &mut quiet).unwrap();
    assert_eq!(prep, Preparation::Created);
    let meta = fs::metadata(&path).unwrap();
    let record = std::path::Path::new(super::marker::ROOT_STATE_DIR).join(format!(
        "{:x}-{:x}",
        meta.dev(),
        meta.ino()
    ));
    let text = fs::read_to_string(&record).unwrap();
    assert!(
        text.starts_with(&format!("rigel 2 filled {size} ")),
        "{text}"
    );
    assert!(!mount.dir.path().join(".data.bin.rigel").exists());
    let file = fs::File::open(&path).unwrap();
    assert!(created_by_rigel(&file, &path).unwrap());
    let data = fs::read(&path).unwrap();
    assert!(data.chunks(4096).all(|b| b.iter().any(|&x| x != 0)));
    let (prep, _) = ensure_file(&path, size, &mut quiet).unwrap();
    assert_eq!(prep, Preparation::Reused);
    assert_eq!(clean([path.as_path()]).unwrap(), vec![path.clone()]);
    assert!(!path.exists() && !record.exists());
}
