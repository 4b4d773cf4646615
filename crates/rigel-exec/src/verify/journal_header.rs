//! The journal's header: its first 4 KiB, little-endian. A journal may be copied from another
//! run or forged, so the header binds it to its run: besides the block size and the targets'
//! sizes it holds (since version 2) the sha256 of the run's plan and of its targets as `run.json`
//! records them, which `rigel verify` compares with the folder's own before it judges anything.
//!
//! | bytes | field |
//! |---|---|
//! | 0–7 | magic `RIGELJNL` |
//! | 8–11 | version (3; 1 and 2, from rigel before its trim bit, are refused: their map entries hold 15-bit generations where version 3's hold 14 and a trim bit, so an old entry above 16,383 would read as trimmed) |
//! | 12–15 | flags: bit 0, every write was asked durable (`durability = "dsync"`); bit 1, the promised generations follow the map |
//! | 16–23 | the run's id |
//! | 24–31 | the data seed |
//! | 32–39 | the block (`verify_unit`), bytes |
//! | 40–47 | blocks in the map |
//! | 48–55 | when the map was made, ns since the Unix epoch |
//! | 56–63 | when the map was last written back whole (`msync`), ns since the Unix epoch |
//! | 64–67 | targets |
//! | 72–135 | versions 2 and 3: the run's plan, sha256 in lowercase hex |
//! | 136–199 | versions 2 and 3: the run's targets (path, kind, size, model), sha256 in lowercase hex |
//! | 200– (version 1: 72–) | each target's usable size, u64 |

pub const MAGIC: [u8; 8] = *b"RIGELJNL";
/// The version written.
pub const VERSION: u32 = 3;
/// The header's size; the map starts here (page-aligned).
pub const HEADER: usize = 4096;
/// Where version 2's binding starts, and its target sizes.
const BINDING_AT: usize = 72;
const SIZES_AT: usize = BINDING_AT + 2 * DIGEST_HEX;
/// A sha256 in hex.
const DIGEST_HEX: usize = 64;
/// Targets the header has room for.
pub const MAX_TARGETS: usize = (HEADER - SIZES_AT) / 8;
const FLAG_DURABLE: u32 = 1;
const FLAG_PROMISES: u32 = 2;

/// What binds a journal to its run: sha256 (lowercase hex) of the run's plan and of its targets
/// (`rigel-runner`'s `journal_binding` makes both, at the run and at `rigel verify`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Binding {
    pub plan: String,
    pub targets: String,
}

/// What the journal's header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JournalHeader {
    pub durable: bool,
    /// The promised generations follow the map (journals of an older rigel lack them).
    pub promises: bool,
    pub run: u64,
    pub seed: u64,
    pub unit: u64,
    pub blocks: u64,
    pub made_ns: u64,
    pub synced_ns: u64,
    pub target_sizes: Vec<u64>,
    /// None: a version 1 journal, written before the binding.
    pub binding: Option<Binding>,
}

impl JournalHeader {
    /// The header's 4 KiB: version 2 with a binding, version 1 without.
    pub fn encode(&self) -> Vec<u8> {
        let mut h = vec![0u8; HEADER];
        h[..8].copy_from_slice(&MAGIC);
        let (version, sizes_at) = match &self.binding {
            Some(b) => {
                for (at, hex) in [(BINDING_AT, &b.plan), (BINDING_AT + DIGEST_HEX, &b.targets)] {
                    let n = hex.len().min(DIGEST_HEX);
                    h[at..at + n].copy_from_slice(&hex.as_bytes()[..n]);
                }
                (VERSION, SIZES_AT)
            }
            None => (1, BINDING_AT),
        };
        h[8..12].copy_from_slice(&version.to_le_bytes());
        let flags = if self.durable { FLAG_DURABLE } else { 0 }
            | if self.promises { FLAG_PROMISES } else { 0 };
        h[12..16].copy_from_slice(&flags.to_le_bytes());
        for (at, v) in [
            (16, self.run),
            (24, self.seed),
            (32, self.unit),
            (40, self.blocks),
            (48, self.made_ns),
            (56, self.synced_ns),
        ] {
            h[at..at + 8].copy_from_slice(&v.to_le_bytes());
        }
        h[64..68].copy_from_slice(&(self.target_sizes.len() as u32).to_le_bytes());
        let room = (HEADER - sizes_at) / 8;
        for (t, s) in self.target_sizes.iter().enumerate().take(room) {
            h[sizes_at + 8 * t..sizes_at + 8 * t + 8].copy_from_slice(&s.to_le_bytes());
        }
        h
    }

    /// The header of a journal file's first bytes, or why it is not one.
    pub fn decode(h: &[u8]) -> Result<JournalHeader, String> {
        if h.len() < HEADER || h[..8] != MAGIC {
            return Err("not a rigel journal (no RIGELJNL header)".into());
        }
        let u32_at = |at: usize| u32::from_le_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]]);
        let u64_at = |at: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&h[at..at + 8]);
            u64::from_le_bytes(b)
        };
        let (binding, sizes_at) = match u32_at(8) {
            v @ (1 | 2) => {
                return Err(format!(
                    "journal version {v}, written by an older rigel whose map entries hold 15-bit \
                     generations (this rigel's, version {VERSION}, hold 14 and a trim bit): check \
                     it with the rigel that wrote it (run.json's rigel_version)"
                ));
            }
            VERSION => {
                let hex = |at: usize| {
                    let d = &h[at..at + DIGEST_HEX];
                    d.iter()
                        .all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
                        .then(|| String::from_utf8_lossy(d).into_owned())
                        .ok_or_else(|| "its header's binding to its run is not a sha256".to_owned())
                };
                let binding = Binding {
                    plan: hex(BINDING_AT)?,
                    targets: hex(BINDING_AT + DIGEST_HEX)?,
                };
                (Some(binding), SIZES_AT)
            }
            v => {
                return Err(format!("journal version {v} (this rigel reads {VERSION})"));
            }
        };
        let targets = u32_at(64) as usize;
        if targets == 0 || targets > (HEADER - sizes_at) / 8 {
            return Err(format!("a journal of {targets} targets"));
        }
        Ok(JournalHeader {
            durable: u32_at(12) & FLAG_DURABLE != 0,
            promises: u32_at(12) & FLAG_PROMISES != 0,
            run: u64_at(16),
            seed: u64_at(24),
            unit: u64_at(32),
            blocks: u64_at(40),
            made_ns: u64_at(48),
            synced_ns: u64_at(56),
            target_sizes: (0..targets).map(|t| u64_at(sizes_at + 8 * t)).collect(),
            binding,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(binding: Option<Binding>) -> JournalHeader {
        JournalHeader {
            durable: true,
            promises: true,
            run: 7,
            seed: 9,
            unit: 4096,
            blocks: 384,
            made_ns: 1,
            synced_ns: 2,
            target_sizes: vec![1 << 20, 512 << 10],
            binding,
        }
    }

    #[test]
    #[serial_test::parallel]
    fn a_bound_journal_reads_back_and_older_versions_are_refused() {
        let bound = header(Some(Binding {
            plan: "a".repeat(64),
            targets: "0123456789abcdef".repeat(4),
        }));
        assert_eq!(JournalHeader::decode(&bound.encode()), Ok(bound.clone()));
        // Versions 1 and 2 count generations in 15 bits: read by this rigel, an entry above
        // 16,383 would be a trimmed block.
        let old = header(None).encode();
        assert_eq!(old[8], 1);
        let mut two = bound.encode();
        two[8] = 2;
        for bytes in [old, two] {
            let e = JournalHeader::decode(&bytes).expect_err("an older journal is refused");
            assert!(e.contains("15-bit generations"), "{e}");
        }
        // A binding that is not hex is refused.
        let mut forged = bound.encode();
        forged[BINDING_AT] = b'\n';
        assert!(JournalHeader::decode(&forged).is_err());
    }
}
