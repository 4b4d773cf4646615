//! The executor's clock: CLOCK_MONOTONIC in nanoseconds, read straight through the vDSO. Cheaper
//! than `Instant` arithmetic on the hot path, where it is read once per completion batch.

/// Nanoseconds on CLOCK_MONOTONIC (the clock `Instant` uses on Linux).
#[inline]
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a pointer to a live timespec; CLOCK_MONOTONIC cannot fail.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(test)]
mod tests {
    #[test]
    fn advances_with_real_time() {
        let a = super::monotonic_ns();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let b = super::monotonic_ns();
        assert!(b - a >= 20_000_000, "{}", b - a);
    }
}
