//! First touch: a sampled record of which blocks a run has touched, so a sampled read can say
//! whether its block was read or written before in the run (a volume restored from a snapshot,
//! or a thin LUN, serves a block slowly the first time and fast after).
//!
//! The grid is 4 KiB units of each target, whatever the classes' sizes: every class shares it (a
//! block written by the large class is a re-touch for the small one), and a large I/O is sampled
//! when it covers a watched unit (a 1 MiB read about one time in four), where a grid of the
//! class's own I/O unit would watch 256 times fewer of its reads. Each 4 MiB group of 1,024 units
//! watches one, at a position a multiply-shift hash of the group's index picks: 1/1,024 of the
//! units, spread evenly over the target (no hot spot is missed, no stride aliases with it), and
//! one bit per group, so the bitmap is indexed directly (one bit per 4 MiB: 32 KiB for a TiB),
//! sized once per target when the run first needs it. Per I/O: one hash and a branch; an I/O
//! that crosses a group's end (rare for aligned I/Os) takes a cold path.
//!
//! The record spans the run (`Reuse` keeps it): a block touched at point 1 is a re-touch at
//! point 2, and the precondition's fill runs through the same record, so after it every watched
//! block is a re-touch. Warmup I/Os touch too (their reads are not recorded).

use rigel_target::Volume;
use std::sync::atomic::{AtomicU64, Ordering};

/// 4 KiB units.
const UNIT_SHIFT: u32 = 12;
/// 1,024 units to a group, one of them watched.
const GROUP_SHIFT: u32 = 10;
/// Fibonacci hashing's multiplier (2^64 / φ): the top bits of `g × K` spread consecutive `g`.
const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// One bit per 4 MiB group of a target: whether its watched unit was touched.
#[derive(Debug)]
struct TargetMap {
    bits: Vec<AtomicU64>,
}

/// The run's record, one map per target of the volume.
#[derive(Debug)]
pub(crate) struct Touched {
    targets: Vec<TargetMap>,
    /// The target sizes it was made for (a later point on another volume makes a new one).
    sizes: Vec<u64>,
}

/// The watched unit of group `g`.
#[inline(always)]
fn watched(g: u64) -> u64 {
    (g << GROUP_SHIFT) | (g.wrapping_mul(K) >> (64 - GROUP_SHIFT))
}

impl Touched {
    pub(crate) fn new(volume: &Volume) -> Touched {
        let sizes: Vec<u64> = (0..volume.targets())
            .map(|t| volume.target_size(t))
            .collect();
        let targets = sizes
            .iter()
            .map(|&s| {
                let groups = s.div_ceil(1 << (UNIT_SHIFT + GROUP_SHIFT));
                TargetMap {
                    bits: (0..groups.div_ceil(64))
                        .map(|_| AtomicU64::new(0))
                        .collect(),
                }
            })
            .collect();
        Touched { targets, sizes }
    }

    /// Whether this record was made for `volume`'s targets.
    pub(crate) fn fits(&self, volume: &Volume) -> bool {
        self.sizes.len() == volume.targets()
            && self
                .sizes
                .iter()
                .enumerate()
                .all(|(t, &s)| volume.target_size(t) == s)
    }

    /// Marks the I/O of `len` bytes at `offset` of `target` as touching its blocks. When it
    /// covers a watched unit: `Some(first)`, `first` when none it covers was touched before.
    #[inline(always)]
    pub(crate) fn touch(&self, target: u32, offset: u64, len: u64) -> Option<bool> {
        let first = offset >> UNIT_SHIFT;
        let last = (offset + len.max(1) - 1) >> UNIT_SHIFT;
        let g = first >> GROUP_SHIFT;
        if last >> GROUP_SHIFT != g {
            return self.touch_across(target, first, last);
        }
        let w = watched(g);
        if w < first || w > last {
            return None;
        }
        self.mark(target, g)
    }

    /// An I/O across groups: every watched unit it covers is marked.
    #[cold]
    fn touch_across(&self, target: u32, first: u64, last: u64) -> Option<bool> {
        let mut any: Option<bool> = None;
        for g in first >> GROUP_SHIFT..=last >> GROUP_SHIFT {
            let w = watched(g);
            if w < first || w > last {
                continue;
            }
            if let Some(f) = self.mark(target, g) {
                any = Some(any.unwrap_or(false) || f);
            }
        }
        any
    }

    /// Sets group `g`'s bit; whether it was clear (None: beyond the target).
    #[inline(always)]
    fn mark(&self, target: u32, g: u64) -> Option<bool> {
        let word = self
            .targets
            .get(target as usize)?
            .bits
            .get((g / 64) as usize)?;
        let bit = 1u64 << (g % 64);
        // Read first: a re-touch (the common case once warm) leaves the cache line shared.
        if word.load(Ordering::Relaxed) & bit != 0 {
            return Some(false);
        }
        Some(word.fetch_or(bit, Ordering::Relaxed) & bit == 0)
    }

    /// Watched groups touched so far, over all targets (tests).
    #[cfg(test)]
    pub(crate) fn count(&self) -> u64 {
        self.targets
            .iter()
            .flat_map(|t| &t.bits)
            .map(|w| u64::from(w.load(Ordering::Relaxed).count_ones()))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(size: u64) -> Touched {
        Touched::new(&Volume::new(rigel_plan::Layout::Concat, 0, &[size]))
    }

    #[test]
    #[serial_test::parallel]
    fn one_unit_in_1024_is_watched_and_a_second_touch_is_a_retouch() {
        let t = one(1 << 30);
        let mut sampled = 0;
        for u in 0..(1u64 << 30) >> 12 {
            if let Some(first) = t.touch(0, u << 12, 4096) {
                assert!(first, "unit {u} touched once");
                sampled += 1;
                assert_eq!(t.touch(0, u << 12, 4096), Some(false));
            }
        }
        assert_eq!(sampled, 256, "one per 4 MiB of 1 GiB");
        assert_eq!(t.count(), 256);
    }

    #[test]
    #[serial_test::parallel]
    fn a_large_io_touches_the_watched_unit_a_small_one_then_reads() {
        let t = one(64 << 20);
        // 1 MiB writes over the whole target mark every group.
        for o in (0..64u64 << 20).step_by(1 << 20) {
            t.touch(0, o, 1 << 20);
        }
        assert_eq!(t.count(), 16);
        // Every 4 KiB read of a watched unit is then a re-touch.
        let re = (0..(64u64 << 20) >> 12)
            .filter_map(|u| t.touch(0, u << 12, 4096))
            .inspect(|f| assert!(!f))
            .count();
        assert_eq!(re, 16);
        // An I/O across groups marks each watched unit it covers; beyond the target: nothing.
        let t = one(64 << 20);
        assert_eq!(t.touch(0, 0, 64 << 20), Some(true));
        assert_eq!(t.count(), 16);
        assert_eq!(t.touch(0, 1 << 40, 4096), None);
        assert_eq!(t.touch(3, 0, 64 << 20), None);
    }
}
