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

/// The most bytes a histogram's payload (its bucket counts, varint-encoded) may take, inflated:
/// rigel's bounds (1 ns to an hour, 3 digits) hold about 30,000 buckets, at most 9 bytes each.
/// A header claiming more, or a deflate stream inflating past it (a zlib bomb), is refused
/// before anything of that size is allocated.
pub const MAX_PAYLOAD: usize = 4 << 20;
/// The most significant digits a histogram may claim: 5 digits over 64-bit bounds is a 100 MB
/// counts array, 4 keeps any header's allocation near 15 MB.
const MAX_SIGFIG: u32 = 4;

const V2_COOKIE: u32 = 0x1c84_9313;
const V2_COMPRESSED_COOKIE: u32 = 0x1c84_9314;
/// Cookie, payload length, normalizing offset, significant digits, lowest, highest, ratio.
const V2_HEADER: usize = 40;

/// Why encoded histogram bytes are refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HistogramError {
    #[error("not base64")]
    Base64,
    #[error("not an HDR V2 histogram")]
    NotV2,
    #[error("its header claims {claimed} bytes where {held} are held")]
    Truncated { claimed: u64, held: usize },
    #[error("it inflates past {MAX_PAYLOAD} bytes (a compression bomb, or not a histogram)")]
    Inflates,
    #[error("its deflate stream is damaged")]
    Deflate,
    #[error("its header claims bounds {low}..{high} at {sigfig} digits, beyond sane limits")]
    Bounds { low: u64, high: u64, sigfig: u32 },
    #[error("its counts do not decode: {0}")]
    Counts(String),
}

/// The uncompressed V2 bytes of `raw` (inflated when compressed), checked: the header's sizes
/// against the bytes held and [`MAX_PAYLOAD`], its bounds against sane limits, before any buffer
/// of a claimed size is made.
pub fn checked_v2(raw: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>, HistogramError> {
    let be32 = |b: &[u8], at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
    };
    let bytes: std::borrow::Cow<[u8]> = match be32(raw, 0).ok_or(HistogramError::NotV2)? {
        V2_COMPRESSED_COOKIE => {
            let len = be32(raw, 4).ok_or(HistogramError::NotV2)? as usize;
            let deflated = raw.get(8..8 + len).ok_or(HistogramError::Truncated {
                claimed: len as u64,
                held: raw.len().saturating_sub(8),
            })?;
            let mut out = Vec::new();
            let mut reader = std::io::Read::take(
                flate2::read::ZlibDecoder::new(deflated),
                (V2_HEADER + MAX_PAYLOAD) as u64 + 1,
            );
            std::io::Read::read_to_end(&mut reader, &mut out)
                .map_err(|_| HistogramError::Deflate)?;
            if out.len() > V2_HEADER + MAX_PAYLOAD {
                return Err(HistogramError::Inflates);
            }
            out.into()
        }
        V2_COOKIE => raw.into(),
        _ => return Err(HistogramError::NotV2),
    };
    if be32(&bytes, 0) != Some(V2_COOKIE) || bytes.len() < V2_HEADER {
        return Err(HistogramError::NotV2);
    }
    let be64 = |at: usize| u64::from_be_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]));
    let claimed = be32(&bytes, 4).unwrap_or(0) as usize;
    if claimed > MAX_PAYLOAD || V2_HEADER + claimed > bytes.len() {
        return Err(HistogramError::Truncated {
            claimed: claimed as u64,
            held: bytes.len() - V2_HEADER,
        });
    }
    let sigfig = be32(&bytes, 12).unwrap_or(0);
    let (low, high) = (be64(16), be64(24));
    if sigfig > MAX_SIGFIG || low == 0 || high < low.saturating_mul(2) || high > u64::MAX / 4 {
        return Err(HistogramError::Bounds { low, high, sigfig });
    }
    Ok(bytes)
}

/// Reads back a histogram written by the results (for reports and comparisons), refusing one
/// whose header or inflated size is beyond [`checked_v2`]'s limits.
pub fn decode_histogram(text: &str) -> Option<Histogram<u64>> {
    decode_checked(text).ok()
}

/// [`decode_histogram`], saying why a histogram is refused.
pub fn decode_checked(text: &str) -> Result<Histogram<u64>, HistogramError> {
    let raw = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|_| HistogramError::Base64)?;
    deserialize(&raw)
}

/// The crate's decoder over checked bytes.
pub(crate) fn deserialize(raw: &[u8]) -> Result<Histogram<u64>, HistogramError> {
    let bytes = checked_v2(raw)?;
    hdrhistogram::serialization::Deserializer::new()
        .deserialize(&mut &bytes[..])
        .map_err(|e| HistogramError::Counts(format!("{e:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;
    use std::io::Write;

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    /// A V2 header (40 bytes) claiming `payload` bytes, with rigel's bounds, then `held` bytes.
    fn header(payload: u32, held: usize) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend(V2_COOKIE.to_be_bytes());
        v.extend(payload.to_be_bytes());
        v.extend(0u32.to_be_bytes());
        v.extend(3u32.to_be_bytes());
        v.extend(1u64.to_be_bytes());
        v.extend(3_600_000_000_000u64.to_be_bytes());
        v.extend(1f64.to_bits().to_be_bytes());
        v.extend(std::iter::repeat_n(0u8, held));
        v
    }

    #[test]
    fn a_56_byte_histogram_claiming_4_gib_is_refused_before_any_allocation() {
        let raw = header(u32::MAX, 16);
        assert_eq!(raw.len(), 56);
        assert!(matches!(
            decode_checked(&b64(&raw)),
            Err(HistogramError::Truncated { claimed, .. }) if claimed == u64::from(u32::MAX)
        ));
        // Claimed bounds past sane limits (a 100 MB counts array) are refused as well.
        let mut wide = header(0, 0);
        wide[12..16].copy_from_slice(&5u32.to_be_bytes());
        wide[24..32].copy_from_slice(&(u64::MAX / 2).to_be_bytes());
        assert!(matches!(
            decode_checked(&b64(&wide)),
            Err(HistogramError::Bounds { sigfig: 5, .. })
        ));
    }

    #[test]
    fn a_zlib_bomb_is_refused_after_inflating_no_more_than_the_limit() {
        // 64 MiB of zeros behind a valid header deflate to about 64 KB.
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&header(64 << 20, 0)).expect("header");
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..64 {
            z.write_all(&zeros).expect("zeros");
        }
        let deflated = z.finish().expect("deflated");
        let mut raw = Vec::new();
        raw.extend(V2_COMPRESSED_COOKIE.to_be_bytes());
        raw.extend((deflated.len() as u32).to_be_bytes());
        raw.extend(&deflated);
        let text = b64(&raw);
        assert_eq!(decode_checked(&text), Err(HistogramError::Inflates));
        let mut adder = crate::codec::HdrAdder::default();
        let mut sum = crate::codec::HdrSum::default();
        assert!(!adder.add(&mut sum, &text));
        assert_eq!(sum.histogram(), None);
    }

    #[test]
    fn rigels_own_histograms_pass_the_checks() {
        let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000_000, 3).expect("bounds");
        for v in [1u64, 500, 80_000, 3_000_000_000_000] {
            h.record(v).expect("in range");
        }
        assert_eq!(decode_checked(&encode(&h)), Ok(h));
    }
}
