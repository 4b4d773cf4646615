//! Answers: the figures a spec exists to give (`[answers]`, or those its classes imply, see
//! `derive.rs`), judged on a run. The one place for the rule a headline figure keeps:
//!
//! - only points that count for the class (finished without error and whole, not a search trial
//!   that failed its target, the class's rate achieved), and among them those `where` admits;
//! - latency under the load the spec applies (`worst`, `highest load`, `each load`): the best
//!   case only when the answer asks for `best`;
//! - every answer says the point and load it was taken at and the latency beside it, or why no
//!   point qualified.

mod derive;
mod pick;
#[cfg(test)]
mod tests;

pub use derive::{derived, per_class};

use super::expect::format_stat;
use pick::{Candidate, candidates, choose, group_of};
use rigel_expr::{Direction, Stat, parse_requirement_key, units};
use rigel_plan::{AnswerAt, AnswerPlan};
use rigel_results::view::ResultsView;
use rigel_results::{Answer, ResultsDoc, SearchRecord};

/// The run's answers: the spec's `[answers]` in the order written, else those its classes imply.
pub fn evaluate(doc: &ResultsDoc) -> Vec<Answer> {
    let declared = !doc.plan().answers.is_empty();
    let plans = if declared {
        doc.plan().answers.clone()
    } else {
        derived(doc.plan(), doc.search())
    };
    let view = ResultsView::new(doc);
    plans
        .iter()
        .flat_map(|a| answer(&view, a, declared))
        .collect()
}

/// The answers each class implies by what it is, whatever the spec declares (not ORION's lines,
/// not a search's): the handover's log-writer line.
pub fn implied_by_classes(doc: &ResultsDoc) -> Vec<Answer> {
    let view = ResultsView::new(doc);
    per_class(doc.plan())
        .iter()
        .flat_map(|a| answer(&view, a, false))
        .collect()
}

/// One answer, or one per group (`per`, `each load`).
fn answer(view: &ResultsView, a: &AnswerPlan, declared: bool) -> Vec<Answer> {
    let mut base = Answer {
        name: a.name.clone(),
        question: a.question.clone(),
        figure: a.figure.clone(),
        group: String::new(),
        value: None,
        unit: String::new(),
        text: "-".to_owned(),
        point_id: None,
        point: String::new(),
        load: None,
        latency: String::new(),
        p99_ns: None,
        mean_ns: None,
        rule: rule_text(a),
        note: String::new(),
        declared,
    };
    if a.at == AnswerAt::Search {
        base.figure = "search".to_owned();
        return vec![search_answer(view, base)];
    }
    let key = match parse_requirement_key(&a.figure) {
        Ok(k) => k,
        Err(e) => {
            base.note = format!("not a figure: {e}");
            return vec![base];
        }
    };
    let Some((class, direction, stat)) = key.class_figure() else {
        base.note = "an answer is a class's figure".to_owned();
        return vec![base];
    };
    base.unit = unit_of(direction, stat).to_owned();
    if base.question.is_empty() {
        base.question = question_of(a, class);
    }
    let found = candidates(view, a, &key);
    // No point counts: one line saying why, unless the answer has groups (`per`, `each load`),
    // whose every line then says so itself (a line per rate asked, each with its dash).
    if found.qualified.is_empty() && found.groups.iter().all(String::is_empty) {
        base.note = found.why_none;
        return vec![base];
    }
    let mut groups: Vec<(String, Vec<&Candidate>)> = Vec::new();
    for c in &found.qualified {
        let g = group_of(a, class, c);
        match groups.iter_mut().find(|(k, _)| *k == g) {
            Some((_, v)) => v.push(c),
            None => groups.push((g, vec![c])),
        }
    }
    // Every group that ran, in run order: one whose points all missed (its rate not achieved,
    // failed, partial, or not holding `where`) says so rather than vanishing from page 1.
    found
        .groups
        .into_iter()
        .filter_map(|group| {
            let mut out = base.clone();
            match groups.iter().find(|(g, _)| *g == group) {
                Some((_, members)) => {
                    fill(&mut out, choose(a, class, stat, members)?, direction, stat)
                }
                None if group.is_empty() => return None,
                None => out.note = none_in_group(a),
            }
            out.group = group;
            Some(out)
        })
        .collect()
}

/// Why a group of a `per` or `each load` answer has no value.
fn none_in_group(a: &AnswerPlan) -> String {
    match &a.when {
        Some(w) => format!(
            "no point here counts and holds {} {}: each failed, was partial, missed its rate or \
             missed the bound",
            w.key, w.comparison
        ),
        None => "no point here counts: each failed, was partial, was a failed search trial or \
                 missed its rate"
            .to_owned(),
    }
}

fn fill(out: &mut Answer, c: &Candidate, direction: Direction, stat: Stat) {
    out.value = Some(c.value);
    out.text = match (direction, stat) {
        (Direction::Commit, Stat::Iops) => format!("{} commits/s", units::thousands(c.value)),
        _ => format_stat(stat, c.value),
    };
    out.point_id = Some(c.point_id);
    out.point = c.label.clone();
    out.load = Some(c.load);
    out.latency = format!(
        "p99 {}, mean {}",
        units::latency(c.figures.latency.p99_ns as f64),
        units::latency(c.figures.latency.mean_ns)
    );
    out.p99_ns = Some(c.figures.latency.p99_ns);
    out.mean_ns = Some(c.figures.latency.mean_ns);
}

/// A search's answer at the trial that gave it (the last that passed at the answer), "not
/// confirmed" when no repeat passed; why there is none from the search's own summary.
fn search_answer(view: &ResultsView, mut out: Answer) -> Answer {
    let Some(s) = view.doc.search() else {
        out.note = "the run has no search".to_owned();
        return out;
    };
    out.unit = if s.knob == "rate" { "iops" } else { "load" }.to_owned();
    if out.question.is_empty() {
        out.question = format!("The highest {} of {} with {}", s.knob, s.class, s.target);
    }
    let Some((answer, point_id)) = answer_trial(s) else {
        out.note = match &s.contradiction {
            Some(c) => format!("no answer: {c}"),
            None if s.summary.starts_with("no answer") => s.summary.clone(),
            None => format!("no answer: {}", s.summary),
        };
        return out;
    };
    out.value = Some(answer);
    out.text = if s.knob == "rate" {
        units::iops(answer)
    } else {
        format!("load {}", units::thousands(answer))
    };
    if !s.confirmed {
        out.note = "not confirmed: no repeat trial passed at this value".to_owned();
    }
    out.point_id = Some(point_id);
    if let Some(p) = view.points.iter().find(|p| p.id() == point_id) {
        out.point = p.label();
        out.load = Some(p.load_of(&s.class));
        let figures = p.class(&s.class).and_then(|c| {
            c.figures(Direction::Read)
                .filter(|f| f.ios > 0)
                .or_else(|| c.figures(Direction::Total))
        });
        if let Some(f) = figures {
            out.latency = format!(
                "p99 {}, mean {}",
                units::latency(f.latency.p99_ns as f64),
                units::latency(f.latency.mean_ns)
            );
            out.p99_ns = Some(f.latency.p99_ns);
            out.mean_ns = Some(f.latency.mean_ns);
        }
    }
    out
}

/// The search's answer and the point of the trial that gave it: the last that passed at it.
pub fn answer_trial(s: &SearchRecord) -> Option<(f64, u32)> {
    let answer = s.answer?;
    s.trials
        .iter()
        .rev()
        .find(|t| t.passed && t.value == answer)
        .map(|t| (answer, t.point_id))
}

fn unit_of(direction: Direction, stat: Stat) -> &'static str {
    match (direction, stat) {
        (Direction::Commit, Stat::Iops) => "commits/s",
        (_, Stat::Iops) => "iops",
        (_, Stat::Mbps) => "mbps",
        _ => "ns",
    }
}

/// The rule in words: `the highest load of data (the worst of equals), where oltp.read.latency.p99
/// <= 1ms`.
fn rule_text(a: &AnswerPlan) -> String {
    let mut s = match a.at {
        AnswerAt::Best => "the best value of the points that count".to_owned(),
        AnswerAt::Worst => "the worst value of the points that count".to_owned(),
        AnswerAt::HighestLoad if a.load.is_empty() => {
            "the highest load of its class, the worst value of equals".to_owned()
        }
        AnswerAt::HighestLoad => format!(
            "the highest load of {}, then of its own class, the worst value of equals",
            a.load.join(" + ")
        ),
        AnswerAt::EachLoad => "at each load of its class, the worst value of equals".to_owned(),
        AnswerAt::Search => {
            "the search's answer: the highest value whose trial held the target".to_owned()
        }
    };
    if let Some(per) = &a.per {
        s.push_str(&format!(", per {per}"));
    }
    if let Some(w) = &a.when {
        s.push_str(&format!(", among points where {} {}", w.key, w.comparison));
    }
    s.push_str("; never a failed or partial point, a failed search trial or a missed rate");
    s
}

fn question_of(a: &AnswerPlan, class: &str) -> String {
    let at = match a.at {
        AnswerAt::Best => "at its best point".to_owned(),
        AnswerAt::Worst => "at its worst point".to_owned(),
        AnswerAt::HighestLoad if a.load.is_empty() => format!("at the highest load of {class}"),
        AnswerAt::HighestLoad => format!("at the highest load of {}", a.load.join(" + ")),
        AnswerAt::EachLoad => format!("at each load of {class}"),
        AnswerAt::Search => String::new(),
    };
    let mut q = format!("{} {at}", a.figure);
    if let Some(w) = &a.when {
        q.push_str(&format!(" where {} {}", w.key, w.comparison));
    }
    q
}
