//! Tests of the test-file mark: it round-trips through the trusted xattr, and nothing else (a user
//! xattr, a sidecar, a changed file) counts as one.

use super::*;
use std::io::Write;

const FILLED: Marker = Marker {
    state: FillState::Filled,
    size: 1 << 20,
};

fn file_in(dir: &Path, name: &str, bytes: &[u8]) -> (PathBuf, File) {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    (path, file)
}

#[test]
fn marks_round_trip_through_the_trusted_xattr_on_tmp_and_shm() {
    assert!(
        rigel_testkit::is_root(),
        "trusted xattrs need root (.ci/run runs as root)"
    );
    for base in ["/tmp", "/dev/shm"] {
        let dir = tempfile::tempdir_in(base).unwrap();
        let (path, file) = file_in(dir.path(), "f", &vec![3u8; 1 << 20]);
        assert_eq!(read_marker(&file, &path).unwrap(), None);
        write_marker(&file, &path, FILLED).unwrap();
        assert_eq!(read_marker(&file, &path).unwrap(), Some(FILLED));
        let mut buf = [0u8; 256];
        let n = rustix::fs::fgetxattr(&file, XATTR_NAME, &mut buf[..]).unwrap();
        let text = String::from_utf8_lossy(&buf[..n]).into_owned();
        assert!(text.starts_with("rigel 2 filled 1048576 "), "{text}");
    }
}

#[test]
fn a_user_xattr_or_a_sidecar_is_no_mark() {
    let dir = tempfile::tempdir_in("/dev/shm").unwrap();
    let (path, file) = file_in(dir.path(), "alice.db", b"alice's data");
    rustix::fs::setxattr(
        &path,
        "user.rigel.created",
        b"rigel 1 filled 12",
        XattrFlags::empty(),
    )
    .unwrap();
    let meta = file.metadata().unwrap();
    std::fs::write(
        dir.path().join(".alice.db.rigel"),
        format!("rigel 1 filled 12 {} {}\n", meta.dev(), meta.ino()),
    )
    .unwrap();
    assert_eq!(read_marker(&file, &path).unwrap(), None);
}

#[test]
fn a_changed_file_loses_its_mark() {
    let dir = tempfile::tempdir_in("/dev/shm").unwrap();
    let (path, mut file) = file_in(dir.path(), "scratch.bin", &vec![9u8; 1 << 20]);
    write_marker(&file, &path, FILLED).unwrap();
    assert_eq!(read_marker(&file, &path).unwrap(), Some(FILLED));
    // `cp backup.img scratch.bin`: same inode, same xattr, same length, other blocks.
    std::thread::sleep(std::time::Duration::from_millis(10));
    file.write_all_at(&[1u8; 4096], 0).unwrap();
    assert_eq!(read_marker(&file, &path).unwrap(), None);
    // rigel's own write run marks it again.
    write_marker(&file, &path, FILLED).unwrap();
    assert_eq!(read_marker(&file, &path).unwrap(), Some(FILLED));
    file.set_len(1 << 21).unwrap();
    assert_eq!(read_marker(&file, &path).unwrap(), None);
    // Same length and mtime put back: the sampled blocks still differ.
    let (path2, file2) = file_in(dir.path(), "b", &vec![9u8; 1 << 20]);
    write_marker(&file2, &path2, FILLED).unwrap();
    let mtime = file2.metadata().unwrap().modified().unwrap();
    file2.write_all_at(&[5u8; 4096], (1 << 20) - 4096).unwrap();
    file2.set_modified(mtime).unwrap();
    assert_eq!(read_marker(&file2, &path2).unwrap(), None);
    file.flush().unwrap();
}

#[test]
fn records_from_older_rigels_or_other_tools_are_not_marks() {
    assert_eq!(Record::parse("rigel 1 filled 5"), None);
    assert_eq!(Record::parse("rigel 2 done 5 1 2 5 1.2 00"), None);
    let r = Record::parse("rigel 2 filling 7 1 2 0 3.4 00000000000000ff").unwrap();
    assert_eq!(r.marker.state, FillState::Filling);
    assert_eq!(Record::parse(&r.to_string()), Some(r));
}

/// A run marks its test files again through its own descriptor, O_DIRECT when the run is direct:
/// the mark's sampled reads must be aligned (ext4 refuses an unaligned buffer with EINVAL; tmpfs
/// does not check, so the file is on the disk /var/tmp is on), also where the file's end cuts the
/// last sample short.
#[test]
fn a_file_opened_o_direct_on_a_disk_is_marked_and_its_mark_read_through_that_descriptor() {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = tempfile::Builder::new()
        .prefix("tmp-rigel-mark-")
        .tempdir_in("/var/tmp")
        .unwrap();
    let kind = rustix::fs::statfs(dir.path()).unwrap().f_type;
    assert_ne!(
        kind,
        libc::TMPFS_MAGIC,
        "/var/tmp must be on a disk for O_DIRECT's alignment to be checked"
    );
    for (name, len) in [("whole", 1u64 << 20), ("tail", (1 << 20) + 1000)] {
        let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let (path, _) = file_in(dir.path(), name, &bytes);
        let direct = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_DIRECT)
            .open(&path)
            .unwrap();
        let marker = Marker {
            state: FillState::Filled,
            size: len,
        };
        write_marker(&direct, &path, marker).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(read_marker(&direct, &path).unwrap(), Some(marker), "{name}");
        refresh_marker(&direct, &path).unwrap_or_else(|e| panic!("{name}: {e}"));
        // The same fingerprint through a buffered descriptor: the mark vouches for the file.
        let buffered = File::open(&path).unwrap();
        assert_eq!(
            read_marker(&buffered, &path).unwrap(),
            Some(marker),
            "{name}"
        );
    }
}
