//! What a verified point found in the data it read back (`verify = true`): how many blocks were
//! checked, the corrupted ones counted exactly by kind, and the first ones in full.

use serde::{Deserialize, Serialize};

/// Corrupted blocks reported in full per point; every one is counted (`IntegrityResult::counts`).
pub const FIRST_CORRUPTIONS: usize = 100;

/// How a block read back differs from the last write rigel had acknowledged for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CorruptionKind {
    /// A valid block of an older generation, or of an earlier run (the pre-run content): an
    /// acknowledged write is not there.
    Lost,
    /// A valid block of this run naming another offset or target: a write landed in the wrong place.
    Misdirected,
    /// A header of one generation with data of another, or a checksum that does not match.
    Torn,
    /// No header: every byte zero.
    Zeros,
    /// No header: anything else.
    Garbage,
    /// A valid block of this offset from a generation newer than the last acknowledged write (a
    /// write rigel never saw complete reached the storage).
    Unexpected,
}

impl CorruptionKind {
    pub const ALL: [CorruptionKind; 6] = [
        CorruptionKind::Lost,
        CorruptionKind::Misdirected,
        CorruptionKind::Torn,
        CorruptionKind::Zeros,
        CorruptionKind::Garbage,
        CorruptionKind::Unexpected,
    ];

    pub fn name(self) -> &'static str {
        match self {
            CorruptionKind::Lost => "lost write",
            CorruptionKind::Misdirected => "misdirected write",
            CorruptionKind::Torn => "torn write",
            CorruptionKind::Zeros => "zeros",
            CorruptionKind::Garbage => "garbage",
            CorruptionKind::Unexpected => "unexpected generation",
        }
    }
}

/// Exact counts of corrupted blocks, by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorruptionCounts {
    pub lost: u64,
    pub misdirected: u64,
    pub torn: u64,
    pub zeros: u64,
    pub garbage: u64,
    pub unexpected: u64,
}

impl CorruptionCounts {
    pub fn add(&mut self, kind: CorruptionKind, n: u64) {
        *self.get_mut(kind) += n;
    }

    pub fn get(&self, kind: CorruptionKind) -> u64 {
        match kind {
            CorruptionKind::Lost => self.lost,
            CorruptionKind::Misdirected => self.misdirected,
            CorruptionKind::Torn => self.torn,
            CorruptionKind::Zeros => self.zeros,
            CorruptionKind::Garbage => self.garbage,
            CorruptionKind::Unexpected => self.unexpected,
        }
    }

    fn get_mut(&mut self, kind: CorruptionKind) -> &mut u64 {
        match kind {
            CorruptionKind::Lost => &mut self.lost,
            CorruptionKind::Misdirected => &mut self.misdirected,
            CorruptionKind::Torn => &mut self.torn,
            CorruptionKind::Zeros => &mut self.zeros,
            CorruptionKind::Garbage => &mut self.garbage,
            CorruptionKind::Unexpected => &mut self.unexpected,
        }
    }

    pub fn total(&self) -> u64 {
        CorruptionKind::ALL.iter().map(|&k| self.get(k)).sum()
    }

    pub fn merge(&mut self, other: &CorruptionCounts) {
        for k in CorruptionKind::ALL {
            self.add(k, other.get(k));
        }
    }

    /// "2 lost writes, 1 torn write" (kinds with a count only).
    pub fn summary(&self) -> String {
        CorruptionKind::ALL
            .iter()
            .filter(|&&k| self.get(k) > 0)
            .map(|&k| format!("{} {}", self.get(k), k.name()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The header a corrupted block carried (when it had a valid magic).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundHeader {
    pub run: u64,
    pub volume_offset: u64,
    pub target: u32,
    pub target_offset: u64,
    pub generation: u16,
    pub point: u32,
    pub class: u16,
    /// When it was written, ns since the Unix epoch.
    pub written_ns: u64,
}

/// One corrupted block, in full.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Corruption {
    pub target: String,
    pub target_offset: u64,
    pub volume_offset: u64,
    /// The point and class whose read found it (`rigel verify`: none).
    pub point: u32,
    pub class: String,
    pub kind: CorruptionKind,
    /// The generation of the last acknowledged write.
    pub expected_generation: u16,
    /// The header found, when the block had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found: Option<FoundHeader>,
    /// What differs, in words (which sectors, which bytes, which offset the header names).
    pub detail: String,
}

/// What a verified point checked and found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntegrityResult {
    /// The block size stamped and checked, bytes.
    pub unit: u64,
    /// The run's id, as every block's header holds it.
    #[serde(default)]
    pub run: u64,
    /// Blocks stamped by the point's writes (each write of a block counted).
    pub blocks_written: u64,
    /// Blocks checked: read back and compared with their last acknowledged write.
    pub blocks_checked: u64,
    /// Blocks read that could not be checked: never written in this run, or a write to them was
    /// in flight during the read (either version could be read back).
    pub blocks_unchecked: u64,
    /// Of the checked blocks, those read back by `verify = "after"` at the point's end.
    #[serde(default)]
    pub blocks_after: u64,
    pub counts: CorruptionCounts,
    /// The first corrupted blocks (up to `FIRST_CORRUPTIONS`), in the order found.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub first: Vec<Corruption>,
}

impl IntegrityResult {
    /// Adds another worker's (or phase's) findings.
    pub fn merge(&mut self, other: IntegrityResult) {
        self.unit = self.unit.max(other.unit);
        self.blocks_written += other.blocks_written;
        self.blocks_checked += other.blocks_checked;
        self.blocks_unchecked += other.blocks_unchecked;
        self.blocks_after += other.blocks_after;
        self.counts.merge(&other.counts);
        let room = FIRST_CORRUPTIONS.saturating_sub(self.first.len());
        self.first.extend(other.first.into_iter().take(room));
    }

    pub fn corrupted(&self) -> u64 {
        self.counts.total()
    }
}
