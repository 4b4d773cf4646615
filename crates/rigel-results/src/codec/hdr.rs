//! How the results document keeps a histogram (V2 deflate, base64) and reads latency figures
//! from one.

use crate::model::LatencyStats;
use base64::Engine;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};

/// Latency figures of `ios` I/Os: percentiles and stdev from the histogram, the mean from the
/// exact sum, min and max exact.
pub fn latency_of(
    hist: &Histogram<u64>,
    ios: u64,
    sum_ns: f64,
    min_ns: u64,
    max_ns: u64,
) -> LatencyStats {
    if ios == 0 {
        return LatencyStats::default();
    }
    let q = |p: f64| hist.value_at_quantile(p);
    LatencyStats {
        min_ns,
        mean_ns: sum_ns / ios as f64,
        stdev_ns: hist.stdev(),
        p50_ns: q(0.50),
        p90_ns: q(0.90),
        p99_ns: q(0.99),
        p99_9_ns: q(0.999),
        p99_99_ns: q(0.9999),
        max_ns,
    }
    .within_extremes()
}

/// The histogram as V2 deflate-compressed bytes, base64 (standard alphabet, padded).
pub fn encode<T: hdrhistogram::Counter>(hist: &Histogram<T>) -> String {
    let mut bytes = Vec::new();
    // Serializing into a Vec only fails on a histogram the library cannot represent, which ours
    // (fixed bounds, u64 counts) never is; an empty string then says "no histogram".
    match V2DeflateSerializer::new().serialize(hist, &mut bytes) {
        Ok(_) => base64::engine::general_purpose::STANDARD.encode(bytes),
        Err(_) => String::new(),
    }
}

/// Reads back a histogram written by the results (for reports and comparisons).
pub fn decode_histogram(text: &str) -> Option<Histogram<u64>> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .ok()?;
    hdrhistogram::serialization::Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .ok()
}
