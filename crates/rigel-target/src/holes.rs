//! Where a file target's blocks are not stored: its holes, found with `SEEK_DATA`/`SEEK_HOLE`
//! (what `cp --sparse` and `filefrag` rely on). A read of a hole is answered with zeros from
//! memory, never reaching the device, so a sparse target measures the kernel, not the storage.
//!
//! On ext4, XFS and btrfs the kernel's seek treats unwritten (preallocated, `fallocate`d) extents
//! as holes too, as long as the page cache holds none of them: they also read as zeros without a
//! device read, so they are counted here with the holes. A filesystem without these seeks reports
//! the whole file as data: no false alarm, only no finding.

use rustix::fs::{SeekFrom, seek};
use rustix::io::Errno;
use std::os::fd::AsFd;
use std::path::Path;

/// More holes than this are counted as "at least": a pathological file should not cost the run
/// seconds of seeks before it starts.
const MAX_HOLES: usize = 100_000;
/// How many holes a message names.
const NAMED: usize = 3;

/// The holes of a file's first `size` bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Holes {
    /// Bytes in holes (or unwritten extents) within the first `size` bytes.
    pub bytes: u64,
    /// How many separate holes (a lower bound when `truncated`).
    pub count: usize,
    /// The first few, as (offset, length).
    pub first: Vec<(u64, u64)>,
    /// The scan stopped at [`MAX_HOLES`]: `bytes` and `count` are lower bounds.
    pub truncated: bool,
}

impl Holes {
    /// `2 GiB in 1 hole (0 – 2 GiB)`, `12 MiB in 3 holes (4 KiB – 1 MiB, …)`.
    pub fn describe(&self) -> String {
        use rigel_expr::units::size;
        let ranges: Vec<String> = self
            .first
            .iter()
            .map(|(o, l)| format!("{} – {}", size(*o as f64), size((o + l) as f64)))
            .collect();
        let more = if self.count > self.first.len() {
            ", …"
        } else {
            ""
        };
        format!(
            "{}{} in {}{} {} ({}{more})",
            if self.truncated { "at least " } else { "" },
            size(self.bytes as f64),
            self.count,
            if self.truncated { "+" } else { "" },
            if self.count == 1 { "hole" } else { "holes" },
            ranges.join(", ")
        )
    }
}

/// The holes in `fd`'s first `size` bytes; empty where the file has none (or its filesystem
/// cannot tell). Moves the descriptor's file offset, which rigel's positioned I/O never uses.
pub fn holes<Fd: AsFd>(fd: Fd, size: u64) -> std::io::Result<Holes> {
    let fd = fd.as_fd();
    let mut found = Holes::default();
    let mut pos = 0u64;
    while pos < size {
        let data = match seek(fd, SeekFrom::Data(pos)) {
            Ok(d) => d.min(size),
            // No data at or after `pos`: the rest is one hole.
            Err(Errno::NXIO) => size,
            // Not supported here: the kernel's generic seek would have called it all data.
            Err(Errno::INVAL) | Err(Errno::OPNOTSUPP) => break,
            Err(e) => return Err(e.into()),
        };
        if data > pos {
            found.bytes += data - pos;
            found.count += 1;
            if found.first.len() < NAMED {
                found.first.push((pos, data - pos));
            }
            if found.count >= MAX_HOLES {
                found.truncated = data < size;
                break;
            }
        }
        if data >= size {
            break;
        }
        pos = seek(fd, SeekFrom::Hole(data))?;
    }
    let _ = seek(fd, SeekFrom::Start(0));
    Ok(found)
}

/// `PATH: 2 GiB in 1 hole (0 B – 2 GiB) of its 2 GiB …`: the holes named, and the remedies.
pub fn hole_warning(path: &Path, size: u64, h: &Holes) -> String {
    format!(
        "{}: {} of its {} hold no data (holes or unwritten extents): reads there are zeros from \
         memory and never reach the device; fill it with `--fill` (writes only the holes, keeps \
         the data), or declare the target's size on a new path to let rigel create and fill one",
        path.display(),
        h.describe(),
        rigel_expr::units::size(size as f64)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

    fn file(len: u64) -> (tempfile::TempDir, std::fs::File) {
        // tmpfs has SEEK_DATA/SEEK_HOLE; the system's temp dir may not be tmpfs.
        let dir = tempfile::tempdir_in("/dev/shm")
            .or_else(|_| tempfile::tempdir())
            .expect("a temp dir");
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(dir.path().join("f.img"))
            .expect("a file");
        f.set_len(len).expect("its length");
        (dir, f)
    }

    #[test]
    fn a_truncated_file_is_one_hole_and_written_blocks_split_it() {
        let mib = 1u64 << 20;
        let (_d, f) = file(8 * mib);
        let all = holes(&f, 8 * mib).expect("seeks");
        assert_eq!(all.bytes, 8 * mib);
        assert_eq!(all.count, 1);
        assert_eq!(all.describe(), "8 MiB in 1 hole (0 B – 8 MiB)");
        // Data at 2 MiB and at the last MiB: holes before, between, none after.
        f.write_all_at(&vec![7u8; mib as usize], 2 * mib).unwrap();
        f.write_all_at(&vec![7u8; mib as usize], 7 * mib).unwrap();
        let some = holes(&f, 8 * mib).expect("seeks");
        assert_eq!(some.bytes, 6 * mib, "{some:?}");
        assert_eq!(some.count, 2);
        assert_eq!(some.first, vec![(0, 2 * mib), (3 * mib, 4 * mib)]);
        // Only the bytes rigel uses count.
        assert_eq!(holes(&f, 2 * mib).unwrap().bytes, 2 * mib);
    }

    #[test]
    fn a_written_file_has_none() {
        let (_d, f) = file(0);
        f.write_all_at(&vec![1u8; 1 << 20], 0).unwrap();
        assert_eq!(holes(&f, 1 << 20).unwrap(), Holes::default());
    }
}
