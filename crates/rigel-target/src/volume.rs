//! The virtual volume: ORION's concat and raid0 layouts, mapping a virtual offset to a target and an
//! offset inside it. Pure arithmetic, on the executor's hot path.

use rigel_plan::Layout;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Volume {
    layout: Layout,
    stripe: u64,
    /// Usable size of each target (raid0: trimmed to whole stripes of the smallest target).
    sizes: Vec<u64>,
    /// concat: start of each target in the virtual volume.
    starts: Vec<u64>,
    total: u64,
}

impl Volume {
    /// `sizes` are the targets' sizes in bytes; `stripe` must be > 0 for raid0.
    pub fn new(layout: Layout, stripe: u64, sizes: &[u64]) -> Volume {
        let (sizes, total) = match layout {
            Layout::Concat => (sizes.to_vec(), sizes.iter().sum()),
            Layout::Raid0 => {
                let per = sizes.iter().copied().min().unwrap_or(0) / stripe.max(1) * stripe;
                (vec![per; sizes.len()], per * sizes.len() as u64)
            }
        };
        let starts = sizes
            .iter()
            .scan(0u64, |acc, s| {
                let start = *acc;
                *acc += s;
                Some(start)
            })
            .collect();
        Volume {
            layout,
            stripe: stripe.max(1),
            sizes,
            starts,
            total,
        }
    }

    /// Bytes addressable through the volume.
    pub fn size(&self) -> u64 {
        self.total
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Stripe depth in bytes (at least 1).
    pub fn stripe(&self) -> u64 {
        self.stripe
    }

    pub fn targets(&self) -> usize {
        self.sizes.len()
    }

    /// The target index and the offset inside it for a virtual offset `< size()`. An I/O of `len`
    /// bytes starting there stays inside one target when `len` divides the stripe (raid0) and the
    /// offset is aligned to `len`; concat I/Os must be chosen not to straddle `boundary`.
    #[inline]
    pub fn map(&self, voff: u64) -> (usize, u64) {
        match self.layout {
            Layout::Concat => {
                let idx = self.starts.partition_point(|&s| s <= voff) - 1;
                (idx, voff - self.starts[idx])
            }
            Layout::Raid0 => {
                let n = self.sizes.len() as u64;
                let stripe_no = voff / self.stripe;
                let within = voff % self.stripe;
                let target = (stripe_no % n) as usize;
                (target, (stripe_no / n) * self.stripe + within)
            }
        }
    }

    /// Usable bytes of target `idx` (an I/O at `offset` of `len` bytes fits when `offset + len <=`).
    pub fn target_size(&self, idx: usize) -> u64 {
        self.sizes[idx]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concat_maps_across_boundaries() {
        let v = Volume::new(Layout::Concat, 1 << 20, &[100, 50, 10]);
        assert_eq!(v.size(), 160);
        assert_eq!(v.map(0), (0, 0));
        assert_eq!(v.map(99), (0, 99));
        assert_eq!(v.map(100), (1, 0));
        assert_eq!(v.map(159), (2, 9));
    }

    #[test]
    fn raid0_rotates_stripes_and_trims_to_smallest() {
        let v = Volume::new(Layout::Raid0, 4, &[16, 13]);
        assert_eq!(v.size(), 24); // 12 usable bytes each
        assert_eq!(v.map(0), (0, 0));
        assert_eq!(v.map(5), (1, 1));
        assert_eq!(v.map(8), (0, 4));
        assert_eq!(v.map(23), (1, 11));
    }
}
