//! How well the ranks' measured windows of one point coincide: their common part over their union.
//! Kept as four running extremes, so a point's overlap needs no list of windows, and a fleet's
//! resume can find the points whose windows came apart without holding any rank's figures.

use super::index::RankIndex;
use super::{FleetError, rank_dir};
use rigel_plan::RunPlan;
use rigel_results::WallWindow;
use std::collections::BTreeMap;
use std::path::Path;

/// Below this overlap of the ranks' windows (percent) a point is partial.
pub const MIN_OVERLAP_PCT: f64 = 95.0;

/// The extremes of the windows seen so far.
#[derive(Clone, Copy, Debug, Default)]
pub struct Span {
    seen: Option<(u64, u64, u64, u64)>,
}

impl Span {
    pub fn add(&mut self, w: WallWindow) {
        let (first, last, latest, earliest) = self
            .seen
            .unwrap_or((w.start_ns, w.end_ns, w.start_ns, w.end_ns));
        self.seen = Some((
            first.min(w.start_ns),
            last.max(w.end_ns),
            latest.max(w.start_ns),
            earliest.min(w.end_ns),
        ));
    }

    pub fn add_opt(&mut self, w: Option<WallWindow>) {
        if let Some(w) = w {
            self.add(w);
        }
    }

    /// Adds what another span saw.
    pub fn join(&mut self, other: &Span) {
        if let Some((first, last, latest, earliest)) = other.seen {
            self.add(WallWindow {
                start_ns: first,
                end_ns: earliest,
            });
            self.add(WallWindow {
                start_ns: latest,
                end_ns: last,
            });
        }
    }

    /// The union of the windows: first start to last end.
    pub fn union(&self) -> Option<WallWindow> {
        self.seen.map(|(first, last, _, _)| WallWindow {
            start_ns: first,
            end_ns: last,
        })
    }

    /// The common part over the union, percent (100 for one window or none).
    pub fn pct(&self) -> f64 {
        let Some((first, last, latest, earliest)) = self.seen else {
            return 100.0;
        };
        let union = last.saturating_sub(first);
        if union == 0 {
            return 100.0;
        }
        earliest.saturating_sub(latest) as f64 / union as f64 * 100.0
    }
}

/// The points of `plan` that every rank with a result ran, but whose windows overlap less than
/// [`MIN_OVERLAP_PCT`]: a fleet's resume measures them again on every host together.
pub fn apart(fleet: &Path, ranks: u32, plan: &RunPlan) -> Result<Vec<u32>, FleetError> {
    let mut spans: BTreeMap<u32, Span> = BTreeMap::new();
    for rank in 0..ranks {
        let index = RankIndex::read(&rank_dir(fleet, rank))?;
        for entry in index.entries().iter().filter(|e| e.ok) {
            if let Some(w) = entry.window {
                spans.entry(entry.id).or_default().add(w);
            }
        }
    }
    Ok(plan
        .points
        .iter()
        .map(|p| p.id)
        .filter(|id| spans.get(id).is_some_and(|s| s.pct() < MIN_OVERLAP_PCT))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlap_pct(windows: &[WallWindow]) -> f64 {
        let mut span = Span::default();
        windows.iter().for_each(|w| span.add(*w));
        span.pct()
    }

    fn w(start_ns: u64, end_ns: u64) -> WallWindow {
        WallWindow { start_ns, end_ns }
    }

    #[test]
    fn overlap_is_the_common_part_over_the_union() {
        assert_eq!(overlap_pct(&[w(0, 100), w(0, 100)]), 100.0);
        assert_eq!(overlap_pct(&[w(0, 100), w(10, 110)]), 90.0 / 110.0 * 100.0);
        assert_eq!(overlap_pct(&[w(0, 100), w(200, 300)]), 0.0);
        assert_eq!(overlap_pct(&[]), 100.0);
    }

    #[test]
    fn joined_spans_see_what_one_span_of_all_windows_sees() {
        let all = [w(0, 100), w(10, 110), w(5, 90), w(20, 130)];
        let (mut a, mut b) = (Span::default(), Span::default());
        all[..2].iter().for_each(|x| a.add(*x));
        all[2..].iter().for_each(|x| b.add(*x));
        a.join(&b);
        assert_eq!(a.pct(), overlap_pct(&all));
        assert_eq!(a.union(), Some(w(0, 130)));
    }
}
