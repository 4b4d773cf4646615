//! A class's size mix (`size = "8KiB:60%, 64KiB:40%"`): each I/O's size drawn with the mix's
//! shares, and its offset from the slots of its own size, so every I/O is aligned to its size.
//! A skewed class draws its rank over the smallest size's slots; a larger I/O takes the slot of
//! its size at the same relative position, so every size shares one hot set.

use super::offsets::SlotSpace;
use rigel_expr::SizeMix;
use rigel_target::Volume;

/// `Slot::size_index` of an I/O of a class without a mix.
pub(crate) const NO_SIZE: u8 = u8::MAX;

/// The sizes of a class's mix as a worker draws them.
#[derive(Clone, Debug)]
pub struct MixSetup {
    sizes: Vec<MixSize>,
    /// The sum of the weights: a draw is uniform in `0..total`.
    total: u64,
    /// The index of the smallest size (whose slots a skewed rank is drawn over).
    smallest: usize,
}

#[derive(Clone, Debug)]
struct MixSize {
    /// Drawn when the draw is below this (cumulative weight).
    below: u64,
    len: u32,
    space: SlotSpace,
}

impl MixSetup {
    /// The slots of every size of `mix` over the class's targets and region; None when some size
    /// does not fit (or the mix has more sizes than a slot can name).
    pub fn new(
        volume: &Volume,
        mix: &SizeMix,
        targets: &[usize],
        region: Option<rigel_expr::Region>,
    ) -> Option<MixSetup> {
        if mix.items().len() >= NO_SIZE as usize {
            return None;
        }
        let mut below = 0u64;
        let mut sizes = Vec::with_capacity(mix.items().len());
        for s in mix.items() {
            below += u64::from(s.weight);
            sizes.push(MixSize {
                below,
                len: u32::try_from(s.size).ok()?,
                space: SlotSpace::placed(volume, s.size, targets, region)?,
            });
        }
        let smallest = (0..sizes.len()).min_by_key(|&i| sizes[i].len)?;
        Some(MixSetup {
            sizes,
            total: below,
            smallest,
        })
    }

    /// The smallest size's slots: a skewed class's ranks are drawn over them.
    pub fn smallest_space(&self) -> &SlotSpace {
        &self.sizes[self.smallest].space
    }

    /// Draws the next I/O's size: its index in the mix.
    #[inline]
    pub(crate) fn draw(&self, rng: &mut fastrand::Rng) -> u8 {
        let r = rng.u64(0..self.total);
        self.sizes.iter().position(|s| r < s.below).unwrap_or(0) as u8
    }

    /// The length of size `k`.
    #[inline]
    pub(crate) fn len(&self, k: u8) -> u32 {
        self.sizes[k as usize].len
    }

    /// How many of the smallest size's slots an I/O of size `k` spans (a sequential mix's sizes
    /// are multiples of its smallest: the plan checks it).
    #[inline]
    pub(crate) fn slots(&self, k: u8) -> u64 {
        let smallest = self.sizes[self.smallest].len.max(1);
        u64::from(self.sizes[k as usize].len.div_ceil(smallest))
    }

    /// A uniform offset for an I/O of size `k`.
    #[inline]
    pub(crate) fn random(&self, k: u8, rng: &mut fastrand::Rng) -> (usize, u64) {
        self.sizes[k as usize].space.random(rng)
    }

    /// The offset of an I/O of size `k` at slot `j` of the smallest size's slots: the slot of its
    /// own size at the same relative position.
    #[inline]
    pub(crate) fn at(&self, k: u8, j: u64) -> (usize, u64) {
        let space = &self.sizes[k as usize].space;
        let n_min = self.smallest_space().len().max(1);
        let scaled = (u128::from(j) * u128::from(space.len()) / u128::from(n_min)) as u64;
        space.locate(scaled.min(space.len() - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rigel_plan::Layout;

    const KIB: u64 = 1024;

    /// Pearson's chi-square statistic of `counts` against `expected` shares.
    fn chi_square(counts: &[u64], expected: &[f64]) -> f64 {
        let n: u64 = counts.iter().sum();
        counts
            .iter()
            .zip(expected)
            .map(|(&c, &p)| {
                let e = p * n as f64;
                (c as f64 - e).powi(2) / e
            })
            .sum()
    }

    #[test]
    #[serial_test::parallel]
    fn sizes_are_drawn_with_their_shares_and_aligned_to_themselves() {
        let v = Volume::new(Layout::Concat, 1 << 20, &[64 << 20, 32 << 20]);
        let mix = rigel_expr::parse_size_mix("8KiB:60%, 64KiB:30%, 1MiB:10%").expect("mix");
        let m = MixSetup::new(&v, &mix, &[], None).expect("fits");
        let mut rng = fastrand::Rng::with_seed(5);
        let mut counts = [0u64; 3];
        for _ in 0..200_000 {
            let k = m.draw(&mut rng);
            counts[k as usize] += 1;
            let len = u64::from(m.len(k));
            let (t, off) = m.random(k, &mut rng);
            assert_eq!(off % len, 0, "{off} not aligned to {len}");
            assert!(off + len <= v.target_size(t));
        }
        // 2 degrees of freedom: 13.82 is the 99.9% critical value.
        let chi = chi_square(&counts, &[0.6, 0.3, 0.1]);
        assert!(chi < 13.82, "chi-square {chi} for {counts:?}");
        // And the test can fail: a 62/28/10 generator is rejected at this sample size.
        let biased = [124_000, 56_000, 20_000];
        assert!(chi_square(&biased, &[0.6, 0.3, 0.1]) > 13.82);
    }

    #[test]
    #[serial_test::parallel]
    fn a_skewed_rank_lands_at_the_same_place_for_every_size() {
        let v = Volume::new(Layout::Concat, 1 << 20, &[16 << 20]);
        let mix = rigel_expr::parse_size_mix("4KiB, 64KiB").expect("mix");
        let m = MixSetup::new(&v, &mix, &[], None).expect("fits");
        assert_eq!(m.smallest_space().len(), 4096);
        for j in [0u64, 1, 17, 2048, 4095] {
            let (_, small) = m.at(0, j);
            let (_, large) = m.at(1, j);
            assert_eq!(small, j * 4 * KIB);
            assert_eq!(large, small / (64 * KIB) * (64 * KIB), "slot {j}");
        }
    }
}
