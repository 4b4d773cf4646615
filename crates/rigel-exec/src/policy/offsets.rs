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
#[path = "offsets_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "offsets_placed_tests.rs"]
mod placed_tests;
