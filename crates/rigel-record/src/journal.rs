//! The run folder's journal (`journal = true`: `journal.map`, the generation map the executor
//! keeps in a file) and `rigel verify`'s account of it (`verify.json`).

use super::error::RecordError;
use super::folder::RunFolder;
use super::lock::FolderLock;
use rigel_results::JournalCheck;
use rustix::fs::OFlags;
use std::fs::File;

pub const JOURNAL_FILE: &str = "journal.map";
pub const VERIFY_FILE: &str = "verify.json";

impl RunFolder {
    /// A new, empty journal file (read and write: the executor maps it). A resumed run replaces
    /// the journal of the invocation before it: its run id and generations start again.
    pub fn new_journal(&self) -> Result<File, RecordError> {
        let folder = self.lock().folder();
        if folder.exists(JOURNAL_FILE) {
            folder.remove_file(JOURNAL_FILE)?;
        }
        let file = folder.open_file(JOURNAL_FILE, OFlags::RDWR | OFlags::CREATE | OFlags::EXCL)?;
        folder.sync()?;
        Ok(file)
    }

    /// Removes the journal when the run never mapped it (empty: its allocation failed for want
    /// of space, or no point ran), so that a full folder leaves no journal of nothing behind; a
    /// resumed run makes its own.
    pub fn drop_unused_journal(&self) -> Result<(), RecordError> {
        let folder = self.lock().folder();
        if !folder.exists(JOURNAL_FILE) {
            return Ok(());
        }
        let len = folder
            .open_file(JOURNAL_FILE, OFlags::RDONLY)?
            .metadata()
            .map_or(1, |m| m.len());
        if len == 0 {
            folder.remove_file(JOURNAL_FILE)?;
            folder.sync()?;
        }
        Ok(())
    }
}

/// The journal of a locked run folder, whole (None: the run kept none).
pub fn read_journal(lock: &FolderLock) -> Result<Option<Vec<u8>>, RecordError> {
    let folder = lock.folder();
    if !folder.exists(JOURNAL_FILE) {
        return Ok(None);
    }
    Ok(Some(folder.read_at_most(
        JOURNAL_FILE,
        rigel_fs::limits::JOURNAL_BYTES,
    )?))
}

/// Writes `rigel verify`'s account into the locked folder (atomically).
pub fn write_check(lock: &FolderLock, check: &JournalCheck) -> Result<(), RecordError> {
    let mut text = serde_json::to_string_pretty(check).map_err(|e| RecordError::Invalid {
        path: lock.folder().join(VERIFY_FILE),
        message: e.to_string(),
    })?;
    text.push('\n');
    Ok(lock.folder().write_atomic(VERIFY_FILE, text.as_bytes())?)
}
