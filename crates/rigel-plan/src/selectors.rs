//! Requirements' selectors against the plan, before any I/O: which planned points a selector picks
//! (the judge's rule too, on the points that ran), and a selector that names a point the plan does
//! not have, which would only say NO DATA after the whole run, so the compiler's check says it at
//! once. Depends only on the expressions and the plan, so it sits with the compiler.

use super::model::{DataPoint, RunPlan};
use rigel_expr::{
    Condition, Direction, ExprError, Filter, Metric, RequirementKey, Size, parse_requirement_key,
};

/// Whether a planned point satisfies one selector condition.
pub fn point_matches(p: &DataPoint, f: &Filter) -> bool {
    let name = f.class.name.as_str();
    if let Condition::Load(n) = f.condition {
        return p.load_of(name) == n;
    }
    let Some(c) = p.classes.iter().find(|c| c.class == name) else {
        return false;
    };
    match f.condition {
        Condition::Load(_) => true,
        // A size of the class's mix selects the points where the mix has it (and the judged
        // figure is then that size's own).
        Condition::Size(b) => {
            c.size == b
                || c.pattern
                    .sizes
                    .as_ref()
                    .is_some_and(|m| m.items().iter().any(|s| s.size == b))
        }
        Condition::Access(a) => c.access == a,
        Condition::Mix(m) => c.mix == m,
        Condition::PerStream(n) => c.per_stream == n,
    }
}

/// For each requirement (by index in `plan.expect`) whose selector picks no point where its class
/// runs in its direction: the mistake, spanned in the key.
pub fn check_selectors(plan: &RunPlan) -> Vec<(usize, ExprError)> {
    plan.expect
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let key = parse_requirement_key(&r.key).ok()?;
            unmatched(plan, &key, r.key.len()).map(|e| (i, e))
        })
        .collect()
}

fn unmatched(plan: &RunPlan, key: &RequirementKey, len: usize) -> Option<ExprError> {
    let filters = &key.selector.filters;
    let selected: Vec<&DataPoint> = plan
        .points
        .iter()
        .filter(|p| filters.iter().all(|f| point_matches(p, f)))
        .collect();
    let selector_span = filters.first().map_or(0..len, |f| f.class.span.start..len);
    let wanted: Vec<String> = filters
        .iter()
        .map(|f| f.condition.describe(&f.class.name))
        .collect();
    if selected.is_empty() {
        return Some(
            ExprError::new(
                selector_span,
                format!("no point of the plan has {}", wanted.join(" ")),
            )
            .with_hint(levels_hint(plan, key)),
        );
    }
    let Metric::Class {
        class, direction, ..
    } = &key.metric
    else {
        return None;
    };
    let runs = |p: &&DataPoint| {
        p.classes.iter().any(|c| {
            c.class == class.name
                && c.outstanding > 0
                && match direction {
                    Direction::Total => true,
                    Direction::Read => c.mix.reads(),
                    Direction::Write => c.mix.writes(),
                    Direction::Commit => c.pattern.flush.is_some(),
                }
        })
    };
    if selected.iter().any(runs) {
        return None;
    }
    let doing = match direction {
        Direction::Total => "runs",
        Direction::Read => "reads",
        Direction::Write => "writes",
        Direction::Commit => "commits",
    };
    Some(
        ExprError::new(
            selector_span,
            if wanted.is_empty() {
                format!("`{}` {doing} at no point of the plan", class.name)
            } else {
                format!(
                    "`{}` {doing} at no point with {}",
                    class.name,
                    wanted.join(" ")
                )
            },
        )
        .with_hint(levels_hint(plan, key)),
    )
}

/// `the levels: small 1, 2, 4; large 0, 1`; for a size selector, the sizes the class runs
/// (`oltp's sizes: 8 KiB, 64 KiB`, a mix's among them).
fn levels_hint(plan: &RunPlan, key: &RequirementKey) -> String {
    let sized = key
        .selector
        .filters
        .iter()
        .find(|f| matches!(f.condition, Condition::Size(_)));
    if let Some(f) = sized {
        let mut sizes: Vec<u64> = Vec::new();
        for c in plan.points.iter().flat_map(|p| &p.classes) {
            if c.class != f.class.name {
                continue;
            }
            match &c.pattern.sizes {
                Some(m) => sizes.extend(m.items().iter().map(|s| s.size)),
                None => sizes.push(c.size),
            }
        }
        sizes.sort_unstable();
        sizes.dedup();
        let text: Vec<String> = sizes.iter().map(|&b| Size(b).to_string()).collect();
        return format!("{}'s sizes: {}", f.class.name, text.join(", "));
    }
    let mut named: Vec<&str> = key
        .selector
        .filters
        .iter()
        .map(|f| f.class.name.as_str())
        .collect();
    if let Metric::Class { class, .. } = &key.metric {
        named.push(&class.name);
    }
    let levels: Vec<String> = plan
        .matrix
        .levels
        .iter()
        .filter(|l| named.is_empty() || named.contains(&l.class.as_str()))
        .map(|l| {
            let v: Vec<String> = l.levels.iter().map(u32::to_string).collect();
            format!("{} {}", l.class, v.join(", "))
        })
        .collect();
    format!("the matrix's levels: {}", levels.join("; "))
}
