//! Skewed random offsets (`distribution`): a rank drawn in O(1) per I/O from the class's
//! distribution (no table over the volume), then mapped onto the region's slots by a keyed
//! permutation (`BlockMap`), so the hot blocks are scattered yet every block stays reachable and
//! distinct ranks are distinct blocks; or placed in order (`hot_layout = "contiguous"`).
//!
//! Zipf uses `rand_distr`'s rejection-inversion sampler (Hörmann and Derflinger), pareto fio's
//! inversion, normal a ziggurat Gaussian drawn again outside the region, hot bands one uniform draw
//! for the band and one inside it.

use rand_distr::Distribution as _;
use rigel_expr::Distribution;
use rigel_plan::fast_rng::Fast;

/// Shares of the region's blocks whose I/O share results report: the hottest 1%, 10% and 20%.
pub const HOTTEST: [f64; 3] = [0.01, 0.10, 0.20];

/// A class's skewed draw over `n` slots.
#[derive(Clone, Debug)]
pub struct Skew {
    n: u64,
    draw: Draw,
    /// Ranks onto slots (None: contiguous, a rank's position is its slot).
    map: Option<BlockMap>,
    /// Ranks below these are the hottest 1%, 10%, 20% of the slots.
    hot: [u64; 3],
}

#[derive(Clone, Debug)]
enum Draw {
    Zipf(rand_distr::Zipf<f64>),
    /// rank = ⌊top · u^pow⌋.
    Pareto {
        pow: f64,
        top: f64,
    },
    /// Position ⌊n/2 + σ·g⌋, drawn again outside `0..n`.
    Normal {
        sigma: f64,
    },
    Hot(Vec<HotBand>),
}

/// A band: taken when the draw is below `below` (of 2^64); its ranks start at `rank`, its
/// positions in the region at `at`, `len` slots.
#[derive(Clone, Copy, Debug)]
struct HotBand {
    below: u64,
    rank: u64,
    at: u64,
    len: u64,
}

impl Skew {
    /// The draw of `distribution` over `n` slots (`n` > 0), its permutation keyed by `key`; None
    /// for a uniform class (drawn as before, with no rank).
    pub fn new(distribution: &Distribution, n: u64, contiguous: bool, key: u64) -> Option<Skew> {
        let draw = match distribution {
            Distribution::Uniform => return None,
            Distribution::Zipf(theta) => Draw::Zipf(rand_distr::Zipf::new(n as f64, *theta).ok()?),
            Distribution::Pareto(h) => Draw::Pareto {
                pow: h.ln() / (1.0 - h).ln(),
                top: (n - 1) as f64,
            },
            Distribution::Normal(sigma) => Draw::Normal {
                sigma: sigma * n as f64,
            },
            Distribution::Hot(_) => Draw::Hot(hot_bands(distribution, n)),
        };
        let hot = HOTTEST.map(|s| (s * n as f64).floor() as u64);
        Some(Skew {
            n,
            draw,
            map: (!contiguous).then(|| BlockMap::new(n, key)),
            hot,
        })
    }

    /// Slots in the class's region.
    pub fn len(&self) -> u64 {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The next slot, and its rank's bucket: 0 among the hottest 1%, 1 the next to 10%, 2 the
    /// next to 20%, 3 the rest.
    #[inline]
    pub fn next(&self, rng: &mut fastrand::Rng) -> (u64, u8) {
        let (rank, position) = self.rank(rng);
        let slot = match &self.map {
            Some(m) => m.forward(rank),
            None => position,
        };
        let bucket = self.hot.iter().take_while(|&&h| rank >= h).count() as u8;
        (slot, bucket)
    }

    /// A rank (0 the hottest) and the position it has in a contiguous layout.
    #[inline]
    fn rank(&self, rng: &mut fastrand::Rng) -> (u64, u64) {
        match &self.draw {
            Draw::Zipf(z) => {
                let r = (z.sample(&mut Fast(rng)) as u64).clamp(1, self.n) - 1;
                (r, r)
            }
            Draw::Pareto { pow, top } => {
                let r = ((top * rng.f64().powf(*pow)) as u64).min(self.n - 1);
                (r, r)
            }
            Draw::Normal { sigma } => loop {
                let g: f64 = rand_distr::StandardNormal.sample(&mut Fast(rng));
                let x = (self.n / 2) as f64 + sigma * g;
                if x >= 0.0 && x < self.n as f64 {
                    let x = x as u64;
                    // Ranks count outwards from the middle, alternating sides.
                    let c = self.n / 2;
                    let r = if x >= c { 2 * (x - c) } else { 2 * (c - x) - 1 };
                    break (r, x);
                }
            },
            Draw::Hot(bands) => {
                let u = rng.u64(..);
                let b = bands
                    .iter()
                    .find(|b| u < b.below)
                    .unwrap_or(&bands[bands.len() - 1]);
                let off = rng.u64(0..b.len);
                (b.rank + off, b.at + off)
            }
        }
    }
}

/// The bands over `n` slots, ranks ordered hottest first (by I/O per slot), positions as written.
fn hot_bands(d: &Distribution, n: u64) -> Vec<HotBand> {
    let bands = d.bands();
    let mut out = Vec::with_capacity(bands.len());
    let (mut io, mut blocks) = (0.0f64, 0.0f64);
    for b in &bands {
        let at = ((blocks * n as f64).floor() as u64).min(n - 1);
        blocks += b.blocks;
        let end = ((blocks * n as f64).floor() as u64).clamp(at + 1, n);
        io += b.io;
        let below = if io >= 1.0 - 1e-12 {
            u64::MAX
        } else {
            (io * 2f64.powi(64)) as u64
        };
        out.push((
            b.io / b.blocks,
            HotBand {
                below,
                rank: 0,
                at,
                len: end - at,
            },
        ));
    }
    let mut order: Vec<usize> = (0..out.len()).collect();
    order.sort_by(|&a, &b| out[b].0.total_cmp(&out[a].0));
    let mut rank = 0;
    for i in order {
        out[i].1.rank = rank;
        rank += out[i].1.len;
    }
    out.into_iter().map(|(_, b)| b).collect()
}

/// A keyed permutation of `0..n`: a six-round Feistel network over the smallest power of two
/// holding `n`, cycle-walking the values that fall outside (fewer than two rounds of walking on
/// average). A bijection: every slot is reachable, and distinct ranks give distinct slots.
#[derive(Clone, Debug)]
pub struct BlockMap {
    n: u64,
    lo_bits: u32,
    lo_mask: u64,
    hi_mask: u64,
    keys: [u64; ROUNDS],
}

const ROUNDS: usize = 6;

impl BlockMap {
    pub fn new(n: u64, key: u64) -> BlockMap {
        let bits = (64 - n.saturating_sub(1).leading_zeros()).max(2);
        let lo_bits = bits / 2;
        let hi_bits = bits - lo_bits;
        let mut k = key;
        let keys = std::array::from_fn(|_| {
            k = mix(k.wrapping_add(0x9E37_79B9_7F4A_7C15));
            k
        });
        BlockMap {
            n,
            lo_bits,
            lo_mask: (1u64 << lo_bits) - 1,
            hi_mask: (1u64 << hi_bits) - 1,
            keys,
        }
    }

    /// The slot of rank `x` (`x < n`).
    #[inline]
    pub fn forward(&self, mut x: u64) -> u64 {
        loop {
            x = self.rounds(x);
            if x < self.n {
                return x;
            }
        }
    }

    /// The rank of slot `y` (`y < n`): `forward`'s inverse.
    pub fn inverse(&self, mut y: u64) -> u64 {
        loop {
            y = self.rounds_back(y);
            if y < self.n {
                return y;
            }
        }
    }

    #[inline]
    fn rounds(&self, x: u64) -> u64 {
        let (mut hi, mut lo) = (x >> self.lo_bits, x & self.lo_mask);
        for (r, k) in self.keys.iter().enumerate() {
            if r % 2 == 0 {
                hi ^= mix(lo ^ k) & self.hi_mask;
            } else {
                lo ^= mix(hi ^ k) & self.lo_mask;
            }
        }
        (hi << self.lo_bits) | lo
    }

    fn rounds_back(&self, y: u64) -> u64 {
        let (mut hi, mut lo) = (y >> self.lo_bits, y & self.lo_mask);
        for (r, k) in self.keys.iter().enumerate().rev() {
            if r % 2 == 0 {
                hi ^= mix(lo ^ k) & self.hi_mask;
            } else {
                lo ^= mix(hi ^ k) & self.lo_mask;
            }
        }
        (hi << self.lo_bits) | lo
    }
}

/// splitmix64's finaliser: a cheap, well-mixed round function.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The permutation key of a class: the same for every worker and point of a run, so the hot set
/// is one set (and stays put across points: a cache warmed by one point stays warm).
pub fn class_key(seed: u64, class: &str) -> u64 {
    class
        .bytes()
        .fold(mix(seed ^ 0x005E_ED0F_5CE7), |h, b| mix(h ^ u64::from(b)))
}

#[cfg(test)]
#[path = "skew_tests.rs"]
mod tests;
