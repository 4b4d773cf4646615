//! `[answers]`: the figures a spec exists to give. Each `[answers.NAME]` is a class figure as
//! `[expect]` writes it (one key language: `oltp.iops`, `log.write.latency.p99 @ log.size=8KiB`)
//! and where it is taken (`at`, `load`, `per`, `where`), without a bound.

use super::diag::SpecError;
use super::expect::class_key;
use super::keys;
use super::model::{AnswerAt, AnswerSpec, ClassSpec, SearchSpec, Sp, SweepSpec};
use super::read::Reader;
use super::search::read_target;
use super::tree::{Node, Table, Value};
use rigel_expr::{self as expr, Metric};

/// The class parameters `per` may name (those a selector filters on).
pub const PER_PARAMS: &[&str] = &["size", "mix", "access", "per_stream", "rate", "load"];

pub fn read_answers(
    r: &mut Reader,
    root: &Table,
    classes: &[ClassSpec],
    sweep: &[SweepSpec],
    declared: &[String],
    search: &Option<SearchSpec>,
) -> Vec<AnswerSpec> {
    let Some(t) = r.table(root, "answers") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, (name_loc, node)) in &t.entries {
        let Value::Table(a) = &node.value else {
            r.push(
                SpecError::at(
                    &node.loc,
                    format!("answer `{name}` must be a table"),
                    "here",
                )
                .hint("[answers.NAME] with figure = \"oltp.iops\" and at = \"highest load\""),
            );
            continue;
        };
        r.check_keys(a, &format!("[answers.{name}]"), &keys::names(keys::ANSWERS));
        if let Some(answer) = read_one(r, name, name_loc, node, a, classes, sweep, declared, search)
        {
            out.push(answer);
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn read_one(
    r: &mut Reader,
    name: &str,
    name_loc: &super::source::Loc,
    node: &Node,
    a: &Table,
    classes: &[ClassSpec],
    sweep: &[SweepSpec],
    declared: &[String],
    search: &Option<SearchSpec>,
) -> Option<AnswerSpec> {
    // Every key is read before giving up, so one pass reports each mistake.
    let at = match a.get("at") {
        Some(n) => r
            .string(n, "`at`")
            .and_then(|s| match AnswerAt::from_name(s.trim()) {
                Some(at) => Some(Sp::new(at, n.loc.clone())),
                None => {
                    r.push(
                        SpecError::at(&n.loc, format!("unknown `at` \"{s}\""), "this value")
                            .hint(format!("`at` is one of: {}", AnswerAt::NAMES.join(", "))),
                    );
                    None
                }
            }),
        None => Some(Sp::new(AnswerAt::Best, node.loc.clone())),
    };
    let question = a
        .get("question")
        .and_then(|n| r.string(n, "`question`"))
        .unwrap_or_default();
    let searched = at.as_ref().is_some_and(|a| a.value == AnswerAt::Search);
    let figure = match a.get("figure") {
        Some(n) => read_figure(r, n, classes, sweep, declared).ok_or(()),
        None if searched => Ok(Sp::new(String::new(), node.loc.clone())),
        None => {
            r.push(
                SpecError::at(
                    &node.loc,
                    format!("answer `{name}` needs a `figure`"),
                    "this answer",
                )
                .hint("figure = \"oltp.iops\", \"redo.commit.latency.p99\" or \"scan.mbps\""),
            );
            Err(())
        }
    };
    if let Some(at) = at.as_ref().filter(|_| searched && search.is_none()) {
        r.push(
            SpecError::at(
                &at.loc,
                "`at = \"search\"` needs a [search] table",
                "this value",
            )
            .hint("add [search], or take the figure at \"best\", \"worst\" or \"highest load\""),
        );
        return None;
    }
    let load = match a.get("load") {
        Some(n) => read_load(r, n, declared).ok_or(()),
        None => Ok(Vec::new()),
    };
    let per = match a.get("per") {
        Some(n) => read_per(r, n, declared).map(Some).ok_or(()),
        None => Ok(None),
    };
    let when = match a.get("where") {
        Some(n) => read_target(r, n, classes, sweep, declared)
            .map(|(k, c, _)| Some((k, c)))
            .ok_or(()),
        None => Ok(None),
    };
    let (at, figure, load, per, when) = (at?, figure.ok()?, load.ok()?, per.ok()?, when.ok()?);
    Some(AnswerSpec {
        name: Sp::new(name.to_owned(), name_loc.clone()),
        question,
        figure,
        at,
        load,
        per,
        when,
    })
}

/// A class figure with an optional selector, checked as `[expect]` checks its keys.
fn read_figure(
    r: &mut Reader,
    n: &Node,
    classes: &[ClassSpec],
    sweep: &[SweepSpec],
    declared: &[String],
) -> Option<Sp<String>> {
    let (text, key) = class_key(r, n, "`figure`", classes, sweep, declared)?;
    if key.metric == Metric::Errors {
        r.push(
            SpecError::at(
                &n.loc,
                "an answer is a class's figure",
                "not a class's figure",
            )
            .hint("figure = \"CLASS[.read|.write|.commit].iops\", \".mbps\" or \".latency.p99\""),
        );
        return None;
    }
    Some(Sp::new(text, n.loc.clone()))
}

/// `load = "data"` or `load = ["data1", "data2"]`: declared classes.
fn read_load(r: &mut Reader, n: &Node, declared: &[String]) -> Option<Vec<Sp<String>>> {
    let items: Vec<&Node> = match &n.value {
        Value::Array(items) => items.iter().collect(),
        _ => vec![n],
    };
    let mut out = Vec::new();
    for item in items {
        let name = r.string(item, "a class in `load`")?;
        if !declared.contains(&name) {
            r.push(unknown_class(item, &name, declared));
            return None;
        }
        out.push(Sp::new(name, item.loc.clone()));
    }
    Some(out)
}

/// `per = "log.size"`: a declared class and one of its parameters.
fn read_per(r: &mut Reader, n: &Node, declared: &[String]) -> Option<Sp<String>> {
    let text = r.string(n, "`per`")?;
    let Some((class, param)) = text.trim().split_once('.') else {
        r.push(
            SpecError::at(&n.loc, "`per` names a class parameter", "this value")
                .hint("per = \"log.size\": one answer per size of class `log`"),
        );
        return None;
    };
    if !declared.iter().any(|d| d == class) {
        r.push(unknown_class(n, class, declared));
        return None;
    }
    if !PER_PARAMS.contains(&param) {
        let hint = expr::suggest::did_you_mean(param, PER_PARAMS.iter().copied())
            .unwrap_or_else(|| format!("`per` takes CLASS.{}", PER_PARAMS.join(", CLASS.")));
        r.push(
            SpecError::at(
                &n.loc,
                format!("`{param}` is not a class parameter"),
                "this value",
            )
            .hint(hint),
        );
        return None;
    }
    Some(Sp::new(text.trim().to_owned(), n.loc.clone()))
}

/// `name` is not one of the spec's classes: the error at the value, with the nearest name (or the list).
pub(super) fn unknown_class(n: &Node, name: &str, declared: &[String]) -> SpecError {
    let hint = expr::suggest::did_you_mean(name, declared.iter().map(String::as_str))
        .unwrap_or_else(|| format!("the classes are {}", declared.join(", ")));
    SpecError::at(&n.loc, format!("no class `{name}`"), "this name").hint(hint)
}
