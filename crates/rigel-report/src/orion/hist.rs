//! Latency histograms for ORION's `_hist.txt`: decodes a result's HDR histogram (V2, deflate, base64)
//! and counts its I/Os in ORION's power-of-two microsecond buckets.

use crate::ReportError;
use base64::Engine as _;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::Deserializer;

/// Upper bound of the first bucket (`0 - 32 us`).
const FIRST_BOUND_US: u64 = 32;
/// Upper bound of the last bounded bucket; slower I/Os go to the catch-all bucket above it.
pub const LAST_BOUND_US: u64 = 1 << 24;

/// Decodes a histogram as the results document stores it; an empty string is an empty histogram.
pub fn decode(encoded: &str, what: &str) -> Result<Histogram<u64>, ReportError> {
    let bad = |reason: String| ReportError::Histogram {
        what: what.to_string(),
        reason,
    };
    if encoded.is_empty() {
        return Histogram::new(3).map_err(|e| bad(e.to_string()));
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .map_err(|e| bad(format!("base64: {e}")))?;
    Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(|e| bad(format!("{e:?}")))
}

/// ORION's bucket bounds in µs: `[0, 32), [32, 64), …, [2^23, 2^24)` and the catch-all from 2^24.
pub fn bucket_bounds() -> Vec<(u64, Option<u64>)> {
    let mut bounds = vec![(0, Some(FIRST_BOUND_US))];
    let mut lo = FIRST_BOUND_US;
    while lo < LAST_BOUND_US {
        bounds.push((lo, Some(lo * 2)));
        lo *= 2;
    }
    bounds.push((LAST_BOUND_US, None));
    bounds
}

fn bucket_of(us: u64) -> usize {
    if us < FIRST_BOUND_US {
        0
    } else if us >= LAST_BOUND_US {
        bucket_bounds().len() - 1
    } else {
        // 32..64 is bucket 1: log2(32) = 5.
        (u64::BITS - 1 - us.leading_zeros()) as usize - 4
    }
}

/// I/O counts per ORION bucket (same order as [`bucket_bounds`]); latencies in the histogram are ns.
pub fn bucket_counts(hist: &Histogram<u64>) -> Vec<u64> {
    let mut counts = vec![0; bucket_bounds().len()];
    for v in hist.iter_recorded() {
        // The median of the HDR bucket is the best guess for the I/Os it holds.
        let us = hist.median_equivalent(v.value_iterated_to()) / 1000;
        counts[bucket_of(us)] += v.count_since_last_iteration();
    }
    counts
}

/// Running share of all I/Os, in percent, up to and including each bucket.
pub fn cumulative_percent(counts: &[u64]) -> Vec<f64> {
    let total: u64 = counts.iter().sum();
    let mut running = 0;
    counts
        .iter()
        .map(|c| {
            running += c;
            if total == 0 {
                0.0
            } else {
                running as f64 * 100.0 / total as f64
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::serialization::{Serializer as _, V2DeflateSerializer};

    fn encode(h: &Histogram<u64>) -> String {
        let mut buf = Vec::new();
        V2DeflateSerializer::new().serialize(h, &mut buf).unwrap();
        base64::engine::general_purpose::STANDARD.encode(buf)
    }

    #[test]
    fn buckets_are_powers_of_two_from_32us() {
        let b = bucket_bounds();
        assert_eq!(b[0], (0, Some(32)));
        assert_eq!(b[1], (32, Some(64)));
        assert_eq!(b[b.len() - 2], (1 << 23, Some(1 << 24)));
        assert_eq!(b[b.len() - 1], (1 << 24, None));
        assert_eq!(bucket_of(31), 0);
        assert_eq!(bucket_of(32), 1);
        assert_eq!(bucket_of(127), 2);
        assert_eq!(bucket_of(128), 3);
        assert_eq!(bucket_of(u64::MAX / 2), b.len() - 1);
    }

    #[test]
    fn round_trip_counts_every_io_in_its_bucket() {
        let mut h = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).unwrap();
        h.record_n(20_000, 5).unwrap(); // 20 us
        h.record_n(100_000, 7).unwrap(); // 100 us: 64-128
        h.record_n(40_000_000_000, 1).unwrap(); // 40 s: catch-all
        let back = decode(&encode(&h), "test").unwrap();
        let counts = bucket_counts(&back);
        assert_eq!(counts[0], 5);
        assert_eq!(counts[2], 7);
        assert_eq!(*counts.last().unwrap(), 1);
        assert_eq!(counts.iter().sum::<u64>(), 13);
        let pct = cumulative_percent(&counts);
        assert!((pct[2] - 12.0 * 100.0 / 13.0).abs() < 1e-9);
        assert!((pct.last().unwrap() - 100.0).abs() < 1e-9);
    }

    #[test]
    fn bad_histogram_is_an_error() {
        assert!(matches!(
            decode("not base64!", "x"),
            Err(ReportError::Histogram { .. })
        ));
        assert!(matches!(
            decode("AAAA", "x"),
            Err(ReportError::Histogram { .. })
        ));
        assert_eq!(decode("", "x").unwrap().len(), 0);
    }
}
