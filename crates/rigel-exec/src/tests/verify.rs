//! `verify` through the real executor on O_DIRECT tmpfs files: a clean verified point finds
//! nothing (and its latencies still obey Little's law with the checking off the clock), and blocks
//! changed behind rigel's back are found by the next point's reads, classified, at their offsets.

use super::*;
use rigel_plan::VerifyPlan;
use rigel_results::CorruptionKind;
use std::os::unix::fs::FileExt;
use std::sync::atomic::Ordering;

fn verified(duration_ms: u64, class: &str, after: bool) -> RunSettings {
    RunSettings {
        verify: Some(VerifyPlan {
            unit: 4096,
            classes: vec![class.into()],
            after,
            map_bytes: None,
            journal: false,
            durable: false,
        }),
        ..settings(duration_ms, 0, 2)
    }
}

#[test]
#[serial_test::parallel]
fn a_clean_verified_point_finds_nothing_and_keeps_littles_law() {
    let t = TempTarget::new("/dev/shm", "verify-clean", 16 * MIB);
    let settings = verified(600, "v", true);
    let classes = vec![class("v", 8 * KIB, Access::Random, 50, 8, 1)];
    let (r, _) = run(&[(&t.file, t.path())], Layout::Concat, classes, &settings);
    assert_eq!(r.status, PointStatus::Ok);
    let i = r.integrity.expect("a verified point's record");
    assert_eq!(i.corrupted(), 0, "{:?}", i.first);
    assert!(i.blocks_written > 1000 && i.blocks_checked > 1000, "{i:?}");
    assert!(i.blocks_after > 0 && i.blocks_after <= i.blocks_checked);
    let c = &r.classes[0];
    let held = c.depth_held.expect("depth held");
    let little = c.total.iops * c.total.latency.mean_ns / 1e9;
    assert!(
        (little / held - 1.0).abs() <= 0.03,
        "IOPS × mean latency {little} against a depth held of {held}"
    );
}

#[test]
#[serial_test::parallel]
fn blocks_changed_behind_rigels_back_are_found_at_their_offsets() {
    let t = TempTarget::new("/dev/shm", "verify-changed", 4 * MIB);
    let ctl = PointControl::new(1);
    let files = [(&t.file, t.path())];
    // Point 1 writes (and stamps) blocks; nothing is read.
    let write = vec![class("w", 4 * KIB, Access::Random, 0, 4, 1)];
    let (r, _) = run_with(
        &files,
        Layout::Concat,
        write,
        &verified(300, "w", false),
        &ctl,
    );
    assert_eq!(r.status, PointStatus::Ok);
    let written: Vec<u64> = {
        let map = ctl
            .reuse
            .gen_map
            .lock()
            .expect("map")
            .clone()
            .expect("a map");
        (0..map.blocks())
            .filter(|&b| map.at(b).load(Ordering::Acquire) != 0)
            .map(|b| b as u64 * 4096)
            .collect()
    };
    assert!(written.len() >= 4, "{} blocks written", written.len());
    let (flip, zero, onto, from) = (written[0], written[1], written[2], written[3]);
    let plain = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&t.path)
        .expect("open");
    let mut byte = [0u8; 1];
    plain.read_exact_at(&mut byte, flip + 1000).expect("read");
    plain
        .write_all_at(&[byte[0] ^ 0x04], flip + 1000)
        .expect("flip");
    plain.write_all_at(&[0u8; 4096], zero).expect("zero");
    let mut block = vec![0u8; 4096];
    plain.read_exact_at(&mut block, from).expect("read");
    plain.write_all_at(&block, onto).expect("misdirect");
    plain.sync_all().expect("sync");
    // Point 2 only re-reads at its end (a read class that verifies, with `after`).
    let read = vec![class("r", 4 * KIB, Access::Random, 100, 1, 1)];
    let (r, _) = run_with(
        &files,
        Layout::Concat,
        read,
        &verified(100, "r", true),
        &ctl,
    );
    let i = r.integrity.expect("a verified point's record");
    // The re-read finds each once; the class's own reads may have found them before.
    assert!(i.blocks_after > 0 && i.corrupted() >= 3, "{i:#?}");
    assert_eq!(i.corrupted(), i.first.len() as u64, "all in full");
    for c in &i.first {
        assert!([flip, zero, onto].contains(&c.target_offset), "{c:#?}");
    }
    let at = |off: u64| {
        i.first
            .iter()
            .find(|c| c.target_offset == off)
            .unwrap_or_else(|| panic!("nothing reported at {off}: {:#?}", i.first))
    };
    assert_eq!(at(flip).kind, CorruptionKind::Torn);
    assert!(
        at(flip).detail.contains("at byte 1000"),
        "{}",
        at(flip).detail
    );
    assert_eq!(at(zero).kind, CorruptionKind::Zeros);
    assert_eq!(at(onto).kind, CorruptionKind::Misdirected);
    assert!(at(onto).detail.contains(&format!("volume offset {from}")));
    assert_eq!(at(onto).volume_offset, onto);
    match &r.status {
        PointStatus::Failed { error } => {
            assert!(
                error.message.starts_with("data integrity: "),
                "{}",
                error.message
            )
        }
        other => panic!("a corrupted point passed: {other:?}"),
    }
}

#[test]
#[serial_test::parallel]
fn a_class_writing_without_verify_is_stamped_for_the_class_that_checks() {
    let t = TempTarget::new("/dev/shm", "verify-mixed", 2 * MIB);
    let settings = verified(500, "r", true);
    let classes = vec![
        class("w", 4 * KIB, Access::Random, 0, 4, 1),
        class("r", 4 * KIB, Access::Random, 100, 4, 1),
    ];
    let (r, _) = run(&[(&t.file, t.path())], Layout::Concat, classes, &settings);
    assert_eq!(r.status, PointStatus::Ok);
    let i = r.integrity.expect("a verified point's record");
    assert_eq!(i.corrupted(), 0, "{:?}", i.first);
    assert!(i.blocks_checked > 100 && i.blocks_written > 100, "{i:?}");
}
