//! `[vars]` and `${name}` substitution, and the way back: a position in a substituted string is
//! mapped to the text the user wrote, so diagnostics underline the right characters.

use super::diag::SpecError;
use super::source::{Loc, Sources};
use super::suggest::did_you_mean;
use super::tree::{Node, Piece, Table, Value};
use std::ops::Range;

/// Replaces `${name}` in every string outside `[vars]` with the variable's value; `builtins`
/// (`rank`, `ranks`, `host`) stand where `[vars]` does not declare the same name.
pub fn substitute(
    table: &mut Table,
    sources: &Sources,
    builtins: &[(&str, String)],
) -> Vec<SpecError> {
    let mut vars: Vec<(String, Option<String>)> = match table.get("vars").map(|n| &n.value) {
        Some(Value::Table(t)) => t
            .entries
            .iter()
            .map(|(k, (_, n))| (k.clone(), scalar_text(&n.value)))
            .collect(),
        _ => Vec::new(),
    };
    for (name, value) in builtins {
        if !vars.iter().any(|(k, _)| k == name) {
            vars.push((name.to_string(), Some(value.clone())));
        }
    }
    let vars = resolve_nested(vars);
    let mut errors = Vec::new();
    for (key, (_, node)) in table.entries.iter_mut() {
        if key != "vars" {
            walk(node, &vars, sources, &mut errors);
        }
    }
    errors
}

/// Lets variables use other variables (`large_max = "2 * ${disks}"`): expands them among
/// themselves a bounded number of times, so a cycle stops instead of looping (and is then reported
/// as an unclosed reference where it is used).
fn resolve_nested(mut vars: Vec<(String, Option<String>)>) -> Vec<(String, Option<String>)> {
    for _ in 0..vars.len() {
        let snapshot = vars.clone();
        let mut changed = false;
        for value in vars.iter_mut().filter_map(|(_, v)| v.as_mut()) {
            if value.contains("${")
                && let Ok((text, _)) = expand(value, &snapshot)
                && text != *value
            {
                *value = text;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    vars
}

fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) => Some(s.clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn walk(
    node: &mut Node,
    vars: &[(String, Option<String>)],
    sources: &Sources,
    errors: &mut Vec<SpecError>,
) {
    match &mut node.value {
        Value::Str(s) if s.contains("${") => match expand(s, vars) {
            Ok((text, pieces)) => {
                *s = text;
                node.pieces = Some(pieces);
            }
            Err((range, msg, hint)) => {
                let loc = value_loc(node, sources, range);
                errors.push(SpecError::at(&loc, msg, "not declared in [vars]").hint_opt(hint));
            }
        },
        Value::Array(items) => items
            .iter_mut()
            .for_each(|n| walk(n, vars, sources, errors)),
        Value::Table(t) => t
            .entries
            .values_mut()
            .for_each(|(_, n)| walk(n, vars, sources, errors)),
        _ => {}
    }
}

type ExpandError = (Range<usize>, String, Option<String>);

fn expand(s: &str, vars: &[(String, Option<String>)]) -> Result<(String, Vec<Piece>), ExpandError> {
    let mut out = String::new();
    let mut pieces = Vec::new();
    let mut rest = 0;
    while let Some(found) = s[rest..].find("${") {
        let start = rest + found;
        push_literal(&mut out, &mut pieces, s, rest..start);
        let Some(len) = s[start..].find('}') else {
            return Err((
                start..s.len(),
                "unclosed `${` in a variable reference".into(),
                Some("write ${name}".into()),
            ));
        };
        let name = s[start + 2..start + len].trim();
        if vars.iter().any(|(k, v)| k == name && v.is_none()) {
            let hint = Some("a variable holds text, a number or a boolean".to_owned());
            return Err((
                start..start + len + 1,
                format!("variable `{name}` is a list or a table, not a value"),
                hint,
            ));
        }
        let Some((_, Some(value))) = vars.iter().find(|(k, _)| k == name) else {
            let hint = did_you_mean(name, vars.iter().map(|(k, _)| k.as_str()))
                .or_else(|| Some("declare it in [vars], or pass --set NAME=VALUE".into()));
            return Err((
                start..start + len + 1,
                format!("unknown variable `{name}`"),
                hint,
            ));
        };
        let at = out.len();
        out.push_str(value);
        pieces.push(Piece {
            expanded: at..out.len(),
            written: start..start + len + 1,
            literal: false,
        });
        rest = start + len + 1;
    }
    push_literal(&mut out, &mut pieces, s, rest..s.len());
    Ok((out, pieces))
}

fn push_literal(out: &mut String, pieces: &mut Vec<Piece>, s: &str, range: Range<usize>) {
    if range.is_empty() {
        return;
    }
    let at = out.len();
    out.push_str(&s[range.clone()]);
    pieces.push(Piece {
        expanded: at..out.len(),
        written: range,
        literal: true,
    });
}

/// The location of `range` (byte offsets in the node's string value, after substitution) in the
/// text the user wrote. Falls back to the whole value where the mapping is not exact (escapes).
pub fn value_loc(node: &Node, sources: &Sources, range: Range<usize>) -> Loc {
    let raw = &sources.get(node.loc.source).text[node.loc.span.clone()];
    let open = if raw.starts_with("\"\"\"") || raw.starts_with("'''") {
        3
    } else if raw.starts_with('"') || raw.starts_with('\'') {
        1
    } else {
        0
    };
    if raw.starts_with('"') && raw.contains('\\') {
        return node.loc.clone();
    }
    let written = match &node.pieces {
        None => range,
        Some(pieces) => map_pieces(pieces, range),
    };
    node.loc.sub(open + written.start..open + written.end)
}

fn map_pieces(pieces: &[Piece], range: Range<usize>) -> Range<usize> {
    let find = |at: usize| {
        pieces
            .iter()
            .find(|p| p.expanded.contains(&at))
            .or(pieces.last())
    };
    let (Some(first), Some(last)) = (
        find(range.start),
        find(range.end.saturating_sub(1).max(range.start)),
    ) else {
        return range;
    };
    let start = if first.literal {
        first.written.start + (range.start - first.expanded.start).min(first.written.len())
    } else {
        first.written.start
    };
    let end = if last.literal {
        last.written.start + (range.end.saturating_sub(last.expanded.start)).min(last.written.len())
    } else {
        last.written.end
    };
    start..end.max(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(String, Option<String>)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Some(v.to_string())))
            .collect()
    }

    #[test]
    fn expands_references_and_maps_positions_back() {
        let (text, pieces) =
            expand("orion(5 * ${disks}) x", &vars(&[("disks", "targets")])).unwrap();
        assert_eq!(text, "orion(5 * targets) x");
        // `targets` (expanded 10..17) came from the whole `${disks}` reference (written 10..18).
        assert_eq!(map_pieces(&pieces, 10..17), 10..18);
        // literal text after it keeps its own position
        assert_eq!(map_pieces(&pieces, 19..20), 20..21);
    }

    #[test]
    fn unknown_and_unclosed_references_are_errors() {
        let err = expand("${dsks}", &vars(&[("disks", "1")])).unwrap_err();
        assert_eq!(err.0, 0..7);
        assert!(err.2.unwrap().contains("disks"));
        assert!(expand("${disks", &vars(&[("disks", "1")])).is_err());
    }

    #[test]
    fn variables_may_use_other_variables() {
        let resolved = resolve_nested(vars(&[("max", "2 * ${disks}"), ("disks", "4")]));
        assert_eq!(resolved[0].1.as_deref(), Some("2 * 4"));
    }
}
