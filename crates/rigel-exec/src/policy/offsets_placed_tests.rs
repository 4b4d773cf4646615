//! Placement: a class's own volume over some targets, and its region.

use super::*;
use rigel_expr::parse_region;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;

/// Every slot of the space, located.
fn all(s: &SlotSpace) -> Vec<(usize, u64)> {
    (0..s.len()).map(|j| s.locate(j)).collect()
}

#[test]
#[serial_test::parallel]
fn a_class_on_some_targets_touches_only_them() {
    let v = Volume::new(Layout::Concat, MIB, &[8 * MIB, 4 * MIB, 6 * MIB]);
    let s = SlotSpace::placed(&v, 64 * KIB, &[2, 0], None).expect("slots");
    assert_eq!(s.len(), (6 + 8) * 16);
    let slots = all(&s);
    assert!(slots.iter().all(|&(t, _)| t == 0 || t == 2), "{slots:?}");
    // The class's volume is target 2 then target 0, in the order named.
    assert_eq!(slots[0], (2, 0));
    assert_eq!(slots[6 * 16], (0, 0));
    let v = Volume::new(Layout::Raid0, 256 * KIB, &[8 * MIB, 8 * MIB, 8 * MIB]);
    let s = SlotSpace::placed(&v, 4 * KIB, &[1, 2], None).expect("slots");
    assert_eq!(s.len(), 2 * 8 * 256);
    assert!(all(&s).iter().all(|&(t, _)| t == 1 || t == 2));
}

#[test]
#[serial_test::parallel]
fn a_region_holds_exactly_the_slots_inside_it() {
    // Concat over unequal targets whose tails hold no whole I/O.
    let sizes = [10 * MIB + 3 * KIB, 7 * MIB];
    let v = Volume::new(Layout::Concat, MIB, &sizes);
    for text in ["0%..10%", "5MiB..12MiB", "33%..66.5%", "10MiB..100%"] {
        let region = parse_region(text).expect("a region");
        let (a, b) = region.bytes(v.size());
        let s = SlotSpace::placed(&v, 8 * KIB, &[], Some(region)).expect("slots");
        let slots = all(&s);
        // Back to volume bytes: target 1 starts after target 0's whole size.
        let volume_at = |(t, off): (usize, u64)| if t == 0 { off } else { sizes[0] + off };
        for &at in &slots {
            let start = volume_at(at);
            assert!(
                start >= a && start + 8 * KIB <= b,
                "{text}: {at:?} outside {a}..{b}"
            );
        }
        // And every whole slot inside it is there: none missed at either end.
        let whole = SlotSpace::new(&v, 8 * KIB).expect("slots");
        let inside = all(&whole)
            .into_iter()
            .filter(|&at| volume_at(at) >= a && volume_at(at) + 8 * KIB <= b)
            .count() as u64;
        assert_eq!(s.len(), inside, "{text}");
    }
    // Striped: the region is in the volume's own (virtual) bytes.
    let v = Volume::new(Layout::Raid0, 64 * KIB, &[4 * MIB, 4 * MIB]);
    let region = parse_region("1MiB..2MiB").expect("a region");
    let s = SlotSpace::placed(&v, 4 * KIB, &[], Some(region)).expect("slots");
    assert_eq!(s.len(), 256);
    assert_eq!(s.locate(0), v.map(MIB));
    assert_eq!(s.locate(255), v.map(2 * MIB - 4 * KIB));
}

#[test]
#[serial_test::parallel]
fn streams_and_random_picks_stay_in_the_region() {
    let v = Volume::new(Layout::Concat, MIB, &[16 * MIB]);
    let region = parse_region("25%..50%").expect("a region");
    let s = SlotSpace::placed(&v, 128 * KIB, &[], Some(region)).expect("slots");
    assert_eq!(s.len(), 32);
    let mut rng = fastrand::Rng::with_seed(5);
    for _ in 0..10_000 {
        let (_, off) = s.random(&mut rng);
        assert!((4 * MIB..8 * MIB).contains(&off), "{off}");
    }
    let mut st = Stream::new(s.stream_start(1, 2));
    let walk: Vec<u64> = (0..40).map(|_| st.advance(&s).1).collect();
    assert_eq!(walk[0], 6 * MIB);
    assert!(
        walk.iter().all(|o| (4 * MIB..8 * MIB).contains(o)),
        "{walk:?}"
    );
    assert_eq!(walk[16], 4 * MIB, "wraps to the region's start");
}

#[test]
#[serial_test::parallel]
fn a_region_too_small_for_one_io_has_no_slots() {
    let v = Volume::new(Layout::Concat, MIB, &[MIB]);
    let region = parse_region("0..4KiB").expect("a region");
    assert!(SlotSpace::placed(&v, 8 * KIB, &[], Some(region)).is_none());
    assert!(SlotSpace::placed(&v, 4 * KIB, &[3], None).is_none());
}
