//! What `rigel verify DIR` found when it read a run's volume back against its journal
//! (`journal = true`): per block written, whether the acknowledged write is there, a write in
//! flight at the end left either version, and the corruptions split by whether they break a
//! promise the storage made.

use super::integrity::IntegrityResult;
use serde::{Deserialize, Serialize};

/// `rigel verify DIR`'s account, kept as `verify.json` in the run folder.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalCheck {
    /// The run's id, as the journal and every block's header hold it.
    pub run: u64,
    pub unit: u64,
    /// Every write of the run carried RWF_DSYNC: each acknowledged write was promised durable.
    pub durable: bool,
    /// Blocks the journal names as written (or with a write in flight).
    pub blocks_journaled: u64,
    /// Blocks read back whose content is the write the journal last acknowledged.
    pub acknowledged: u64,
    /// Blocks with a write in flight when the run ended (crashed): the new version found.
    pub in_flight_new: u64,
    /// … and the old one (or, for a block's first write, the content from before the run).
    pub in_flight_old: u64,
    /// Blocks holding a newer generation of this run than the journal names, with no write in
    /// flight: written after the journal's last write-back (a power cut of the journal's disk).
    pub newer: u64,
    /// Blocks with a promised generation: a grouped flush (`durability = "fdatasync:N"` or
    /// `"fsync:N"`) completed after one of their writes. Each must hold that generation or a newer
    /// one; a write after the block's last such flush may be lost without breaking a promise.
    #[serde(default)]
    pub blocks_promised: u64,
    /// When the journal was last written back whole, ns since the Unix epoch (0: never).
    pub journal_synced_ns: u64,
    /// Corruptions that break a promise: a durable acknowledged write lost, or data misdirected,
    /// torn or garbled. Any of these fails `rigel verify` (exit 6).
    pub broken: IntegrityResult,
    /// Acknowledged writes not found that were never promised durable (no `durability`): a
    /// power loss or a device reset may drop them from a volatile cache. Reported, not failed.
    pub unpromised: IntegrityResult,
}
