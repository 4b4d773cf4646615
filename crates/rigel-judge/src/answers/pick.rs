//! Which points qualify for an answer, how they are grouped (`per`, `each load`) and which one
//! gives it (`at`).

use super::super::expect::{holds, matches};
use rigel_expr::{RequirementKey, Stat, parse_requirement_key};
use rigel_plan::{AnswerAt, AnswerPlan};
use rigel_results::view::{Figures, PointRead, ResultsView};

/// A point that counts for the answer, with its value.
pub(super) struct Candidate {
    pub point_id: u32,
    pub label: String,
    /// The figure's class's load at the point.
    pub load: u32,
    /// The summed load of the answer's `load` classes (its own class's when none are named).
    pub side_load: u64,
    pub value: f64,
    /// The figure's class and direction at the point: the latency beside the value.
    pub figures: Figures,
    /// The `per` parameter's value at the point (`8KiB`), empty without `per`.
    pub per_value: String,
}

pub(super) struct Found {
    pub qualified: Vec<Candidate>,
    /// The groups of every point that ran the class, in run order: a group none of whose points
    /// counts (a rate missed at each) still has its line, saying so.
    pub groups: Vec<String>,
    /// Why none qualified, when none did.
    pub why_none: String,
}

pub(super) fn candidates(view: &ResultsView, a: &AnswerPlan, key: &RequirementKey) -> Found {
    let Some((class, direction, stat)) = key.class_figure() else {
        return Found {
            qualified: Vec::new(),
            groups: Vec::new(),
            why_none: "not a class's figure".to_owned(),
        };
    };
    // `@ log.size=8KiB` on the figure's class: that size's own figure where it is one of a mix.
    let size = key.size_filter();
    let when = a
        .when
        .as_ref()
        .and_then(|w| Some((parse_requirement_key(&w.key).ok()?, w.comparison)));
    let selected: Vec<&PointRead> = view
        .points
        .iter()
        .filter(|p| key.selector.filters.iter().all(|f| matches(p.result, f)))
        .collect();
    let mut counted = 0;
    let mut qualified = Vec::new();
    let mut groups: Vec<String> = Vec::new();
    for p in &selected {
        let Some(c) = p.class(class) else {
            continue;
        };
        let group = group_key(a, class, &per_value(a, p), p.load_of(class));
        if !groups.contains(&group) {
            groups.push(group);
        }
        // A point that was to be measured once steady and never was gives no steady figure.
        let unsteady = p.result.steady.as_ref().is_some_and(|s| !s.reached);
        if !p.eligible_for_best(class) || unsteady {
            continue;
        }
        let Some(figures) = c.counted_at(direction, size) else {
            continue;
        };
        counted += 1;
        if let Some((wk, cmp)) = &when
            && !when_holds(p, wk, cmp)
        {
            continue;
        }
        let side: Vec<&str> = if a.load.is_empty() {
            vec![class]
        } else {
            a.load.iter().map(String::as_str).collect()
        };
        qualified.push(Candidate {
            point_id: p.id(),
            label: p.label(),
            load: p.load_of(class),
            side_load: side.iter().map(|c| u64::from(p.load_of(c))).sum(),
            value: figures.value(stat),
            figures,
            per_value: per_value(a, p),
        });
    }
    let why_none = if selected.is_empty() {
        format!("no point ran with {}", a.figure)
    } else if counted == 0 {
        format!(
            "no point counts for {}: each failed, was partial, was a failed search trial, \
             missed its rate or never reached its steady state",
            a.figure
        )
    } else if let Some(w) = &a.when {
        format!(
            "none of the {counted} points that count held {} {}",
            w.key, w.comparison
        )
    } else {
        String::new()
    };
    Found {
        qualified,
        groups,
        why_none,
    }
}

/// Whether the `where` requirement holds at the point (its class's figure counts there).
fn when_holds(p: &PointRead, key: &RequirementKey, cmp: &rigel_expr::Comparison) -> bool {
    let Some((class, direction, stat)) = key.class_figure() else {
        return false;
    };
    let size = key.size_filter();
    p.class(class)
        .filter(|_| p.eligible_for_best(class))
        .and_then(|c| c.value_at(direction, stat, size))
        .is_some_and(|v| holds(cmp, v))
}

/// The value of the `per` parameter at the point, as a selector writes it.
fn per_value(a: &AnswerPlan, p: &PointRead) -> String {
    let Some((class, param)) = a.per.as_deref().and_then(|s| s.split_once('.')) else {
        return String::new();
    };
    let Some(c) = p.class(class) else {
        return String::new();
    };
    let l = c.params;
    match param {
        "size" => rigel_expr::Size(l.pattern.common_size(l.size)).to_string(),
        "mix" => l.mix.to_string(),
        "access" => format!("{:?}", l.access).to_ascii_lowercase(),
        "per_stream" => l.per_stream.to_string(),
        "rate" => l
            .rate
            .map_or_else(|| "closed loop".to_owned(), |r| r.to_string()),
        _ => l.load.to_string(),
    }
}

/// The group a candidate belongs to: `log.size=8KiB` for `per`, `oltp=16` for `each load`.
pub(super) fn group_of(a: &AnswerPlan, class: &str, c: &Candidate) -> String {
    group_key(a, class, &c.per_value, c.load)
}

fn group_key(a: &AnswerPlan, class: &str, per_value: &str, load: u32) -> String {
    let mut parts = Vec::new();
    if let Some(per) = &a.per {
        parts.push(format!("{per}={per_value}"));
    }
    if a.at == AnswerAt::EachLoad {
        parts.push(format!("{class}={load}"));
    }
    parts.join(" ")
}

/// The candidate `at` picks: the first of equals in run order for `best`; the worst of equals
/// for the others.
pub(super) fn choose<'c>(
    a: &AnswerPlan,
    _class: &str,
    stat: Stat,
    members: &[&'c Candidate],
) -> Option<&'c Candidate> {
    let better = |x: f64, y: f64| {
        if stat.higher_is_better() {
            x > y
        } else {
            x < y
        }
    };
    // The first of equals in run order: `better(candidate, found)` must hold to replace it.
    let extreme = |m: &[&'c Candidate], prefer: &dyn Fn(f64, f64) -> bool| {
        let mut found: Option<&Candidate> = None;
        for c in m {
            if found.is_none_or(|f| prefer(c.value, f.value)) {
                found = Some(c);
            }
        }
        found
    };
    let best = |m: &[&'c Candidate]| extreme(m, &better);
    let worst = |m: &[&'c Candidate]| extreme(m, &|x, y| better(y, x));
    match a.at {
        AnswerAt::Best => best(members),
        AnswerAt::Worst | AnswerAt::EachLoad | AnswerAt::Search => worst(members),
        AnswerAt::HighestLoad => {
            let top = members.iter().map(|c| (c.side_load, c.load)).max()?;
            let at_top: Vec<&Candidate> = members
                .iter()
                .copied()
                .filter(|c| (c.side_load, c.load) == top)
                .collect();
            worst(&at_top)
        }
    }
}
