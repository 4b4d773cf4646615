//! The fast decoder of `hdr_add.rs` pinned to hdrhistogram's own: on random histograms written by
//! the crate's V2 serializers (deflated, as rigel writes them, and plain), reading with ours gives
//! the same count at every value as reading with theirs, and adding two encoded histograms gives
//! what decoding their merged histogram gives.

use super::*;
use base64::Engine;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer, V2Serializer};
use proptest::prelude::*;

/// rigel's two layouts: the point's histograms and the per-second ones.
const LAYOUTS: [(u64, u64, u8); 2] = [(1, 3_600_000_000_000, 3), (1, 3_600_000_000_000, 2)];

/// Values spread over every order of magnitude the bounds hold (uniform draws would almost all
/// land in the top decade), each recorded a random number of times.
fn recordings() -> impl Strategy<Value = Vec<(u64, u64)>> {
    prop::collection::vec(
        (0u32..42, any::<u64>(), 1u64..5_000)
            .prop_map(|(bits, r, n)| ((1 + r % (1u64 << bits)).min(3_600_000_000_000), n)),
        0..300,
    )
}

fn histogram(layout: (u64, u64, u8), values: &[(u64, u64)]) -> Histogram<u64> {
    let (low, high, sigfig) = layout;
    let mut h = Histogram::new_with_bounds(low, high, sigfig).expect("bounds");
    for &(v, n) in values {
        h.record_n(v, n).expect("within the bounds");
    }
    h
}

/// The histogram in base64, by the crate's deflating or plain V2 serializer.
fn written(h: &Histogram<u64>, deflate: bool) -> String {
    let mut bytes = Vec::new();
    if deflate {
        V2DeflateSerializer::new()
            .serialize(h, &mut bytes)
            .expect("serializes");
    } else {
        V2Serializer::new()
            .serialize(h, &mut bytes)
            .expect("serializes");
    }
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn theirs(text: &str) -> Histogram<u64> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .expect("base64");
    Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .expect("their decoder reads their encoding")
}

/// Same total, and the same count at every value either holds.
fn same_counts(ours: &Histogram<u64>, theirs: &Histogram<u64>) -> Result<(), TestCaseError> {
    prop_assert_eq!(ours.len(), theirs.len());
    for v in theirs.iter_recorded() {
        let at = v.value_iterated_to();
        prop_assert_eq!(ours.count_at(at), theirs.count_at(at), "at {}", at);
    }
    for v in ours.iter_recorded() {
        let at = v.value_iterated_to();
        prop_assert_eq!(ours.count_at(at), theirs.count_at(at), "at {}", at);
    }
    prop_assert_eq!(ours.max(), theirs.max());
    prop_assert_eq!(ours.min_nz(), theirs.min_nz());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn our_decoder_reads_what_theirs_reads(
        values in recordings(),
        layout in 0usize..2,
        deflate in any::<bool>(),
    ) {
        let h = histogram(LAYOUTS[layout], &values);
        let text = written(&h, deflate);
        let mut adder = HdrAdder::default();
        let mut sum = HdrSum::default();
        prop_assert!(adder.add(&mut sum, &text));
        // rigel's own forms never fall back to the crate's decoder.
        prop_assert!(sum.other.is_none());
        let ours = sum.histogram().expect("a histogram");
        same_counts(&ours, &theirs(&text))?;
        same_counts(&ours, &h)?;
    }

    #[test]
    fn adding_two_encoded_equals_decoding_their_merge(
        a in recordings(),
        b in recordings(),
        layout in 0usize..2,
        deflate in any::<bool>(),
    ) {
        let (ha, hb) = (histogram(LAYOUTS[layout], &a), histogram(LAYOUTS[layout], &b));
        let mut merged = ha.clone();
        merged.add(&hb).expect("same bounds");
        let mut adder = HdrAdder::default();
        let mut sum = HdrSum::default();
        prop_assert!(adder.add(&mut sum, &written(&ha, deflate)));
        prop_assert!(adder.add(&mut sum, &written(&hb, !deflate)));
        let ours = sum.histogram().expect("a histogram");
        same_counts(&ours, &theirs(&written(&merged, deflate)))?;
        // Two sums joined (hosts summed on two threads) are the same sum.
        let (mut left, mut right) = (HdrSum::default(), HdrSum::default());
        prop_assert!(adder.add(&mut left, &written(&ha, deflate)));
        prop_assert!(adder.add(&mut right, &written(&hb, deflate)));
        left.join(&right);
        same_counts(&left.histogram().expect("a histogram"), &merged)?;
    }
}
