//! How much rigel reads of a file it did not just write itself, stated once: every such file is
//! untrusted input (a colleague's trace, a copied journal, a run folder in a shared tree), so a
//! reader takes no more than these, and a larger file is an error naming it, not an allocation
//! the size of whatever its header claims.

/// A run folder's JSON (`results.json`, `run.json`, `plan.json`) and its resolved `spec.toml`.
pub const RUN_FILE_BYTES: u64 = 1 << 30;
/// A text file imported as a trace (blkparse output, a fio iolog).
pub const IMPORT_BYTES: u64 = 4 << 30;
