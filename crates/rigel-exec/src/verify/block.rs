//! The verified block's format (`verify = true`): every `unit` bytes a write carries start with a
//! 64-byte header (magic, version, run, offsets, generation, time, checksum) and end each 512-byte
//! sector with a tag derived from (run, seed, volume offset, generation, sector); the rest is a
//! pattern derived from the seed alone. So the expected content of any block is recomputed from
//! what the header or the generation map says, never stored, and a sector of another generation
//! or offset is told apart from this one's. Pure code: no I/O, no `unsafe`.
//!
//! The byte table is in docs/spec.md ("Data integrity").

use rigel_results::{CorruptionKind, FoundHeader};
use twox_hash::XxHash3_64;

pub const MAGIC: [u8; 8] = *b"RIGELBLK";
pub const VERSION: u16 = 1;
/// The header's length; the checksum covers every byte of the block from `SUMMED`.
pub const HEADER: usize = 64;
const SUMMED: usize = 16;
/// Tags mark every sector: torn writes tear at sector boundaries.
pub const SECTOR: usize = 512;
/// A sector's tag is its last 8 bytes.
const TAG_AT: usize = SECTOR - 8;
/// How many generations back a torn sector's tag is looked for (the report names it).
const TAG_LOOKBACK: u16 = 64;

/// What a written block says about itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub run: u64,
    pub point: u32,
    pub class: u16,
    pub target: u32,
    pub target_offset: u64,
    pub volume_offset: u64,
    /// 1..=16383, per block, in write order (0: never written).
    pub generation: u16,
    /// ns since the Unix epoch.
    pub time_ns: u64,
}

/// What a block read back must be: where it is, and its last acknowledged generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expect {
    pub run: u64,
    pub target: u32,
    pub target_offset: u64,
    pub volume_offset: u64,
    pub generation: u16,
}

/// A block that is not what was expected: its kind, the header it carried, and what differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub kind: CorruptionKind,
    pub found: Option<FoundHeader>,
    pub detail: String,
}

/// The largest generation: the map keeps 14 bits per block (the 15th marks a trimmed block, the
/// 16th a write in flight).
pub const MAX_GENERATION: u16 = 0x3FFF;

/// The generation after `g`: 1, 2, … 16383, 1 (0 stays "never written").
#[inline]
pub fn next_generation(g: u16) -> u16 {
    if g >= MAX_GENERATION { 1 } else { g + 1 }
}

/// Whether `found` is older than `expected`, counting around the wrap (up to half the circle
/// back).
pub fn older(found: u16, expected: u16) -> bool {
    let back = expected.wrapping_sub(found) & MAX_GENERATION;
    found != 0 && back != 0 && back < 0x2000
}

/// What a read of a trimmed block may find, as its device promises (`verify::after_trim`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterTrim {
    /// Zeros or the data it held before: the device may deallocate a discarded block or keep it.
    Either,
    /// Zeros only, and why the device promises them (a file's punched hole, a loop device, an
    /// NVMe namespace's DLFEAT).
    Zeros(&'static str),
}

/// Checks `block` against what its map entry says, `expect.generation` being the entry's
/// generation and `trimmed` what the device promises when the block's last change was a trim: a
/// device that may keep a discarded block's data (`Either`) may read it back as zeros or as its
/// generation before the trim, and a trimmed block never written before in this run holds what
/// it held before the run, or zeros, and is not judged; a device that promises zeros (`Zeros`)
/// must read zeros, whatever the block held. Anything else is checked as written.
pub fn check_entry(
    format: &Format,
    block: &[u8],
    expect: &Expect,
    trimmed: Option<AfterTrim>,
) -> Option<Finding> {
    let Some(after) = trimmed else {
        return format.check(block, expect);
    };
    if block.iter().all(|&b| b == 0) {
        return None;
    }
    match after {
        AfterTrim::Either => {
            if expect.generation == 0 {
                return None;
            }
            let mut f = format.check(block, expect)?;
            f.detail = format!(
                "trimmed, so zeros or generation {} were expected: {}",
                expect.generation, f.detail
            );
            Some(f)
        }
        AfterTrim::Zeros(why) => {
            // The trim did not reach the block: whatever it holds, it is what the trim should
            // have replaced (the pre-trim generation intact is a trim lost, as a write is).
            let mut f = format.check(block, expect).unwrap_or_else(|| Finding {
                kind: CorruptionKind::Lost,
                found: Some(header(block)),
                detail: format!("it still holds generation {}", expect.generation),
            });
            f.detail = format!("trimmed on {why}, so zeros were expected: {}", f.detail);
            Some(f)
        }
    }
}

/// The seed's pattern for blocks of one size, and the key its tags are derived from.
#[derive(Clone, Debug)]
pub struct Format {
    pattern: Vec<u8>,
    key: u64,
}

impl Format {
    /// Blocks of `unit` bytes (a multiple of `SECTOR`, within `limits::MIN_VERIFY_UNIT..=MAX_VERIFY_UNIT`) for run `run` with
    /// data seed `seed`.
    pub fn new(unit: usize, seed: u64, run: u64) -> Format {
        debug_assert!(unit % SECTOR == 0 && unit >= SECTOR);
        let mut pattern = vec![0u8; unit];
        fastrand::Rng::with_seed(mix(seed ^ 0x5645_5249_4659_0001)).fill(&mut pattern);
        Format {
            pattern,
            key: mix(seed.rotate_left(32) ^ run),
        }
    }

    pub fn unit(&self) -> usize {
        self.pattern.len()
    }

    #[inline]
    fn tag(&self, volume_offset: u64, generation: u16, sector: usize) -> u64 {
        mix(self.key
            ^ volume_offset.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (u64::from(generation) << 48)
            ^ sector as u64)
    }

    /// Writes block `s` into `block` (`unit` bytes): pattern, tags, header, checksum.
    #[inline]
    pub fn stamp(&self, block: &mut [u8], s: &Stamp) {
        block.copy_from_slice(&self.pattern);
        self.restamp(block, s);
    }

    /// Writes block `s` into `block`, which already holds this format's pattern outside its
    /// header and tags (a block `stamp` or `restamp` wrote, nothing since): tags, header,
    /// checksum, without copying the pattern again.
    #[inline]
    pub fn restamp(&self, block: &mut [u8], s: &Stamp) {
        debug_assert_eq!(block.len(), self.unit());
        for (i, sector) in block.chunks_exact_mut(SECTOR).enumerate() {
            let tag = self.tag(s.volume_offset, s.generation, i);
            sector[TAG_AT..].copy_from_slice(&tag.to_le_bytes());
        }
        block[..8].copy_from_slice(&MAGIC);
        put(block, 16, &VERSION.to_le_bytes());
        put(block, 18, &((self.unit() / SECTOR) as u16).to_le_bytes());
        put(block, 20, &s.point.to_le_bytes());
        put(block, 24, &s.run.to_le_bytes());
        put(block, 32, &s.volume_offset.to_le_bytes());
        put(block, 40, &s.target_offset.to_le_bytes());
        put(block, 48, &s.target.to_le_bytes());
        put(block, 52, &s.class.to_le_bytes());
        put(block, 54, &s.generation.to_le_bytes());
        put(block, 56, &s.time_ns.to_le_bytes());
        let sum = XxHash3_64::oneshot(&block[SUMMED..]);
        put(block, 8, &sum.to_le_bytes());
    }

    /// Whether `block` (with this format's magic) is whole: its checksum, version and size hold.
    fn summed(&self, block: &[u8]) -> bool {
        u64_at(block, 8) == XxHash3_64::oneshot(&block[SUMMED..])
            && u16_at(block, 16) == VERSION
            && usize::from(u16_at(block, 18)) * SECTOR == self.unit()
    }

    /// Checks a block this run never wrote (`e.generation` 0, no write in flight): whatever it
    /// held before the run is not judged, but a whole block of this run naming another place is a
    /// write that landed here instead of there (no block from before the run carries this run's
    /// id), found wherever it landed, not only on a block the run wrote too.
    pub fn check_unwritten(&self, block: &[u8], e: &Expect) -> Option<Finding> {
        if block[..8] != MAGIC || !self.summed(block) || header(block).run != e.run {
            return None;
        }
        self.check(block, e)
            .filter(|f| f.kind == CorruptionKind::Misdirected)
    }

    /// Checks `block` against `e`: `None` when it is exactly the block the last acknowledged
    /// write stamped (magic, checksum, run, offsets, generation), else what it is.
    #[inline]
    pub fn check(&self, block: &[u8], e: &Expect) -> Option<Finding> {
        if block[..8] != MAGIC {
            return Some(self.headerless(block));
        }
        let h = header(block);
        if !self.summed(block) {
            return Some(self.torn(block, e, h));
        }
        let (kind, detail) = if h.run != e.run {
            (
                CorruptionKind::Lost,
                format!(
                    "a block of another run ({:#018x}): the content from before this run",
                    h.run
                ),
            )
        } else if h.volume_offset != e.volume_offset
            || h.target != e.target
            || h.target_offset != e.target_offset
        {
            (
                CorruptionKind::Misdirected,
                format!(
                    "a block written for volume offset {} (target {} offset {}), generation {}",
                    h.volume_offset, h.target, h.target_offset, h.generation
                ),
            )
        } else if h.generation == e.generation {
            return None;
        } else if older(h.generation, e.generation) || e.generation == 0 {
            (
                CorruptionKind::Lost,
                format!(
                    "generation {} found where generation {} was acknowledged",
                    h.generation, e.generation
                ),
            )
        } else {
            (
                CorruptionKind::Unexpected,
                format!(
                    "generation {} found, newer than the acknowledged {}",
                    h.generation, e.generation
                ),
            )
        };
        Some(Finding {
            kind,
            found: Some(h),
            detail,
        })
    }

    /// No magic: zeros, another run's pattern without its header, or anything else.
    fn headerless(&self, block: &[u8]) -> Finding {
        if block.iter().all(|&b| b == 0) {
            return Finding {
                kind: CorruptionKind::Zeros,
                found: None,
                detail: "no header: every byte is zero".into(),
            };
        }
        let zero_sectors = block
            .chunks_exact(SECTOR)
            .filter(|s| s.iter().all(|&b| b == 0))
            .count();
        let first: Vec<String> = block[..8].iter().map(|b| format!("{b:02x}")).collect();
        Finding {
            kind: CorruptionKind::Garbage,
            found: None,
            detail: format!(
                "no header (first bytes {}); {zero_sectors} of {} sectors zero",
                first.join(" "),
                block.len() / SECTOR
            ),
        }
    }

    /// The magic is there but the checksum, version or size is not right: which sectors carry
    /// which generation, and which bytes differ from what the header's generation would hold.
    fn torn(&self, block: &[u8], e: &Expect, h: FoundHeader) -> Finding {
        let mut runs: Vec<(usize, usize, Option<u16>)> = Vec::new();
        for (i, sector) in block.chunks_exact(SECTOR).enumerate() {
            let tag = u64_at(sector, TAG_AT);
            let generation = (0..=TAG_LOOKBACK)
                .map(|back| e.generation.wrapping_sub(back))
                .chain([h.generation])
                .find(|&g| self.tag(e.volume_offset, g, i) == tag);
            match runs.last_mut() {
                Some((_, end, g)) if *g == generation && *end == i => *end = i + 1,
                _ => runs.push((i, i + 1, generation)),
            }
        }
        let sectors: Vec<String> = runs
            .iter()
            .map(|&(from, to, g)| {
                let span = if to - from == 1 {
                    format!("sector {from}")
                } else {
                    format!("sectors {from}-{}", to - 1)
                };
                match g {
                    Some(g) => format!("{span} of generation {g}"),
                    None => format!("{span} of no generation"),
                }
            })
            .collect();
        // The bytes that differ from the header's own block, the header and tags aside.
        let mut expected = vec![0u8; self.unit()];
        self.stamp(
            &mut expected,
            &Stamp {
                run: h.run,
                point: h.point,
                class: h.class,
                target: h.target,
                target_offset: h.target_offset,
                volume_offset: h.volume_offset,
                generation: h.generation,
                time_ns: h.written_ns,
            },
        );
        let differ: Vec<usize> = (SUMMED..block.len())
            .filter(|&i| block[i] != expected[i])
            .collect();
        let bytes = match differ.first() {
            Some(first) => format!(
                "; {} byte(s) differ from generation {}'s block, the first at byte {first} \
                 ({:#04x} instead of {:#04x})",
                differ.len(),
                h.generation,
                block[*first],
                expected[*first]
            ),
            None => String::new(),
        };
        Finding {
            kind: CorruptionKind::Torn,
            detail: format!(
                "checksum mismatch: header of generation {} (expected {}); {}{bytes}",
                h.generation,
                e.generation,
                sectors.join(", ")
            ),
            found: Some(h),
        }
    }
}

fn header(block: &[u8]) -> FoundHeader {
    FoundHeader {
        run: u64_at(block, 24),
        volume_offset: u64_at(block, 32),
        target: u32::from_le_bytes(block[48..52].try_into().unwrap_or_default()),
        target_offset: u64_at(block, 40),
        generation: u16_at(block, 54),
        point: u32::from_le_bytes(block[20..24].try_into().unwrap_or_default()),
        class: u16_at(block, 52),
        written_ns: u64_at(block, 56),
    }
}

#[inline]
fn put(block: &mut [u8], at: usize, bytes: &[u8]) {
    block[at..at + bytes.len()].copy_from_slice(bytes);
}

#[inline]
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or_default())
}

#[inline]
fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap_or_default())
}

/// splitmix64's finaliser.
#[inline]
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
