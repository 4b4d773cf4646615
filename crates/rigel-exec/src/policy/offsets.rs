//! Where each I/O goes: the aligned I/O slots of a volume for one I/O size, random picks uniform
//! over them, and sequential streams walking them. Pure arithmetic, tested without storage.
//!
//! A slot is an `io_size`-aligned range of one target that never crosses the target's end. Every
//! slot of the volume is equally likely for random I/O, and sequential streams visit slots in
//! volume order, so consecutive I/Os of a stream have consecutive offsets inside a target.
//!
//! A class placed on some of the targets (`targets`) has a volume of its own over them, and a
//! class with a `region` addresses only the slots lying wholly inside that byte range of its
//! volume: slot numbers are then counted from the region's first slot.

use rigel_plan::Layout;
use rigel_target::Volume;

/// The I/O slots of a volume for one I/O size.
#[derive(Clone, Debug)]
pub struct SlotSpace {
    io_size: u64,
    kind: SlotKind,
    total: u64,
    /// The region's first slot in the volume's numbering (0: from the volume's start).
    first: u64,
    /// Target `k` of this space is target `map[k]` of the point's targets.
    map: Vec<u32>,
}

#[derive(Clone, Debug)]
enum SlotKind {
    /// Targets one after the other: `first[k]` is the first slot of target `k`.
    Concat { first: Vec<u64> },
    /// The I/O size divides the stripe: slot `j` is the virtual offset `j × io_size`, mapped by
    /// the volume's own raid0 arithmetic.
    Striped { volume: Volume },
    /// The I/O is larger than the stripe (or does not divide it): each I/O lands whole on one
    /// target, targets taken in turn, as a raid0 whose stripe is the I/O size.
    RoundRobin { targets: u64 },
}

impl SlotSpace {
    /// The slots of `volume` for I/Os of `io_size` bytes (> 0). `None` when no target holds even
    /// one I/O of that size.
    pub fn new(volume: &Volume, io_size: u64) -> Option<SlotSpace> {
        let (layout, stripe) = (volume.layout(), volume.stripe());
        if io_size == 0 || volume.targets() == 0 {
            return None;
        }
        let n = volume.targets();
        let (kind, total) = match layout {
            Layout::Concat => {
                let mut first = Vec::with_capacity(n);
                let mut total = 0u64;
                for k in 0..n {
                    first.push(total);
                    total += volume.target_size(k) / io_size;
                }
                (SlotKind::Concat { first }, total)
            }
            Layout::Raid0 if stripe % io_size == 0 => (
                SlotKind::Striped {
                    volume: volume.clone(),
                },
                volume.size() / io_size,
            ),
            Layout::Raid0 => {
                let per_target = volume.target_size(0) / io_size;
                (
                    SlotKind::RoundRobin { targets: n as u64 },
                    per_target * n as u64,
                )
            }
        };
        (total > 0).then_some(SlotSpace {
            io_size,
            kind,
            total,
            first: 0,
            map: (0..n as u32).collect(),
        })
    }

    /// The slots of a class placed on `targets` (indices into `volume`'s targets, in the order
    /// named; all of them when empty), as a volume of their own with `volume`'s layout, confined
    /// to the slots wholly inside `region`. `None` when no slot fits.
    pub fn placed(
        volume: &Volume,
        io_size: u64,
        targets: &[usize],
        region: Option<rigel_expr::Region>,
    ) -> Option<SlotSpace> {
        let mut space = if targets.is_empty() {
            SlotSpace::new(volume, io_size)?
        } else {
            if targets.iter().any(|&t| t >= volume.targets()) {
                return None;
            }
            let sizes: Vec<u64> = targets.iter().map(|&t| volume.target_size(t)).collect();
            let own = Volume::new(volume.layout(), volume.stripe(), &sizes);
            let mut space = SlotSpace::new(&own, io_size)?;
            space.map = targets.iter().map(|&t| t as u32).collect();
            space
        };
        if let Some(region) = region {
            let size = match &space.kind {
                SlotKind::Striped { volume } => volume.size(),
                SlotKind::Concat { .. } | SlotKind::RoundRobin { .. } => {
                    space.volume_bytes(volume, targets)
                }
            };
            let (a, b) = region.bytes(size);
            let (from, to) = (
                space.slots_starting_before(a, volume, targets),
                space.slots_ending_by(b, volume, targets),
            );
            if to <= from {
                return None;
            }
            space.first = from;
            space.total = to - from;
        }
        Some(space)
    }

    /// The byte sizes of the space's targets (concat) or its slot-addressed bytes (round robin).
    fn volume_bytes(&self, volume: &Volume, targets: &[usize]) -> u64 {
        match &self.kind {
            SlotKind::Concat { .. } => self.target_sizes(volume, targets).iter().sum(),
            _ => self.total * self.io_size,
        }
    }

    fn target_sizes(&self, volume: &Volume, targets: &[usize]) -> Vec<u64> {
        if targets.is_empty() {
            (0..volume.targets())
                .map(|k| volume.target_size(k))
                .collect()
        } else {
            targets.iter().map(|&t| volume.target_size(t)).collect()
        }
    }

    /// Slots whose volume byte range starts before `v` (slots lie in volume order).
    fn slots_starting_before(&self, v: u64, volume: &Volume, targets: &[usize]) -> u64 {
        self.count_slots(v, volume, targets, u64::div_ceil)
    }

    /// Slots whose volume byte range ends at or before `v`.
    fn slots_ending_by(&self, v: u64, volume: &Volume, targets: &[usize]) -> u64 {
        self.count_slots(v, volume, targets, |a, b| a / b)
    }

    fn count_slots(
        &self,
        v: u64,
        volume: &Volume,
        targets: &[usize],
        round: fn(u64, u64) -> u64,
    ) -> u64 {
        match &self.kind {
            SlotKind::Concat { first } => {
                let sizes = self.target_sizes(volume, targets);
                let mut base = 0u64;
                let mut count = 0u64;
                for (k, size) in sizes.iter().enumerate() {
                    let slots = first.get(k + 1).copied().unwrap_or(self.total) - first[k];
                    if v > base {
                        count += round(v - base, self.io_size).min(slots);
                    }
                    base += size;
                }
                count
            }
            _ => round(v, self.io_size).min(self.total),
        }
    }

    /// Number of slots.
    pub fn len(&self) -> u64 {
        self.total
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    pub fn io_size(&self) -> u64 {
        self.io_size
    }

    /// The target index (among the point's targets) and byte offset of slot `j` (`j < len()`).
    #[inline]
    pub fn locate(&self, j: u64) -> (usize, u64) {
        let (k, offset) = self.locate_own(j + self.first);
        (self.map[k] as usize, offset)
    }

    /// The target index (among this space's targets) and byte offset of slot `j` of its volume.
    #[inline]
    fn locate_own(&self, j: u64) -> (usize, u64) {
        match &self.kind {
            SlotKind::Concat { first } => {
                let k = first.partition_point(|&f| f <= j) - 1;
                (k, (j - first[k]) * self.io_size)
            }
            SlotKind::Striped { volume } => volume.map(j * self.io_size),
            SlotKind::RoundRobin { targets } => {
                ((j % targets) as usize, (j / targets) * self.io_size)
            }
        }
    }

    /// A slot drawn uniformly at random.
    #[inline]
    pub fn random(&self, rng: &mut fastrand::Rng) -> (usize, u64) {
        self.locate(rng.u64(0..self.total))
    }

    /// The starting slot of stream `s` of `streams`: streams start evenly spread over the volume.
    pub fn stream_start(&self, s: u64, streams: u64) -> u64 {
        let streams = streams.max(1);
        ((self.total as u128 * s as u128) / streams as u128) as u64 % self.total
    }
}

/// One sequential stream: consecutive slots from its start, wrapping at the volume's end.
#[derive(Clone, Copy, Debug)]
pub struct Stream {
    next: u64,
}

impl Stream {
    pub fn new(start: u64) -> Stream {
        Stream { next: start }
    }

    /// The stream's next I/O.
    #[inline]
    pub fn advance(&mut self, space: &SlotSpace) -> (usize, u64) {
        let at = space.locate(self.next);
        self.next += 1;
        if self.next >= space.len() {
            self.next = 0;
        }
        at
    }

    /// A size-mix stream's next I/O of `n` slots (a size `n` times the smallest): the `n` slots
    /// from the stream's position when they lie one after the other on one target, else from the
    /// first slot after it where they do (past a target's end or a stripe's edge); the stream
    /// then moves on by `n`. Where no such run is found within `2n` slots (a layout that deals
    /// consecutive slots to different targets), the `n`-slot I/O's own aligned place.
    #[inline]
    pub fn advance_by(&mut self, space: &SlotSpace, n: u64) -> (usize, u64) {
        let len = space.len();
        let n = n.clamp(1, len.max(1));
        for _ in 0..2 * n {
            if self.next + n > len {
                self.next = 0;
            }
            let first = space.locate(self.next);
            let last = space.locate(self.next + n - 1);
            let contiguous = first.0 == last.0 && last.1 == first.1 + (n - 1) * space.io_size();
            if contiguous {
                self.next += n;
                if self.next >= len {
                    self.next = 0;
                }
                return first;
            }
            self.next += 1;
        }
        let at = space.locate(self.next / n * n % len);
        self.next = (self.next + n) % len;
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * 1024;

    fn space(layout: Layout, stripe: u64, sizes: &[u64], io: u64) -> (Volume, SlotSpace) {
        let v = Volume::new(layout, stripe, sizes);
        let s = SlotSpace::new(&v, io).expect("slots");
        (v, s)
    }

    /// Every random pick is aligned, inside its target, and does not cross the target's end.
    fn assert_inside(v: &Volume, s: &SlotSpace, picks: &[(usize, u64)]) {
        for &(t, off) in picks {
            assert!(t < v.targets());
            assert_eq!(off % s.io_size(), 0, "offset {off} not aligned");
            assert!(
                off + s.io_size() <= v.target_size(t),
                "{off} crosses target {t}"
            );
        }
    }

    /// Pearson's chi-square over `buckets` equal cells; the 99.9% critical value is approximated by
    /// Wilson–Hilferty, so a correct generator fails about once in a thousand seeds (fixed seed here).
    fn chi_square_accepts(counts: &[u64]) -> bool {
        let n: u64 = counts.iter().sum();
        let k = counts.len() as f64;
        let expected = n as f64 / k;
        let chi: f64 = counts
            .iter()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum();
        let df = k - 1.0;
        let z = 3.09; // one-sided 99.9%
        let crit = df * (1.0 - 2.0 / (9.0 * df) + z * (2.0 / (9.0 * df)).sqrt()).powi(3);
        chi < crit
    }

    /// Buckets a pick by (target, stripe inside the target) so every stripe is a cell.
    fn stripe_cells(v: &Volume, stripe: u64, picks: &[(usize, u64)]) -> Vec<u64> {
        let per: Vec<u64> = (0..v.targets())
            .map(|k| v.target_size(k) / stripe)
            .collect();
        let mut base = vec![0u64; per.len()];
        for k in 1..per.len() {
            base[k] = base[k - 1] + per[k - 1];
        }
        let mut cells = vec![0u64; per.iter().sum::<u64>() as usize];
        for &(t, off) in picks {
            cells[(base[t] + off / stripe) as usize] += 1;
        }
        cells
    }

    fn draw(s: &SlotSpace, n: usize, seed: u64) -> Vec<(usize, u64)> {
        let mut rng = fastrand::Rng::with_seed(seed);
        (0..n).map(|_| s.random(&mut rng)).collect()
    }

    #[test]
    #[serial_test::parallel]
    fn concat_random_hits_every_stripe_uniformly() {
        // Unequal targets, sizes not multiples of the I/O size: the tails are never touched.
        let sizes = [64 * MIB + 3 * KIB, 32 * MIB, 96 * MIB + 512];
        let (v, s) = space(Layout::Concat, MIB, &sizes, 8 * KIB);
        let picks = draw(&s, 400_000, 7);
        assert_inside(&v, &s, &picks);
        let cells = stripe_cells(&v, MIB, &picks);
        assert_eq!(cells.len(), 64 + 32 + 96);
        assert!(cells.iter().all(|&c| c > 0), "a stripe was never hit");
        assert!(chi_square_accepts(&cells), "chi-square rejects uniformity");
    }

    #[test]
    #[serial_test::parallel]
    fn raid0_random_hits_every_stripe_uniformly() {
        let sizes = [48 * MIB, 50 * MIB, 48 * MIB];
        let stripe = 256 * KIB;
        let (v, s) = space(Layout::Raid0, stripe, &sizes, 4 * KIB);
        let picks = draw(&s, 400_000, 11);
        assert_inside(&v, &s, &picks);
        let cells = stripe_cells(&v, stripe, &picks);
        assert_eq!(cells.len(), 3 * 192);
        assert!(cells.iter().all(|&c| c > 0), "a stripe was never hit");
        assert!(chi_square_accepts(&cells), "chi-square rejects uniformity");
    }

    #[test]
    #[serial_test::parallel]
    fn raid0_with_io_larger_than_stripe_keeps_each_io_on_one_target() {
        let sizes = [16 * MIB, 16 * MIB];
        let (v, s) = space(Layout::Raid0, 64 * KIB, &sizes, MIB);
        assert_eq!(s.len(), 32);
        let picks = draw(&s, 64_000, 3);
        assert_inside(&v, &s, &picks);
        let mut cells = vec![0u64; 32];
        for &(t, off) in &picks {
            cells[t * 16 + (off / MIB) as usize] += 1;
        }
        assert!(cells.iter().all(|&c| c > 0));
        assert!(chi_square_accepts(&cells));
    }

    #[test]
    #[serial_test::parallel]
    fn chi_square_rejects_a_skewed_generator() {
        // The test above could pass vacuously if the criterion accepted anything.
        // Half the cells 5% over, half 5% under: a generator that favours half the volume.
        let cells: Vec<u64> = (0..100)
            .map(|i| if i % 2 == 0 { 1050 } else { 950 })
            .collect();
        assert!(!chi_square_accepts(&cells));
    }

    #[test]
    #[serial_test::parallel]
    fn streams_start_spread_and_walk_consecutively_across_targets() {
        let sizes = [10 * MIB + 100, 6 * MIB];
        let (v, s) = space(Layout::Concat, MIB, &sizes, MIB);
        assert_eq!(s.len(), 16);
        let starts: Vec<u64> = (0..4).map(|i| s.stream_start(i, 4)).collect();
        assert_eq!(starts, vec![0, 4, 8, 12]);
        let mut st = Stream::new(s.stream_start(2, 4));
        let walk: Vec<(usize, u64)> = (0..10).map(|_| st.advance(&s)).collect();
        assert_eq!(
            walk,
            vec![
                (0, 8 * MIB),
                (0, 9 * MIB),
                (1, 0),
                (1, MIB),
                (1, 2 * MIB),
                (1, 3 * MIB),
                (1, 4 * MIB),
                (1, 5 * MIB),
                (0, 0), // wrapped
                (0, MIB),
            ]
        );
        assert_inside(&v, &s, &walk);
    }

    #[test]
    #[serial_test::parallel]
    fn too_small_a_volume_has_no_slots() {
        let v = Volume::new(Layout::Concat, MIB, &[4 * KIB]);
        assert!(SlotSpace::new(&v, 8 * KIB).is_none());
        assert!(SlotSpace::new(&v, 0).is_none());
    }
}

#[cfg(test)]
#[path = "offsets_placed_tests.rs"]
mod placed_tests;
