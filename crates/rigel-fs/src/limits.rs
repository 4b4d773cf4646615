//! How much rigel reads of a file it did not just write itself, stated once: every such file is
//! untrusted input (a colleague's trace, a copied journal, a run folder in a shared tree), so a
//! reader takes no more than these, and a larger file is an error naming it, not an allocation
//! the size of whatever its header claims.

/// A run folder's JSON (`results.json`, `run.json`, `plan.json`) and its resolved `spec.toml`.
pub const RUN_FILE_BYTES: u64 = 1 << 30;
/// A text file imported as a trace (blkparse output, a fio iolog).
pub const IMPORT_BYTES: u64 = 4 << 30;
/// A trace file (`trace.rtr`): 32 bytes a record, so about 134 million records.
pub const TRACE_BYTES: u64 = 4 << 30;
/// The latest time in a trace (issues and completions count from its time 0): its statistics
/// keep a row per second, so a forged time is refused, not turned into a table of its size.
pub const TRACE_SPAN_NS: u64 = 31 * 24 * 3600 * 1_000_000_000;
/// A run's journal (`journal.map`): its 4 KiB header, then two u16 per block of a generation map
/// of at most 4 GiB (rigel-plan's `MAX_VERIFY_MAP_BYTES`, which bounds the blocks it counts).
pub const JOURNAL_BYTES: u64 = 4096 + 2 * (4 << 30);
