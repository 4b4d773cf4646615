//! The generation map: per block of the volume, the generation of the last write the storage
//! acknowledged (14 bits, 0 = never written in this run), whether its last change was a trim
//! (the 15th bit) and whether a write or trim to it is in flight (the 16th bit). Shared by a run's workers and points; two bytes per block, in memory or, with
//! `journal = true`, in the run folder's journal file (`journal`), beside each block's last
//! promised generation (a grouped flush's).

use super::block::{AfterTrim, Format, older};
use super::journal::{Journal, JournalFile, JournalHeader, now_ns};
use crate::ExecTarget;
use rigel_plan::Layout;
use rigel_plan::limits::MAX_VERIFY_MAP_BYTES;
use rigel_target::Volume;
use std::sync::atomic::{AtomicU16, Ordering};

/// The entry's bit for a write in flight: no second write is issued to the block meanwhile, and a
/// read issued or completed meanwhile is not checked (either version may come back).
pub const BUSY: u16 = 0x8000;
/// The entry's bit for a block whose last change was a trim: its generation is the one it held
/// before, and a read of it finds zeros or that generation (`block::check_entry`).
pub const TRIMMED: u16 = 0x4000;
/// The entry's generation bits.
pub const GENERATION: u16 = super::block::MAX_GENERATION;

/// Where the entries live: in memory (with the promised generations a journal recorded, or
/// none), or in the journal file.
enum Entries {
    Memory(Vec<AtomicU16>, Vec<AtomicU16>),
    Journal(Journal),
}

/// What each of `targets` promises a read of a trimmed block finds, in target order (for
/// `GenMap::with_after_trim`).
pub fn after_trim(targets: &[ExecTarget]) -> Vec<AfterTrim> {
    targets
        .iter()
        .map(|t| match crate::engines::discard::zeros_after_trim(t.fd) {
            Some(why) => AfterTrim::Zeros(why),
            None => AfterTrim::Either,
        })
        .collect()
}

pub struct GenMap {
    entries: Entries,
    /// The first block of each target, and each target's usable size.
    first: Vec<u64>,
    sizes: Vec<u64>,
    layout: Layout,
    stripe: u64,
    unit: u64,
    /// This run's id, in every block's header and in results.json.
    pub run: u64,
    pub format: Format,
    /// What each target's trimmed blocks may read back as (`Either` until `with_after_trim`).
    after_trim: Vec<AfterTrim>,
}

impl GenMap {
    /// A map of every block of `volume` in blocks of `unit` bytes, for data seed `seed`; refused
    /// (with why) beyond `MAX_VERIFY_MAP_BYTES`; kept in `journal`'s file when given.
    pub fn new(
        volume: &Volume,
        unit: u64,
        seed: u64,
        journal: Option<&JournalFile>,
    ) -> Result<GenMap, String> {
        let mut first = Vec::with_capacity(volume.targets());
        let mut sizes = Vec::with_capacity(volume.targets());
        let mut blocks = 0u64;
        for t in 0..volume.targets() {
            first.push(blocks);
            sizes.push(volume.target_size(t));
            blocks += volume.target_size(t) / unit;
        }
        let bytes = blocks.saturating_mul(rigel_plan::MAP_BYTES_PER_BLOCK);
        if bytes > MAX_VERIFY_MAP_BYTES {
            return Err(format!(
                "verifying this {} volume in blocks of {} takes a generation map of {}, more than {}: \
                 set a larger verify_unit",
                rigel_expr::Size(volume.size()),
                rigel_expr::Size(unit),
                rigel_expr::Size(bytes),
                rigel_expr::Size(MAX_VERIFY_MAP_BYTES)
            ));
        }
        // 53 bits: results.json keeps it exact as a JSON number.
        let run = fastrand::u64(..) >> 11;
        let entries = match journal {
            Some(j) => {
                let header = JournalHeader {
                    durable: j.durable,
                    // Always room for them: pages no grouped flush touches stay holes.
                    promises: true,
                    run,
                    seed,
                    unit,
                    blocks,
                    made_ns: now_ns(),
                    synced_ns: 0,
                    target_sizes: sizes.clone(),
                    binding: Some(j.binding.clone()),
                };
                Entries::Journal(
                    Journal::create(j, &header)
                        .map_err(|e| format!("the journal {}: {e}", j.path.display()))?,
                )
            }
            None => Entries::Memory(
                std::iter::repeat_with(|| AtomicU16::new(0))
                    .take(blocks as usize)
                    .collect(),
                Vec::new(),
            ),
        };
        Ok(GenMap {
            entries,
            first,
            sizes,
            layout: volume.layout(),
            stripe: volume.stripe(),
            unit,
            run,
            format: Format::new(unit as usize, seed, run),
            after_trim: vec![AfterTrim::Either; volume.targets()],
        })
    }

    /// The map a journal recorded (`entries`, one per block, and its promised generations, one
    /// per block or none) over `volume`, for `rigel verify`; refused when the volume's targets
    /// are not the sizes the journal names.
    pub fn recorded(
        volume: &Volume,
        header: &JournalHeader,
        entries: Vec<u16>,
        promises: Vec<u16>,
    ) -> Result<GenMap, String> {
        let sizes: Vec<u64> = (0..volume.targets())
            .map(|t| volume.target_size(t))
            .collect();
        if sizes != header.target_sizes {
            return Err(format!(
                "the journal was written over targets of {:?} bytes, the volume's are {:?}",
                header.target_sizes, sizes
            ));
        }
        let unit = header.unit;
        let blocks: u64 = sizes.iter().map(|s| s / unit).sum();
        if blocks != entries.len() as u64
            || blocks != header.blocks
            || !(promises.is_empty() || promises.len() == entries.len())
        {
            return Err(format!(
                "the journal holds {} entries for {} blocks of {unit} bytes",
                entries.len(),
                blocks
            ));
        }
        let first = sizes
            .iter()
            .scan(0u64, |at, s| {
                let f = *at;
                *at += s / unit;
                Some(f)
            })
            .collect();
        Ok(GenMap {
            entries: Entries::Memory(
                entries.into_iter().map(AtomicU16::new).collect(),
                promises.into_iter().map(AtomicU16::new).collect(),
            ),
            first,
            sizes,
            layout: volume.layout(),
            stripe: volume.stripe(),
            unit,
            run: header.run,
            format: Format::new(unit as usize, header.seed, header.run),
            after_trim: vec![AfterTrim::Either; volume.targets()],
        })
    }

    /// The map with each target's promise for its trimmed blocks (`verify::after_trim`), in
    /// target order; a missing target keeps `Either`.
    pub fn with_after_trim(mut self, promises: Vec<AfterTrim>) -> GenMap {
        for (kept, p) in self.after_trim.iter_mut().zip(promises) {
            *kept = p;
        }
        self
    }

    /// What a read of target `t`'s block with map entry `entry` is held to: None when its last
    /// change was not a trim, else the target's promise.
    #[inline]
    pub fn trimmed(&self, t: usize, entry: u16) -> Option<AfterTrim> {
        (entry & TRIMMED != 0).then(|| self.after_trim.get(t).copied().unwrap_or(AfterTrim::Either))
    }

    pub fn unit(&self) -> u64 {
        self.unit
    }

    /// Blocks in the map (the volume's).
    pub fn blocks(&self) -> usize {
        self.slice().len()
    }

    /// Whether the map is kept in a journal file.
    pub fn journaled(&self) -> bool {
        matches!(self.entries, Entries::Journal(_))
    }

    #[inline]
    fn slice(&self) -> &[AtomicU16] {
        match &self.entries {
            Entries::Memory(v, _) => v,
            Entries::Journal(j) => j.entries(),
        }
    }

    /// The promised generations (empty: this map keeps none).
    #[inline]
    fn promises(&self) -> &[AtomicU16] {
        match &self.entries {
            Entries::Memory(_, p) => p,
            Entries::Journal(j) => j.promises(),
        }
    }

    /// Whether this map keeps promised generations (a journal's).
    pub fn keeps_promises(&self) -> bool {
        !self.promises().is_empty()
    }

    /// Generation `generation` of the block at `offset` of `target` is durable (a flush issued
    /// after its write completed has completed): its promise, unless a newer one is kept.
    pub fn promise(&self, target: usize, offset: u64, generation: u16) {
        let i = (self.first[target] + offset / self.unit) as usize;
        if let Some(p) = self.promises().get(i) {
            // Workers commit groups concurrently: the newest promise stays.
            let _ = p.fetch_update(Ordering::AcqRel, Ordering::Acquire, |cur| {
                (cur == 0 || older(cur, generation)).then_some(generation)
            });
        }
    }

    /// The promised generation of the block at index `i` (`target_blocks`); 0: none.
    pub fn promised_at(&self, i: usize) -> u16 {
        self.promises()
            .get(i)
            .map_or(0, |p| p.load(Ordering::Acquire))
    }

    /// The entry of the block at `offset` of `target`.
    #[inline]
    pub fn entry(&self, target: usize, offset: u64) -> &AtomicU16 {
        &self.slice()[(self.first[target] + offset / self.unit) as usize]
    }

    /// The blocks of `target`, as (index, target offset) of the first and the count.
    pub fn target_blocks(&self, target: usize) -> (usize, u64) {
        (self.first[target] as usize, self.sizes[target] / self.unit)
    }

    /// The entry at index `i` (`target_blocks`).
    pub fn at(&self, i: usize) -> &AtomicU16 {
        &self.slice()[i]
    }

    /// Where `offset` of `target` lies on the volume.
    #[inline]
    pub fn volume_offset(&self, target: usize, offset: u64) -> u64 {
        match self.layout {
            Layout::Concat => self.sizes[..target].iter().sum::<u64>() + offset,
            Layout::Raid0 => {
                let n = self.first.len() as u64;
                let (stripe_no, within) = (offset / self.stripe, offset % self.stripe);
                (stripe_no * n + target as u64) * self.stripe + within
            }
        }
    }

    pub(crate) fn fits(&self, volume: &Volume, unit: u64) -> bool {
        self.unit == unit
            && self.layout == volume.layout()
            && self.sizes.len() == volume.targets()
            && (0..volume.targets()).all(|t| self.sizes[t] == volume.target_size(t))
    }
}
