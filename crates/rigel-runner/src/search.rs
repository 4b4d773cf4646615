//! `[search]` in the run loop: the next trial point comes from the trials already recorded, so an
//! interrupted search resumes where it stopped (a trial cut short runs again under its id).

use rigel_plan::{DataPoint, SearchPlan, Tried};
use rigel_results::{PointResult, ResultsDoc};

/// The next trial to run after `done`, or None when the search is over.
pub(super) fn next_point(plan: &SearchPlan, done: &[PointResult]) -> Option<DataPoint> {
    let tried: Vec<Tried> = rigel_judge::expect::trials(plan, done)
        .into_iter()
        .map(|(_, t, _)| t)
        .collect();
    let value = plan.next(&tried)?;
    // Ids follow the trials that finished: a failed trial's id is taken again by its rerun.
    Some(plan.point(tried.len() as u32 + 1, value))
}

/// Whether the search ran to its end.
pub(super) fn finished(plan: &SearchPlan, done: &[PointResult]) -> bool {
    next_point(plan, done).is_none()
}

/// Records the search's trials and answer in the results.
pub(super) fn record(doc: &mut ResultsDoc) {
    let record = doc
        .plan()
        .search
        .as_ref()
        .map(|plan| rigel_judge::expect::search_record(plan, doc.points()));
    if record.is_some() {
        doc.set_search(record);
    }
}
