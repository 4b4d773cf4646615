//! The point's `integrity` record from what its workers and the re-read found: counts merged
//! exactly, the first corruptions named (target path, class), and the point failed when any block
//! was corrupted; and `rigel verify`'s account.

use super::after::AFTER;
use super::check::Checked;
use super::journal::JournalHeader;
use super::worker::Tally;
use crate::ExecTarget;
use rigel_plan::DataPoint;
use rigel_results::{
    Corruption, FIRST_CORRUPTIONS, IntegrityResult, IoFailure, JournalCheck, PointStatus,
};

/// Merges the workers' tallies and the re-read's (`after`) into the point's record.
pub fn integrity(
    unit: u64,
    run: u64,
    workers: Vec<Tally>,
    after: Option<Tally>,
    targets: &[ExecTarget],
    point: &DataPoint,
) -> IntegrityResult {
    let mut r = IntegrityResult {
        unit,
        run,
        ..IntegrityResult::default()
    };
    let after_checked = after.as_ref().map_or(0, |t| t.checked);
    for t in workers.into_iter().chain(after) {
        r.blocks_written += t.written;
        r.blocks_checked += t.checked;
        r.blocks_unchecked += t.unchecked;
        r.counts.merge(&t.counts);
        let room = FIRST_CORRUPTIONS.saturating_sub(r.first.len());
        r.first.extend(t.first.into_iter().take(room).map(|f| {
            Corruption {
                target: targets
                    .get(f.target as usize)
                    .map_or_else(|| f.target.to_string(), |t| t.path.to_string()),
                target_offset: f.target_offset,
                volume_offset: f.volume_offset,
                point: point.id,
                class: match f.class {
                    AFTER => "(re-read at the point's end)".to_string(),
                    c => point
                        .classes
                        .get(c)
                        .map_or_else(String::new, |c| c.class.clone()),
                },
                kind: f.finding.kind,
                expected_generation: f.expected,
                found: f.finding.found,
                detail: f.finding.detail,
            }
        }));
    }
    r.blocks_after = after_checked;
    r
}

/// The point's status once its data was checked: a point that completed but read back corrupted
/// data fails, naming the first corrupted block and the counts.
pub fn status(status: PointStatus, r: &IntegrityResult) -> PointStatus {
    let Some(first) = r.first.first() else {
        return status;
    };
    match status {
        PointStatus::Ok => PointStatus::Failed {
            error: IoFailure {
                target: first.target.clone(),
                offset: first.target_offset,
                errno: 0,
                message: format!(
                    "data integrity: {} of {} blocks checked corrupted ({}); the first, at {} offset {}: {}",
                    r.corrupted(),
                    r.blocks_checked,
                    r.counts.summary(),
                    first.target,
                    first.target_offset,
                    first.detail
                ),
            },
        },
        failed => failed,
    }
}

/// `rigel verify`'s account from what `check` found over `targets`, for the journal `header`.
pub fn journal_check(c: Checked, header: &JournalHeader, targets: &[ExecTarget]) -> JournalCheck {
    let named = |t: Tally| {
        let mut r = IntegrityResult {
            unit: header.unit,
            run: header.run,
            blocks_checked: t.checked,
            counts: t.counts,
            ..IntegrityResult::default()
        };
        r.first = t
            .first
            .into_iter()
            .map(|f| Corruption {
                target: targets
                    .get(f.target as usize)
                    .map_or_else(|| f.target.to_string(), |t| t.path.to_string()),
                target_offset: f.target_offset,
                volume_offset: f.volume_offset,
                point: 0,
                class: "(rigel verify)".to_string(),
                kind: f.finding.kind,
                expected_generation: f.expected,
                found: f.finding.found,
                detail: f.finding.detail,
            })
            .collect();
        r
    };
    JournalCheck {
        run: header.run,
        unit: header.unit,
        durable: header.durable,
        blocks_journaled: c.journaled,
        acknowledged: c.acknowledged,
        in_flight_new: c.in_flight_new,
        in_flight_old: c.in_flight_old,
        newer: c.newer,
        blocks_promised: c.promised,
        journal_synced_ns: header.synced_ns,
        broken: named(c.broken),
        unpromised: named(c.unpromised),
    }
}
