//! `[expect]`: each key is a requirement key (`small.latency.p99 @ small=1`) checked against the
//! spec's classes, each value a comparison whose unit must fit the metric. Keys may be quoted
//! (`"small.iops"`) or dotted (`small.iops`, which TOML nests as tables): both read the same.

use super::diag::SpecError;
use super::model::{ClassSpec, ExpectSpec, Sp, SweepSpec, SweepValues};
use super::read::Reader;
use super::source::{Loc, Sources};
use super::tree::{Node, Table, Value};
use rigel_expr::{self as expr, ClassFacts, ExprError};
use std::ops::Range;

/// A key as the user wrote it, possibly over several nested TOML keys: each piece is a stretch of
/// the joined text and where that stretch was written.
struct KeyText {
    text: String,
    pieces: Vec<(Range<usize>, Loc)>,
}

pub fn read_expect(
    r: &mut Reader,
    root: &Table,
    classes: &[ClassSpec],
    sweep: &[SweepSpec],
    declared: &[String],
) -> Vec<ExpectSpec> {
    let Some(t) = r.table(root, "expect") else {
        return Vec::new();
    };
    let facts = class_facts(classes, sweep, declared);
    let mut entries = Vec::new();
    flatten(r.sources, t, None, &mut entries);
    let mut out = Vec::new();
    for (key, n) in entries {
        let parsed = expr::parse_requirement_key(&key.text);
        let Some(parsed) = key_result(r, &key, parsed) else {
            continue;
        };
        // A base spec meant to be extended may state requirements for classes its children declare.
        let mistakes = if declared.is_empty() {
            Vec::new()
        } else {
            expr::check_key(&parsed, &facts)
        };
        let key_ok = mistakes.is_empty();
        for e in mistakes {
            key_result::<()>(r, &key, Err(e));
        }
        let Some(c) = r.parsed(
            n,
            "a requirement",
            "\">= 40000\" or \"<= 500us\"",
            None,
            expr::parse_comparison,
        ) else {
            continue;
        };
        if let Err((message, hint)) = expr::check_unit(&parsed.metric, &c.value) {
            let loc = quantity_loc(r, n);
            r.push(SpecError::at(&loc, message, "this value").hint(hint));
            continue;
        }
        if key_ok {
            out.push(ExpectSpec {
                key: Sp::new(key.text.clone(), whole_loc(&key)),
                comparison: c,
            });
        }
    }
    out
}

/// What each class may do: a class reads when its mix or any swept mix has reads. A class whose
/// values failed to read is assumed to do both, so its mistakes are not reported twice.
pub(super) fn class_facts<'a>(
    classes: &'a [ClassSpec],
    sweep: &[SweepSpec],
    declared: &'a [String],
) -> Vec<ClassFacts<'a>> {
    declared
        .iter()
        .map(|name| {
            let Some(c) = classes.iter().find(|c| c.name.value == *name) else {
                return ClassFacts {
                    name,
                    reads: true,
                    writes: true,
                    commits: true,
                };
            };
            let mut mixes = vec![c.mix.value];
            for s in sweep.iter().filter(|s| s.class.value == *name) {
                if let SweepValues::Mix(m) = &s.values.value {
                    mixes.extend(m.iter().copied());
                }
            }
            ClassFacts {
                name,
                reads: mixes.iter().any(|m| m.reads()),
                writes: mixes.iter().any(|m| m.writes()),
                commits: c
                    .durability
                    .as_ref()
                    .is_some_and(|d| d.value.flush_every().is_some()),
            }
        })
        .collect()
}

/// A requirement key written as a value (`run.steady.metric`, an answer's `figure`): read,
/// parsed and checked against the classes as `[expect]` checks its keys, errors spanned in it.
pub(super) fn class_key(
    r: &mut Reader,
    n: &Node,
    what: &str,
    classes: &[ClassSpec],
    sweep: &[SweepSpec],
    declared: &[String],
) -> Option<(String, expr::RequirementKey)> {
    let text = r.string(n, what)?;
    let start = text.len() - text.trim_start().len();
    let trimmed = text.trim();
    let shifted = |e: ExprError| ExprError {
        span: e.span.start + start..e.span.end + start,
        ..e
    };
    let key = match expr::parse_requirement_key(trimmed) {
        Ok(k) => k,
        Err(e) => return r.expr(n, Err(shifted(e))),
    };
    let facts = class_facts(classes, sweep, declared);
    if let Some(e) = expr::check_key(&key, &facts).into_iter().next() {
        return r.expr(n, Err(shifted(e)));
    }
    Some((trimmed.to_owned(), key))
}

/// Joins nested tables into dotted keys (`small.latency.p99.9 = "<= 1ms"` nests four deep).
fn flatten<'t>(
    sources: &Sources,
    t: &'t Table,
    prefix: Option<&KeyText>,
    out: &mut Vec<(KeyText, &'t Node)>,
) {
    for (name, (key_loc, node)) in &t.entries {
        let mut key = match prefix {
            Some(p) => KeyText {
                text: format!("{}.", p.text),
                pieces: p.pieces.clone(),
            },
            None => KeyText {
                text: String::new(),
                pieces: Vec::new(),
            },
        };
        let at = key.text.len();
        key.text.push_str(name);
        let loc = name_loc(sources, key_loc, name, &key.text);
        key.pieces.push((at..key.text.len(), loc));
        match &node.value {
            Value::Table(inner) => flatten(sources, inner, Some(&key), out),
            _ => out.push((key, node)),
        }
    }
}

/// The location of a key's name without its quotes. A `--set` key (`expect.small.iops=...`) has one
/// location for all its parts: the name is found there after the parts before it (`joined`). The
/// whole key when escapes make byte offsets differ from the text written.
fn name_loc(sources: &Sources, key_loc: &Loc, name: &str, joined: &str) -> Loc {
    let raw = &sources.get(key_loc.source).text[key_loc.span.clone()];
    let quoted = raw.starts_with('"') || raw.starts_with('\'');
    if raw.contains('\\') {
        return key_loc.clone();
    }
    if quoted && raw.len() == name.len() + 2 {
        return key_loc.sub(1..1 + name.len());
    }
    if raw == name {
        return key_loc.clone();
    }
    match raw.find(joined) {
        Some(at) => key_loc.sub(at + joined.len() - name.len()..at + joined.len()),
        None => key_loc.clone(),
    }
}

/// The location of `range` of the joined key text.
fn key_loc(key: &KeyText, range: Range<usize>) -> Loc {
    let piece_at = |at: usize| {
        key.pieces
            .iter()
            .find(|(r, _)| r.start <= at && at <= r.end)
            .or(key.pieces.last())
    };
    let (Some((r0, l0)), Some((r1, l1))) = (piece_at(range.start), piece_at(range.end)) else {
        return Loc::new(super::source::SourceId(0), 0..0);
    };
    let start = l0.sub(range.start - r0.start..range.start - r0.start);
    let end = l1.sub(range.end.min(r1.end) - r1.start..range.end.min(r1.end) - r1.start);
    if start.source != end.source || end.span.start < start.span.start {
        return l0.clone();
    }
    Loc::new(start.source, start.span.start..end.span.start)
}

fn whole_loc(key: &KeyText) -> Loc {
    key_loc(key, 0..key.text.len())
}

fn key_result<T>(r: &mut Reader, key: &KeyText, result: Result<T, ExprError>) -> Option<T> {
    match result {
        Ok(v) => Some(v),
        Err(e) => {
            let loc = key_loc(key, e.span.clone());
            let label = if e.span.is_empty() {
                "here"
            } else {
                "this part"
            };
            r.push(SpecError::at(&loc, e.message, label).hint_opt(e.hint));
            None
        }
    }
}

/// The quantity of a comparison value (`500` in `"<= 500"`), for unit mistakes.
fn quantity_loc(r: &Reader, n: &Node) -> Loc {
    let Value::Str(s) = &n.value else {
        return n.loc.clone();
    };
    let start = s.len() - s.trim_start_matches([' ', '\t', '<', '>', '=']).len();
    let end = s.trim_end().len().max(start);
    r.loc_of(n, start..end)
}
