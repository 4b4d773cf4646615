//! The journal (`journal = true`): the generation map kept in a file of the run folder
//! (`journal.map`) instead of anonymous memory, so that `rigel verify DIR` can check the volume
//! after the run, after a crash of rigel or after a power cut.
//!
//! It is a write-intent map, as md's write-intent bitmap is, not an append-only log: a block's
//! entry is marked (in flight, next generation) before its write is issued and set to the new
//! generation after the completion, by the same atomic stores the in-memory map does, into a
//! `MAP_SHARED` mapping of the file. So the journal costs no system call per I/O, its size is
//! the map's (2 bytes per block, bounded by `MAX_VERIFY_MAP_BYTES`) whatever the run's length,
//! every update is in the page cache the moment it is made (a `kill -9` of rigel loses nothing),
//! and a thread writes the dirty pages back every `SYNC_EVERY` (`msync`), which bounds what a
//! power cut of the journal's own disk can take. After such a cut an entry may be older than
//! the truth; the check then accepts any newer generation of the block (see `check`).
//!
//! Grouped durable writes (`durability = "fdatasync:N"` / `"fsync:N"`) promise less than every
//! write: a write is durable once a flush of its target issued after its completion completed. So
//! the journal keeps a second u16 per block, the block's last *promised* generation, set when a
//! slot's group of writes is committed (every flush of the group completed); `rigel verify`
//! then holds the storage to that generation (or a newer one) and no more.
//!
//! The file: a 4 KiB header (`journal_header`), then one u16 per block of the volume, target by
//! target (the map's order), then (flag bit 1) one u16 per block, the promised generations (0:
//! none), in the same order.

use crate::engines::sys::SharedMap;
use std::fs::File;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

pub use super::journal_header::{Binding, HEADER, JournalHeader, MAGIC, MAX_TARGETS, VERSION};

/// How often the map's dirty pages are written back.
pub const SYNC_EVERY: Duration = Duration::from_secs(1);

/// The journal's file as the run folder hands it to the executor.
#[derive(Debug)]
pub struct JournalFile {
    pub file: File,
    /// Where it is, for messages.
    pub path: std::path::PathBuf,
    /// Every write of the run carries RWF_DSYNC.
    pub durable: bool,
    /// The run it belongs to, written into its header.
    pub binding: Binding,
}

pub fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// The header's `synced_ns`, written by the sync thread after each write-back.
const SYNCED_AT: usize = 56;

/// Records the time of the last write-back in the header (bytes 56..64, little-endian).
fn set_synced(mapping: &SharedMap, ns: u64) {
    // A native store of the little-endian value writes its little-endian bytes.
    mapping
        .u64_at(SYNCED_AT)
        .store(ns.to_le(), Ordering::Relaxed);
}

/// The map's entries in the journal file, and the thread writing them back.
pub struct Journal {
    mapping: Arc<SharedMap>,
    blocks: usize,
    promises: bool,
    stop: Arc<AtomicBool>,
    syncer: Option<JoinHandle<()>>,
}

/// Backs every byte of the journal's `len` with the filesystem's blocks before it is mapped: a
/// store into a mapped page the filesystem cannot back is a SIGBUS, not an error (issue 43: a
/// full run folder killed the run, exit 135). Without room the file is emptied again (its blocks
/// freed) and the error is ENOSPC.
fn allocate(file: &File, len: u64) -> io::Result<()> {
    let done = loop {
        match rustix::fs::fallocate(file, rustix::fs::FallocateFlags::empty(), 0, len) {
            Err(rustix::io::Errno::INTR) => {}
            // A filesystem without fallocate: zeros written are blocks allocated too.
            Err(rustix::io::Errno::OPNOTSUPP) => break zeros(file, len),
            r => break r.map_err(io::Error::from),
        }
    };
    if done.is_err() {
        // Best effort: the error about the space is the one to report.
        let _ = file.set_len(0);
    }
    done
}

/// Writes `len` zero bytes from the file's start.
fn zeros(file: &File, len: u64) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    let chunk = vec![0u8; 1 << 20];
    let mut at = 0;
    while at < len {
        let n = (len - at).min(chunk.len() as u64);
        file.write_all_at(&chunk[..n as usize], at)?;
        at += n;
    }
    Ok(())
}

impl Journal {
    /// Allocates `j.file` for `header` (ENOSPC when the folder has no room for it, never a
    /// SIGBUS later) and maps it; its header written and synced before any entry is used.
    pub fn create(j: &JournalFile, header: &JournalHeader) -> io::Result<Journal> {
        if header.target_sizes.len() > MAX_TARGETS {
            return Err(io::Error::other(format!(
                "a journal holds at most {MAX_TARGETS} targets"
            )));
        }
        let blocks = header.blocks as usize;
        let maps = if header.promises { 2 } else { 1 };
        let len = HEADER + blocks * 2 * maps;
        allocate(&j.file, len as u64)?;
        let mut mapping = SharedMap::new(&j.file, len)?;
        mapping.write(0, &header.encode());
        let mapping = Arc::new(mapping);
        mapping.sync()?;
        let stop = Arc::new(AtomicBool::new(false));
        let syncer = {
            let (mapping, stop) = (Arc::clone(&mapping), Arc::clone(&stop));
            std::thread::Builder::new()
                .name("rigel-journal".into())
                .spawn(move || {
                    let tick = Duration::from_millis(50);
                    let mut since = Duration::ZERO;
                    while !stop.load(Ordering::Relaxed) {
                        std::thread::sleep(tick);
                        since += tick;
                        if since >= SYNC_EVERY {
                            since = Duration::ZERO;
                            let at = now_ns();
                            if mapping.sync().is_ok() {
                                set_synced(&mapping, at);
                            }
                        }
                    }
                })?
        };
        Ok(Journal {
            mapping,
            blocks,
            promises: header.promises,
            stop,
            syncer: Some(syncer),
        })
    }

    /// The entries: one per block, in the file's pages (they start zeroed: a new file's).
    pub fn entries(&self) -> &[AtomicU16] {
        self.mapping.u16s(HEADER, self.blocks)
    }

    /// The promised generations, one per block after the entries (empty without them).
    pub fn promises(&self) -> &[AtomicU16] {
        if !self.promises {
            return &[];
        }
        self.mapping.u16s(HEADER + self.blocks * 2, self.blocks)
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.syncer.take() {
            let _ = t.join();
        }
        let at = now_ns();
        if self.mapping.sync().is_ok() {
            set_synced(&self.mapping, at);
            let _ = self.mapping.sync();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::map::{BUSY, GenMap};
    use rigel_plan::Layout;
    use rigel_target::Volume;

    #[test]
    #[serial_test::parallel]
    fn a_journaled_map_is_in_its_file_at_once_and_reads_back_as_the_same_map() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("journal.map");
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .expect("journal file");
        let volume = Volume::new(Layout::Concat, 0, &[1 << 20, 512 << 10]);
        let j = JournalFile {
            file,
            path: path.clone(),
            durable: true,
            binding: Binding {
                plan: "a".repeat(64),
                targets: "b".repeat(64),
            },
        };
        let map = GenMap::new(&volume, 4096, 7, Some(&j)).expect("map");
        assert!(map.journaled());
        map.entry(1, 8192).store(3, Ordering::Release);
        map.entry(0, 4096).store(2 | BUSY, Ordering::Release);
        // A grouped flush committed generation 3, then an older commit comes late: 3 stays.
        map.promise(1, 8192, 3);
        map.promise(1, 8192, 2);
        // Read through the file, not the mapping, while the map lives (as after a kill -9):
        // every store is there.
        let bytes = std::fs::read(&path).expect("read");
        assert_eq!(bytes.len(), HEADER + 2 * 2 * (256 + 128));
        let h = JournalHeader::decode(&bytes).expect("header");
        assert_eq!(
            (h.run, h.seed, h.unit, h.blocks, h.durable, h.promises),
            (map.run, 7, 4096, 384, true, true)
        );
        assert_eq!(h.target_sizes, vec![1 << 20, 512 << 10]);
        let words: Vec<u16> = bytes[HEADER..]
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        let (entries, promises) = words.split_at(384);
        assert_eq!(entries[1], 2 | BUSY);
        assert_eq!(entries[256 + 2], 3);
        assert_eq!(entries.iter().filter(|&&e| e != 0).count(), 2);
        assert_eq!(promises[256 + 2], 3);
        assert_eq!(promises.iter().filter(|&&e| e != 0).count(), 1);
        let again =
            GenMap::recorded(&volume, &h, entries.to_vec(), promises.to_vec()).expect("recorded");
        assert_eq!(again.entry(1, 8192).load(Ordering::Relaxed), 3);
        assert_eq!(again.promised_at(256 + 2), 3);
        assert_eq!(again.volume_offset(1, 8192), (1 << 20) + 8192);
        drop(map);
        // Dropped: written back, with the time of that write-back in the header.
        let h = JournalHeader::decode(&std::fs::read(&path).expect("read")).expect("header");
        assert!(h.synced_ns >= h.made_ns, "{h:?}");
        // A journal of other targets is refused.
        let other = Volume::new(Layout::Concat, 0, &[1 << 20]);
        assert!(GenMap::recorded(&other, &h, vec![0; 256], Vec::new()).is_err());
        assert!(JournalHeader::decode(&[0u8; HEADER]).is_err());
    }
}
