//! A search's trials judged against its target (the `[expect]` judge, one point at a time), and
//! the record results keep: every trial with pass or fail and its figure, and the answer.

use super::{Verdict, judge_point};
use rigel_plan::{Contradiction, Knob, SearchPlan, Tried, bracket};
use rigel_results::{PointResult, PointStatus, SearchRecord, SearchTrial};

/// The trials among `points` (those that finished without an I/O error), in id order, each with
/// the searched value and its verdict.
pub fn trials<'p>(
    plan: &SearchPlan,
    points: &'p [PointResult],
) -> Vec<(&'p PointResult, Tried, Verdict)> {
    let mut out: Vec<_> = points
        .iter()
        .filter(|p| matches!(p.status, PointStatus::Ok))
        .filter_map(|p| {
            let c = p.point.classes.iter().find(|c| c.class == plan.class)?;
            let value = match plan.knob {
                Knob::Rate => c.rate_iops()?,
                Knob::Load => f64::from(c.load),
            };
            let v = judge_point(&plan.target, p);
            // A miss while rigel fell behind its own schedule is the tool's, not the storage's.
            let spoiled = !v.passed && p.class(&plan.class).is_some_and(rigel_results::stats::late);
            Some((
                p,
                Tried {
                    value,
                    passed: v.passed,
                    figure: v.measured,
                    spoiled,
                },
                v,
            ))
        })
        .collect();
    out.sort_by_key(|(p, _, _)| p.point.id);
    out
}

/// The search's record for the results.
pub fn search_record(plan: &SearchPlan, points: &[PointResult]) -> SearchRecord {
    let judged = trials(plan, points);
    let tried: Vec<Tried> = judged.iter().map(|(_, t, _)| *t).collect();
    let target = format!("{} {}", plan.target.key, plan.target.comparison);
    let value_text = |v: f64| match plan.knob {
        Knob::Rate => rigel_expr::units::iops(v),
        Knob::Load => format!("load {v:.0}"),
    };
    let measured = |t: &Tried| {
        judged
            .iter()
            .rev()
            .find(|(_, j, _)| j == t)
            .map_or_else(|| "-".to_owned(), |(_, _, v)| v.measured_text.clone())
    };
    let contradiction = plan.contradiction(&tried).map(|c| match c {
        Contradiction::PassAboveFail { pass, fail } => format!(
            "it held at {} ({}) but failed at the lower {} ({}), and again when both ran \
             once more: the figure does not worsen with the load here, so no load is the limit",
            value_text(pass.value),
            measured(&pass),
            value_text(fail.value),
            measured(&fail)
        ),
        Contradiction::Split {
            value,
            passed,
            runs,
        } => format!(
            "it held in {passed} and failed in {} of {runs} trials at {}: the figure there is \
             the storage's noise, so no value is the limit",
            runs - passed,
            value_text(value)
        ),
        Contradiction::Flat { low, high } => format!(
            "the figure did not follow the load: {} at {}, {} at {} ({:.1}x the load); pass and \
             fail here are its noise, not the load's doing: give a target outside the figure's \
             spread, or a range that reaches where it grows",
            measured(&low),
            value_text(low.value),
            measured(&high),
            value_text(high.value),
            high.value / low.value
        ),
    });
    let (answer, failed_at) = match contradiction {
        Some(_) => (None, bracket(&tried).1),
        None => bracket(&tried),
    };
    let confirmed = answer.is_some_and(|a| tried.iter().filter(|t| t.value == a).count() >= 2);
    let summary = match (answer, &contradiction) {
        (_, Some(why)) => format!("no answer for {target}: {why}"),
        (Some(a), None) if failed_at.is_none() => {
            format!(
                "max ≥ {} with {target} (it held at the high bound)",
                value_text(a)
            )
        }
        (Some(a), None) => format!("max {} with {target}", value_text(a)),
        (None, None) if tried.is_empty() => format!("no trial ran for {target}"),
        (None, None) => format!(
            "no answer: {target} fails already at {}",
            value_text(plan.low)
        ),
    };
    let finished = plan.next(&tried).is_none();
    let summary = match answer {
        Some(_) if finished && !confirmed => {
            format!("{summary} (not confirmed: the trial cap came first)")
        }
        _ => summary,
    };
    let spoiled = tried.iter().filter(|t| t.spoiled).count();
    let summary = if spoiled > 0 {
        format!(
            "{summary}; {spoiled} trial(s) spoiled by rigel's own lag (it fell behind its \
             schedule) were run again and not counted"
        )
    } else {
        summary
    };
    let summary = if finished {
        summary
    } else {
        format!(
            "unfinished after {} trial(s), so far: {summary}",
            tried.len()
        )
    };
    SearchRecord {
        target,
        class: plan.class.clone(),
        knob: match plan.knob {
            Knob::Rate => "rate",
            Knob::Load => "load",
        }
        .to_owned(),
        trials: judged
            .iter()
            .map(|(p, t, v)| SearchTrial {
                point_id: p.point.id,
                value: t.value,
                passed: t.passed,
                measured: v.measured_text.clone(),
                spoiled: t.spoiled,
            })
            .collect(),
        answer,
        failed_at,
        finished,
        confirmed,
        contradiction,
        summary,
    }
}
