//! fastrand behind rand's traits, for rand_distr's samplers: the executor's skewed offsets (one
//! generator per worker, borrowed for each draw) and rigel-trace's tests' traces drawn from known
//! statistics. Kept here, the lowest stage both import (they are siblings).

/// A borrowed fastrand generator as a `rand_core::RngCore`.
pub struct Fast<'a>(pub &'a mut fastrand::Rng);

impl rand_core::RngCore for Fast<'_> {
    fn next_u32(&mut self) -> u32 {
        self.0.u32(..)
    }
    fn next_u64(&mut self) -> u64 {
        self.0.u64(..)
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        self.0.fill(dst);
    }
}
