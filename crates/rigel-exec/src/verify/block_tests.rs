//! The block format's tests: each kind of corruption classified, and properties over any block.

use super::block::*;
use proptest::prelude::*;
use rigel_results::CorruptionKind;

const UNIT: usize = 4096;

fn stamp(generation: u16, voff: u64) -> Stamp {
    Stamp {
        run: 0xABCD,
        point: 3,
        class: 1,
        target: 0,
        target_offset: voff,
        volume_offset: voff,
        generation,
        time_ns: 1_700_000_000_000_000_000,
    }
}

fn expect(generation: u16, voff: u64) -> Expect {
    Expect {
        run: 0xABCD,
        target: 0,
        target_offset: voff,
        volume_offset: voff,
        generation,
    }
}

fn block(f: &Format, s: &Stamp) -> Vec<u8> {
    let mut b = vec![0u8; f.unit()];
    f.stamp(&mut b, s);
    b
}

#[test]
#[serial_test::parallel]
fn a_block_checks_against_its_own_stamp() {
    let f = Format::new(UNIT, 7, 0xABCD);
    let b = block(&f, &stamp(5, 8192));
    assert_eq!(f.check(&b, &expect(5, 8192)), None);
    assert_eq!(&b[..8], b"RIGELBLK");
}

#[test]
#[serial_test::parallel]
fn an_older_generation_is_a_lost_write() {
    let f = Format::new(UNIT, 7, 0xABCD);
    let b = block(&f, &stamp(4, 8192));
    let found = f.check(&b, &expect(5, 8192)).expect("a finding");
    assert_eq!(found.kind, CorruptionKind::Lost);
    assert_eq!(found.found.map(|h| h.generation), Some(4));
    assert!(
        found
            .detail
            .contains("generation 4 found where generation 5")
    );
}

#[test]
#[serial_test::parallel]
fn another_runs_block_is_the_pre_run_content() {
    let old = Format::new(UNIT, 7, 0x1111);
    let mut s = stamp(9, 8192);
    s.run = 0x1111;
    let b = block(&old, &s);
    let f = Format::new(UNIT, 7, 0xABCD);
    let found = f.check(&b, &expect(1, 8192)).expect("a finding");
    assert_eq!(found.kind, CorruptionKind::Lost);
    assert!(found.detail.contains("before this run"), "{}", found.detail);
}

#[test]
#[serial_test::parallel]
fn a_valid_block_naming_another_offset_is_misdirected() {
    let f = Format::new(UNIT, 7, 0xABCD);
    let b = block(&f, &stamp(2, 65536));
    let found = f.check(&b, &expect(2, 8192)).expect("a finding");
    assert_eq!(found.kind, CorruptionKind::Misdirected);
    assert_eq!(found.found.map(|h| h.volume_offset), Some(65536));
    assert!(
        found.detail.contains("volume offset 65536"),
        "{}",
        found.detail
    );
}

/// A block the run never wrote is not judged on what it held before the run (zeros, anything,
/// another run's block, even this run's block of its own offset), but a whole block of this run
/// naming another offset is a write that landed there.
#[test]
#[serial_test::parallel]
fn a_block_never_written_is_judged_only_for_a_write_of_this_run_landing_on_it() {
    let f = Format::new(UNIT, 7, 0xABCD);
    let here = expect(0, 8192);
    assert!(f.check_unwritten(&vec![0u8; UNIT], &here).is_none());
    assert!(f.check_unwritten(&vec![0x5a; UNIT], &here).is_none());
    let before = Format::new(UNIT, 7, 0x1234);
    let mut theirs = vec![0u8; UNIT];
    before.stamp(
        &mut theirs,
        &Stamp {
            run: 0x1234,
            ..stamp(2, 65536)
        },
    );
    assert!(f.check_unwritten(&theirs, &here).is_none());
    assert!(
        f.check_unwritten(&block(&f, &stamp(1, 8192)), &here)
            .is_none()
    );
    let landed = block(&f, &stamp(2, 65536));
    let found = f.check_unwritten(&landed, &here).expect("a finding");
    assert_eq!(found.kind, CorruptionKind::Misdirected);
    assert_eq!(found.found.map(|h| h.target_offset), Some(65536));
    // Torn, its header is not trusted to be this run's: not judged either.
    let mut torn = landed;
    torn[777] ^= 1;
    assert!(f.check_unwritten(&torn, &here).is_none());
}

#[test]
#[serial_test::parallel]
fn a_flipped_bit_is_torn_with_its_byte() {
    let f = Format::new(UNIT, 7, 0xABCD);
    let mut b = block(&f, &stamp(3, 0));
    b[1000] ^= 0x10;
    let found = f.check(&b, &expect(3, 0)).expect("a finding");
    assert_eq!(found.kind, CorruptionKind::Torn);
    assert!(
        found.detail.contains("1 byte(s) differ") && found.detail.contains("at byte 1000"),
        "{}",
        found.detail
    );
}

#[test]
#[serial_test::parallel]
fn half_new_half_old_is_torn_naming_both_generations() {
    let f = Format::new(UNIT, 7, 0xABCD);
    let old = block(&f, &stamp(4, 0));
    let mut b = block(&f, &stamp(5, 0));
    b[UNIT / 2..].copy_from_slice(&old[UNIT / 2..]);
    let found = f.check(&b, &expect(5, 0)).expect("a finding");
    assert_eq!(found.kind, CorruptionKind::Torn);
    assert!(
        found
            .detail
            .contains("sectors 0-3 of generation 5, sectors 4-7 of generation 4"),
        "{}",
        found.detail
    );
    // The other way round: the header is the old one.
    let mut b = old.clone();
    b[UNIT / 2..].copy_from_slice(&block(&f, &stamp(5, 0))[UNIT / 2..]);
    let found = f.check(&b, &expect(5, 0)).expect("a finding");
    assert_eq!(found.kind, CorruptionKind::Torn);
    assert!(found.detail.contains("header of generation 4 (expected 5)"));
}

#[test]
#[serial_test::parallel]
fn no_header_is_zeros_or_garbage() {
    let f = Format::new(UNIT, 7, 0xABCD);
    let found = f.check(&vec![0u8; UNIT], &expect(1, 0)).expect("zeros");
    assert_eq!(found.kind, CorruptionKind::Zeros);
    let mut junk = vec![0u8; UNIT];
    fastrand::Rng::with_seed(3).fill(&mut junk[..2048]);
    let found = f.check(&junk, &expect(1, 0)).expect("garbage");
    assert_eq!(found.kind, CorruptionKind::Garbage);
    assert!(
        found.detail.contains("4 of 8 sectors zero"),
        "{}",
        found.detail
    );
}

#[test]
#[serial_test::parallel]
fn a_newer_generation_than_acknowledged_is_unexpected() {
    let f = Format::new(UNIT, 7, 0xABCD);
    let b = block(&f, &stamp(6, 0));
    let found = f.check(&b, &expect(5, 0)).expect("a finding");
    assert_eq!(found.kind, CorruptionKind::Unexpected);
}

#[test]
#[serial_test::parallel]
fn generations_wrap_past_zero() {
    assert_eq!(next_generation(MAX_GENERATION), 1);
    assert_eq!(next_generation(1), 2);
    assert!(older(MAX_GENERATION, 1));
    assert!(older(1, 2));
    assert!(!older(2, 1));
    assert!(!older(0, 1), "0 is never written, not old");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Whatever the block, it checks against its own stamp, and a flipped bit anywhere, another
    /// generation or another offset is always found.
    #[test]
    fn any_change_is_found(
        seed in any::<u64>(),
        run in any::<u64>(),
        sectors in 1usize..=16,
        generation in 1u16..=u16::MAX,
        voff in (0u64..1 << 40).prop_map(|v| v * 512),
        bit in any::<usize>(),
        other in 1u16..=u16::MAX,
    ) {
        let unit = sectors * SECTOR;
        let f = Format::new(unit, seed, run);
        let s = Stamp { run, point: 1, class: 0, target: 0, target_offset: voff,
            volume_offset: voff, generation, time_ns: 0 };
        let mut b = vec![0u8; unit];
        f.stamp(&mut b, &s);
        let e = Expect { run, target: 0, target_offset: voff, volume_offset: voff, generation };
        prop_assert_eq!(f.check(&b, &e), None);
        let bit = bit % (unit * 8);
        let mut flipped = b.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        prop_assert!(f.check(&flipped, &e).is_some());
        if other != generation {
            let aged = Expect { generation: other, ..e };
            prop_assert!(f.check(&b, &aged).is_some());
        }
        let moved = Expect { volume_offset: voff + 512, target_offset: voff + 512, ..e };
        prop_assert_eq!(f.check(&b, &moved).map(|x| x.kind), Some(CorruptionKind::Misdirected));
    }
}

/// A trimmed block on a device that may keep its data passes as zeros or as its generation before
/// the trim; anything else (an older generation, garbage, a few bytes of zeros) is found,
/// "trimmed" in its detail. Untrimmed, zeros are a finding.
#[test]
#[serial_test::parallel]
fn a_trimmed_block_reads_back_as_zeros_or_its_generation_before_the_trim() {
    let f = Format::new(UNIT, 7, 0xABCD);
    let zeros = vec![0u8; UNIT];
    let kept = block(&f, &stamp(5, 8192));
    let old = block(&f, &stamp(4, 8192));
    let mut partly = kept.clone();
    partly[..512].fill(0);
    let e = expect(5, 8192);
    let either = Some(AfterTrim::Either);
    assert_eq!(check_entry(&f, &zeros, &e, either), None);
    assert_eq!(check_entry(&f, &kept, &e, either), None);
    for bad in [&old, &partly, &vec![0x5Au8; UNIT]] {
        let found = check_entry(&f, bad, &e, either).expect("a finding");
        assert!(found.detail.starts_with("trimmed"), "{}", found.detail);
    }
    let untrimmed = check_entry(&f, &zeros, &e, None).expect("zeros found");
    assert_eq!(untrimmed.kind, CorruptionKind::Zeros);
    // Never written in this run before the trim: not judged.
    assert_eq!(check_entry(&f, &old, &expect(0, 8192), either), None);
}

/// On a device that promises zeros after a trim (a file, a loop device, DLFEAT), only zeros pass:
/// the block's generation before the trim is a trim lost, and so is any data where a block never
/// written in this run was trimmed.
#[test]
#[serial_test::parallel]
fn a_trimmed_block_where_zeros_are_promised_reads_back_as_zeros_only() {
    let f = Format::new(UNIT, 7, 0xABCD);
    let e = expect(5, 8192);
    let zeros = Some(AfterTrim::Zeros("a file"));
    assert_eq!(check_entry(&f, &vec![0u8; UNIT], &e, zeros), None);
    let kept = check_entry(&f, &block(&f, &stamp(5, 8192)), &e, zeros).expect("a trim lost");
    assert_eq!(kept.kind, CorruptionKind::Lost);
    assert_eq!(
        kept.detail,
        "trimmed on a file, so zeros were expected: it still holds generation 5"
    );
    assert_eq!(kept.found.map(|h| h.generation), Some(5));
    let older = check_entry(&f, &block(&f, &stamp(4, 8192)), &e, zeros).expect("older");
    assert_eq!(older.kind, CorruptionKind::Lost);
    let before = check_entry(&f, &vec![0x5Au8; UNIT], &expect(0, 8192), zeros);
    assert_eq!(before.map(|b| b.kind), Some(CorruptionKind::Garbage));
}
