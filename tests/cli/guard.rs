//! The destructive-write guard against real signatures on loop devices: each one, written by the
//! tool Debian packages for it where there is one (mkfs.ocfs2, cryptsetup, make-bcache) or as the
//! exact bytes libblkid looks for, stops a destructive run with consent until `--force`; with
//! `blkid` on the machine, with it hidden and `wipefs` asked instead (`RIGEL_BLKID=off`), and with
//! both hidden (`RIGEL_WIPEFS=off` too: rigel's table alone).

use super::builder::rigel;
use super::scenario::{Scenario, Spec};
use rigel_testkit::LoopDevice;
use std::path::Path;
use std::process::Command;

const SIZE: u64 = 64 << 20;

/// Runs `tool args… DEV`; panics, saying why, where the tool is missing (`.ci/run` installs it) or
/// fails.
fn tool(program: &str, args: &[&str], dev: &str) {
    match Command::new(program).args(args).arg(dev).output() {
        Ok(o) if o.status.success() => {}
        Ok(o) => panic!(
            "{program} failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Err(e) => panic!("{program} is not available ({e}); .ci/run installs it"),
    }
}

/// Writes `bytes` at `offset` of the device (negative: from its end).
fn poke(dev: &str, offset: i64, bytes: &[u8]) {
    use std::os::unix::fs::FileExt;
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(dev)
        .expect("the loop device opens");
    let at = if offset < 0 {
        SIZE - offset.unsigned_abs()
    } else {
        offset as u64
    };
    file.write_all_at(bytes, at)
        .expect("the signature is written");
    file.sync_all().expect("synced");
}

/// Whom rigel may ask about signatures besides its own table.
#[derive(Clone, Copy, PartialEq)]
enum Probe {
    Table,
    Blkid,
    Wipefs,
}

/// A destructive run on `dev` with consent; `probe` chooses which program rigel may ask.
fn destructive_run(dir: &Path, dev: &str, force: bool, probe: Probe) -> super::Output {
    let spec = dir.join("w.toml");
    let text = Spec::default()
        .destructive_target(dev)
        .set("run.duration", "100ms")
        .set("class.w.size", "4KiB")
        .set("class.w.mix", "write")
        .set("matrix.w", "1")
        .text();
    std::fs::write(&spec, text).expect("spec written");
    let mut r = rigel()
        .arg("run")
        .arg(&spec)
        .arg("--allow-destructive")
        .arg("--out")
        .arg(dir.join(if force { "forced" } else { "refused" }));
    if force {
        r = r.arg("--force");
    }
    if probe != Probe::Blkid {
        r = r.env("RIGEL_BLKID", "off");
    }
    if probe == Probe::Table {
        r = r.env("RIGEL_WIPEFS", "off");
    }
    r.run()
}

/// The signature stops the run (blkid present and hidden), and `--force` lets it through.
fn refused_until_forced(dev: &LoopDevice, says: &str, blkid_says: Option<&str>) {
    let tmp = Scenario::new();
    let out = destructive_run(tmp.path(), dev.dev(), false, Probe::Table);
    assert_eq!(out.code, 1, "blkid hidden, {says}: {}", out.stderr);
    assert!(
        out.stderr.contains("refusing to write") && out.stderr.contains(says),
        "blkid hidden, expected {says:?}: {}",
        out.stderr
    );
    out.stderr_has("--force");
    // blkid asked; then blkid hidden and wipefs asked (the same libblkid probes, with offsets).
    for (probe, program) in [(Probe::Blkid, "blkid"), (Probe::Wipefs, "wipefs")] {
        let installed = Command::new(program).arg("-V").output().is_ok();
        assert!(installed, "{program} is not installed (util-linux)");
        let out = destructive_run(tmp.path(), dev.dev(), false, probe);
        assert_eq!(out.code, 1, "{program} asked, {says}: {}", out.stderr);
        let expected = blkid_says.unwrap_or(says);
        assert!(
            out.stderr.contains(expected),
            "{program} asked, expected {expected:?}: {}",
            out.stderr
        );
    }
    destructive_run(tmp.path(), dev.dev(), true, Probe::Blkid).code(0);
}

#[test]
#[serial_test::parallel]
fn oracle_asm_label() {
    let dev = LoopDevice::new(SIZE);
    poke(dev.dev(), 32, b"ORCLDISKDATA0001");
    refused_until_forced(&dev, "an Oracle ASM disk", Some("TYPE=oracleasm"));
}

#[test]
#[ignore = "needs mkfs.ocfs2 (ocfs2-tools)"]
#[serial_test::parallel]
fn ocfs2_from_mkfs_ocfs2() {
    let dev = LoopDevice::new(SIZE);
    tool(
        "mkfs.ocfs2",
        &["-q", "-F", "-M", "local", "-N", "1"],
        dev.dev(),
    );
    refused_until_forced(&dev, "an OCFS2 filesystem", Some("TYPE=ocfs2"));
}

#[test]
#[ignore = "needs cryptsetup (cryptsetup-bin)"]
#[serial_test::parallel]
fn luks1_and_luks2_from_cryptsetup() {
    let key = tempfile::NamedTempFile::new_in("/dev/shm").expect("a key file");
    std::fs::write(key.path(), b"not a secret").expect("key written");
    let key = key.path().to_string_lossy().into_owned();
    for kind in ["luks1", "luks2"] {
        let dev = LoopDevice::new(SIZE);
        let args = [
            "luksFormat",
            "--batch-mode",
            "--type",
            kind,
            "--pbkdf",
            "pbkdf2",
            "--pbkdf-force-iterations",
            "1000",
            "--key-file",
            &key,
        ];
        tool("cryptsetup", &args, dev.dev());
        refused_until_forced(&dev, "a LUKS encrypted volume", Some("TYPE=crypto_LUKS"));
    }
}

#[test]
#[ignore = "needs make-bcache (bcache-tools)"]
#[serial_test::parallel]
fn bcache_from_make_bcache() {
    let dev = LoopDevice::new(SIZE);
    tool("make-bcache", &["-B"], dev.dev());
    refused_until_forced(&dev, "a bcache device", Some("TYPE=bcache"));
}

/// What rigel's table says, the bytes (offset, negative from the end), and what blkid says.
type Case<'a> = (&'a str, &'a [(i64, &'a [u8])], Option<&'a str>);

/// Signatures no Debian tool writes without a kernel module or a daemon: the exact bytes libblkid
/// (or the kernel, for LDM) looks for.
#[test]
#[serial_test::parallel]
fn byte_layouts_of_storage_signatures() {
    let zfs_magic = 0x00ba_b10c_u64.to_le_bytes();
    let label2 = -(512 << 10) + (128 << 10);
    let cases: &[Case] = &[
        ("a ZFS pool member", &[(128 << 10, &zfs_magic)], None),
        ("a ZFS pool member", &[(label2, &zfs_magic)], None),
        (
            "a Ceph BlueStore device",
            &[(0, b"bluestore block device\n")],
            Some("TYPE=ceph_bluestore"),
        ),
        (
            "a DRBD device",
            &[(-4096 + 60, b"\x83\x74\x02\x6b")],
            Some("TYPE=drbd"),
        ),
        (
            "a DRBD device",
            &[(-4096 + 60, b"\x83\x74\x02\x6d")],
            Some("TYPE=drbd"),
        ),
        (
            "a VMware VMFS volume",
            &[(1 << 20, b"\x0d\xd0\x01\xc0")],
            Some("TYPE=VMFS_volume_member"),
        ),
        (
            "a VMware VMFS volume",
            &[(2 << 20, b"\x5e\xf1\xab\x2f")],
            Some("TYPE=VMFS"),
        ),
        ("a Windows LDM", &[(3072, b"PRIVHEAD")], None),
        ("a Windows LDM", &[(-512, b"PRIVHEAD")], None),
        ("a Sun VTOC disk label", &[(508, b"\xda\xbe")], None),
    ];
    for (says, pokes, blkid_says) in cases {
        let dev = LoopDevice::new(SIZE);
        for (offset, bytes) in *pokes {
            poke(dev.dev(), *offset, bytes);
        }
        refused_until_forced(&dev, says, *blkid_says);
    }
}

/// What only blkid knows (minix is not in the built-in table) is refused when blkid is there.
#[test]
#[serial_test::parallel]
fn blkid_reports_what_the_table_does_not_know() {
    let dev = LoopDevice::new(SIZE);
    tool("mkfs.minix", &[], dev.dev());
    let tmp = Scenario::new();
    let out = destructive_run(tmp.path(), dev.dev(), false, Probe::Blkid);
    assert_eq!(out.code, 1, "{}", out.stderr);
    out.stderr_has("TYPE=minix");
    // Without blkid, wipefs is asked: it knows minix too.
    if Command::new("wipefs").arg("-V").output().is_ok() {
        let out = destructive_run(tmp.path(), dev.dev(), false, Probe::Wipefs);
        assert_eq!(out.code, 1, "{}", out.stderr);
        out.stderr_has("wipefs -n reports (TYPE=minix at ");
    }
    // Without either, the built-in table alone decides.
    destructive_run(tmp.path(), dev.dev(), false, Probe::Table).code(0);
}
