//! fastrand behind rand's traits, for the tests' rand_distr samplers (traces drawn from known
//! statistics).

pub(crate) struct Fast(pub(crate) fastrand::Rng);

impl rand_core::RngCore for Fast {
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
