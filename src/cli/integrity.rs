//! The terminal's account of a verified run: per verified point, the blocks checked and the
//! corruptions by kind, the first ones in full; and whether the run failed its data's integrity.

use super::style::outln;
use rigel_results::{IntegrityResult, PointResult, ResultsDoc};

/// Corrupted blocks printed in full per point (results.json keeps up to `FIRST_CORRUPTIONS`).
const SHOWN: usize = 10;

/// Some point read back corrupted data.
pub fn failed(doc: &ResultsDoc) -> bool {
    doc.points().iter().any(corrupted)
}

fn corrupted(p: &PointResult) -> bool {
    p.integrity.as_ref().is_some_and(|i| i.corrupted() > 0)
}

/// One line per verified point, and the first corruptions of a point that found any.
pub fn print(doc: &ResultsDoc) {
    for p in doc.points() {
        let Some(i) = &p.integrity else { continue };
        let after = if i.blocks_after > 0 {
            format!(" ({} re-read at the point's end)", i.blocks_after)
        } else {
            String::new()
        };
        if i.corrupted() == 0 {
            outln!(
                "point {}: data verified: {} blocks written, {} checked{after}, none corrupted",
                p.point.id,
                i.blocks_written,
                i.blocks_checked
            );
            continue;
        }
        eprintln!(
            "point {}: DATA INTEGRITY FAILURE: {} of {} blocks checked{after} corrupted: {}",
            p.point.id,
            i.corrupted(),
            i.blocks_checked,
            i.counts.summary()
        );
        first(i, "results.json");
    }
}

/// The first corruptions of `i` in full (their class where the record names one), and how many
/// more `file` holds.
pub fn first(i: &IntegrityResult, file: &str) {
    for c in i.first.iter().take(SHOWN) {
        let class = if c.class.is_empty() {
            String::new()
        } else {
            format!(", class {}", c.class)
        };
        eprintln!(
            "  {}: {} offset {} (volume offset {}){class}: expected generation {}; {}",
            c.kind.name(),
            c.target,
            c.target_offset,
            c.volume_offset,
            c.expected_generation,
            c.detail
        );
    }
    if i.corrupted() as usize > SHOWN {
        eprintln!(
            "  … {} more (the first {} in full in {file})",
            i.corrupted() as usize - SHOWN,
            i.first.len()
        );
    }
}
