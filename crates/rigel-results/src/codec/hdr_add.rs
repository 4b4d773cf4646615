//! Adding encoded HDR histograms (V2, deflate-compressed or not, base64: what rigel writes) into
//! a running sum of bucket counts. The hdrhistogram crate only decodes into a new histogram: for
//! rigel's bounds that is 256 KB allocated and zeroed, a fresh inflater, then a pass over every
//! bucket to add it, per host and direction. Here the buffers and the inflater are kept, each
//! recorded bucket's count is added to the sum's array, and the histogram is built once, at the
//! end. Histograms of other bounds or forms take the crate's own path.
//! `hdr_add_tests.rs` pins this decoder to the crate's on random histograms.

use base64::Engine;
use flate2::{Decompress, FlushDecompress, Status};
use hdrhistogram::Histogram;

/// The V2 cookies, with the word size bits (0x10) the crate writes.
const V2_COOKIE: u32 = 0x1c84_9313;
const V2_COMPRESSED_COOKIE: u32 = 0x1c84_9314;
/// The V2 header after the cookie: payload length, normalizing offset, significant digits (u32
/// each), lowest and highest trackable values (u64 each), integer-to-double ratio (f64).
const HEADER: usize = 36;

/// Histograms added together: the counts per bucket of the first one's layout, and any of
/// another layout added the crate's way.
#[derive(Clone, Debug, Default)]
pub struct HdrSum {
    counts: Vec<u64>,
    bounds: (u64, u64, u8),
    other: Option<Histogram<u64>>,
}

impl HdrSum {
    /// Adds another sum.
    pub fn join(&mut self, o: &HdrSum) {
        if self.counts.is_empty() {
            self.counts = o.counts.clone();
            self.bounds = o.bounds;
        } else if !o.counts.is_empty() && o.bounds == self.bounds {
            for (mine, theirs) in self.counts.iter_mut().zip(&o.counts) {
                *mine += theirs;
            }
        } else if let Some(h) = o.dense() {
            add_other(&mut self.other, &h);
        }
        if let Some(h) = &o.other {
            add_other(&mut self.other, h);
        }
    }

    /// The sum as a histogram (none when nothing was added).
    pub fn histogram(&self) -> Option<Histogram<u64>> {
        let mut sum = self.dense();
        if let Some(h) = &self.other {
            add_other(&mut sum, h);
        }
        sum
    }

    fn dense(&self) -> Option<Histogram<u64>> {
        if self.counts.is_empty() {
            return None;
        }
        let (low, high, sigfig) = self.bounds;
        let mut h = Histogram::new_with_bounds(low, high, sigfig).ok()?;
        let mut value = 0u64;
        for &n in &self.counts {
            if n > 0 {
                // A bucket's own lowest value, within the bounds: recording cannot fail.
                h.saturating_record_n(value, n);
            }
            value = h.next_non_equivalent(value);
        }
        Some(h)
    }
}

/// The crate's addition; a histogram that does not fit is left out rather than clamped into a
/// wrong percentile (every rigel histogram has the same bounds).
fn add_other(sum: &mut Option<Histogram<u64>>, h: &Histogram<u64>) -> bool {
    match sum {
        Some(s) => s.add(h).is_ok(),
        None => {
            *sum = Some(h.clone());
            true
        }
    }
}

/// Reusable buffers for [`HdrAdder::add`]; one per thread.
pub struct HdrAdder {
    raw: Vec<u8>,
    inflated: Vec<u8>,
    inflater: Decompress,
    /// The buckets read from one histogram: (index, count).
    pairs: Vec<(usize, u64)>,
    /// The bucket count of a layout, by its bounds.
    buckets: Option<((u64, u64, u8), usize)>,
}

impl Default for HdrAdder {
    fn default() -> Self {
        HdrAdder {
            raw: Vec::new(),
            inflated: Vec::new(),
            inflater: Decompress::new(true),
            pairs: Vec::new(),
            buckets: None,
        }
    }
}

impl HdrAdder {
    /// Adds the histogram encoded in `text` to `sum`. False when `text` is no histogram, or one
    /// that does not fit the sum's bounds (it is then left out).
    pub fn add(&mut self, sum: &mut HdrSum, text: &str) -> bool {
        self.raw.clear();
        if base64::engine::general_purpose::STANDARD
            .decode_vec(text, &mut self.raw)
            .is_err()
        {
            return false;
        }
        if self.fast(sum).is_some() {
            return true;
        }
        match super::hdr::deserialize(&self.raw) {
            Ok(h) => add_other(&mut sum.other, &h),
            Err(_) => false,
        }
    }

    /// `None`: not a form this path reads, or bounds other than the sum's (the crate's decoder
    /// then tries); nothing was added.
    fn fast(&mut self, sum: &mut HdrSum) -> Option<()> {
        let payload: &[u8] = match be_u32(&self.raw, 0)? {
            V2_COMPRESSED_COOKIE => {
                let len = be_u32(&self.raw, 4)? as usize;
                let deflated = self.raw.get(8..8 + len)?;
                // Inflated into a buffer kept at its length, so it is zeroed once, not per call.
                if self.inflated.len() < 16 * 1024 {
                    self.inflated.resize(16 * 1024, 0);
                }
                self.inflater.reset(true);
                let size = loop {
                    let (read, written) = (
                        self.inflater.total_in() as usize,
                        self.inflater.total_out() as usize,
                    );
                    let status = self
                        .inflater
                        .decompress(
                            &deflated[read..],
                            &mut self.inflated[written..],
                            FlushDecompress::Finish,
                        )
                        .ok()?;
                    let out = self.inflater.total_out() as usize;
                    match status {
                        Status::StreamEnd => break out,
                        // Past what a histogram can hold: a bomb, refused by the checked path.
                        _ if out >= super::hdr::MAX_PAYLOAD + HEADER + 4 => return None,
                        _ if out == self.inflated.len() => {
                            self.inflated.resize(out * 2, 0);
                        }
                        // No progress with room left: a truncated stream.
                        _ => return None,
                    }
                };
                if be_u32(&self.inflated, 0)? != V2_COOKIE {
                    return None;
                }
                &self.inflated[4..size]
            }
            V2_COOKIE => &self.raw[4..],
            _ => return None,
        };
        let len = be_u32(payload, 0)? as usize;
        if len > super::hdr::MAX_PAYLOAD {
            return None;
        }
        let offset = be_u32(payload, 4)?;
        let sigfig = u8::try_from(be_u32(payload, 8)?).ok()?;
        let low = be_u64(payload, 12)?;
        let high = be_u64(payload, 20)?;
        let ratio = f64::from_bits(be_u64(payload, 28)?);
        if offset != 0 || ratio != 1.0 {
            return None;
        }
        let counts = payload.get(HEADER..HEADER + len)?;
        let bounds = (low, high, sigfig);
        if !sum.counts.is_empty() && sum.bounds != bounds {
            return None;
        }
        let buckets = match self.buckets {
            Some((b, n)) if b == bounds => n,
            _ => {
                let n = Histogram::<u64>::new_with_bounds(low, high, sigfig)
                    .ok()?
                    .distinct_values();
                self.buckets = Some((bounds, n));
                n
            }
        };
        // Read every bucket before adding any, so a corrupt histogram adds nothing.
        self.pairs.clear();
        let mut index = 0usize;
        let mut rest = counts;
        while !rest.is_empty() {
            let (encoded, used) = varint(rest)?;
            rest = &rest[used..];
            // Zig-zag: a negative number is a run of empty buckets.
            let n = ((encoded >> 1) as i64) ^ -((encoded & 1) as i64);
            if n < 0 {
                index = index.checked_add(n.unsigned_abs() as usize)?;
                continue;
            }
            if n > 0 {
                if index >= buckets {
                    return None;
                }
                self.pairs.push((index, n as u64));
            }
            index += 1;
        }
        if sum.counts.is_empty() {
            sum.counts = vec![0; buckets];
            sum.bounds = bounds;
        }
        for &(i, n) in &self.pairs {
            sum.counts[i] += n;
        }
        Some(())
    }
}

/// A LEB128 number of at most 9 bytes (the 9th holds 8 bits), as HdrHistogram writes them.
#[inline(always)]
fn varint(bytes: &[u8]) -> Option<(u64, usize)> {
    // Most buckets hold a small count or a short run of empty ones: one byte.
    match bytes.first() {
        Some(&b) if b & 0x80 == 0 => return Some((u64::from(b), 1)),
        None => return None,
        _ => {}
    }
    let mut value = 0u64;
    for (i, b) in bytes.iter().take(9).enumerate() {
        if i == 8 {
            return Some((value | (u64::from(*b) << 56), 9));
        }
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

fn be_u32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn be_u64(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{decode_histogram, encode};

    fn recorded(seed: u64, n: u64) -> Histogram<u64> {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut h = Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("bounds");
        for _ in 0..n {
            // Spread over many buckets, with long empty runs and some counts above 1.
            h.record(rng.u64(1..2_000) * rng.u64(1..50_000))
                .expect("in range");
        }
        h
    }

    #[test]
    fn adding_encoded_histograms_equals_the_crates_decode_and_add() {
        let (a, b, c) = (recorded(1, 20_000), recorded(2, 5_000), recorded(3, 700));
        let mut truth = a.clone();
        truth.add(&b).expect("same bounds");
        let mut adder = HdrAdder::default();
        let mut sum = HdrSum::default();
        for h in [&a, &b] {
            adder.raw = base64::engine::general_purpose::STANDARD
                .decode(encode(h))
                .expect("base64");
            assert_eq!(
                adder.fast(&mut sum),
                Some(()),
                "rigel's form takes the fast path"
            );
        }
        let got = sum.histogram().expect("a sum");
        assert_eq!(got, truth);
        assert_eq!(got.len(), 25_000);
        assert_eq!(got.max(), truth.max());
        assert_eq!(got.value_at_quantile(0.99), truth.value_at_quantile(0.99));
        assert_eq!(decode_histogram(&encode(&got)), Some(truth.clone()));
        // Sums joined: the sum of all.
        let mut more = HdrSum::default();
        assert!(adder.add(&mut more, &encode(&c)));
        more.join(&sum);
        truth.add(&c).expect("same bounds");
        assert_eq!(more.histogram(), Some(truth));
    }

    #[test]
    fn uncompressed_and_foreign_histograms_take_the_slow_path_or_are_refused() {
        use hdrhistogram::serialization::{Serializer, V2Serializer};
        let a = recorded(3, 1_000);
        let mut plain = Vec::new();
        V2Serializer::new()
            .serialize(&a, &mut plain)
            .expect("serializes");
        let text = base64::engine::general_purpose::STANDARD.encode(plain);
        let mut adder = HdrAdder::default();
        let mut sum = HdrSum::default();
        assert!(adder.add(&mut sum, &text));
        assert_eq!(sum.histogram().as_ref(), Some(&a));
        // Other bounds: the crate's addition fits them in where it can.
        let mut small = Histogram::<u64>::new_with_bounds(1, 1_000_000, 2).expect("bounds");
        small.record(5_000).expect("in range");
        assert!(adder.add(&mut sum, &encode(&small)));
        assert!(!adder.add(&mut sum, "not base64!"));
        assert!(!adder.add(&mut sum, "AAAA"));
        assert_eq!(sum.histogram().map(|s| s.len()), Some(1_001));
    }
}

#[cfg(test)]
#[path = "hdr_add_tests.rs"]
mod proptests;
