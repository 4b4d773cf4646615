//! What a class's writes carry when its spec shapes it (`compress`, `dedupe`): each 4 KiB unit is
//! either a copy of one of a small pool of units prepared before the point (with probability
//! 1 − 1/dedupe) or fresh, its first 1/compress random bytes and the rest zeros, so the data
//! compresses to the ratio at any window and every fresh unit is new. No compression on the hot
//! path: one random fill and one zero fill (or one copy) per unit.

use rigel_plan::pattern::{DATA_UNIT, DataContent};

/// Units in the pool duplicates are copied from.
const POOL: usize = 16;
const UNIT: usize = DATA_UNIT as usize;

/// A class's shaped write data, per worker.
#[derive(Clone, Debug)]
pub(crate) struct DataFill {
    /// Random bytes at the start of a fresh unit.
    random: usize,
    /// A unit is a duplicate when a 32-bit draw is below this (0: never).
    dup_below: u64,
    pool: Vec<u8>,
}

impl DataFill {
    pub(crate) fn new(c: DataContent, rng: &mut fastrand::Rng) -> DataFill {
        let random = (UNIT * 100).div_ceil(c.compress.max(100) as usize);
        let dup = 1.0 - 100.0 / f64::from(c.dedupe.max(100));
        let mut fill = DataFill {
            random,
            dup_below: (dup * f64::from(u32::MAX)) as u64,
            pool: vec![0; POOL * UNIT],
        };
        let mut pool = std::mem::take(&mut fill.pool);
        for unit in pool.chunks_mut(UNIT) {
            fill.fresh(unit, rng);
        }
        fill.pool = pool;
        fill
    }

    #[inline]
    fn fresh(&self, unit: &mut [u8], rng: &mut fastrand::Rng) {
        let random = self.random.min(unit.len());
        rng.fill(&mut unit[..random]);
        unit[random..].fill(0);
    }

    /// Fills a write's buffer (a whole number of units: the plan checks the sizes).
    #[inline]
    pub(crate) fn fill(&self, buf: &mut [u8], rng: &mut fastrand::Rng) {
        for unit in buf.chunks_mut(UNIT) {
            if self.dup_below > 0 && u64::from(rng.u32(..)) < self.dup_below {
                let k = rng.usize(0..POOL) * UNIT;
                unit.copy_from_slice(&self.pool[k..k + unit.len()]);
            } else {
                self.fresh(unit, rng);
            }
        }
    }
}
