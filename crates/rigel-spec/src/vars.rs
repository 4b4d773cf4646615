//! `[vars]` and `${name}` substitution, and the way back: a position in a substituted string is
//! mapped to the text the user wrote, so diagnostics underline the right characters.

use super::diag::SpecError;
use super::source::{Loc, Sources};
use super::tree::{Node, Piece, Table, Value};
use rigel_expr::suggest::did_you_mean;
use std::ops::Range;

/// Longest text a variable, or a string using variables, may expand to: far more than any path,
/// size or sweep needs, and small enough that a value doubling itself stops at once.
pub const MAX_EXPANDED: usize = 64 << 10;
/// Deepest chain of variables using variables (`a` uses `b` uses `c`…).
pub const MAX_DEPTH: usize = 32;

/// A variable's value once resolved.
#[derive(Clone, Debug, PartialEq)]
enum Val {
    Text(String),
    /// A list or a table: not usable inside a string.
    NotScalar,
    /// Its own definition is wrong (reported there): its uses say nothing more.
    Failed,
}

type Vars = [(String, Val)];

/// Replaces `${name}` in every string outside `[vars]` with the variable's value; `builtins`
/// (`rank`, `ranks`, `host`) stand where `[vars]` does not declare the same name.
pub fn substitute(
    table: &mut Table,
    sources: &Sources,
    builtins: &[(&str, String)],
) -> Vec<SpecError> {
    let mut errors = Vec::new();
    let vars = match table.get("vars").map(|n| &n.value) {
        Some(Value::Table(t)) => {
            let nodes: Vec<(&str, &Node)> = t
                .entries
                .iter()
                .map(|(k, (_, n))| (k.as_str(), n))
                .collect();
            Resolver::new(&nodes, builtins, sources, &mut errors).run()
        }
        _ => Resolver::new(&[], builtins, sources, &mut errors).run(),
    };
    for (key, (_, node)) in table.entries.iter_mut() {
        if key != "vars" {
            walk(node, &vars, sources, &mut errors);
        }
    }
    errors
}

/// Lets variables use other variables (`large_max = "2 * ${disks}"`), depth first: a cycle is an
/// error naming its chain, and so are a chain deeper than `MAX_DEPTH` and a value longer than
/// `MAX_EXPANDED`.
struct Resolver<'a, 'e> {
    nodes: &'a [(&'a str, &'a Node)],
    sources: &'a Sources,
    errors: &'e mut Vec<SpecError>,
    /// Raw values at first, each replaced by its expansion once resolved.
    vars: Vec<(String, Val)>,
    done: Vec<bool>,
    stack: Vec<usize>,
}

impl<'a, 'e> Resolver<'a, 'e> {
    fn new(
        nodes: &'a [(&'a str, &'a Node)],
        builtins: &[(&str, String)],
        sources: &'a Sources,
        errors: &'e mut Vec<SpecError>,
    ) -> Self {
        let mut vars: Vec<(String, Val)> = nodes
            .iter()
            .map(|(k, n)| {
                let v = scalar_text(&n.value).map_or(Val::NotScalar, Val::Text);
                ((*k).to_owned(), v)
            })
            .collect();
        // Built-ins after the declared variables (a declaration wins), already resolved.
        for (name, value) in builtins {
            if !vars.iter().any(|(k, _)| k == name) {
                vars.push(((*name).to_owned(), Val::Text(value.clone())));
            }
        }
        let mut done = vec![false; nodes.len()];
        done.resize(vars.len(), true);
        Resolver {
            nodes,
            sources,
            errors,
            vars,
            done,
            stack: Vec::new(),
        }
    }

    fn run(mut self) -> Vec<(String, Val)> {
        for i in 0..self.nodes.len() {
            self.resolve(i);
        }
        self.vars
    }

    fn error(&mut self, i: usize, range: Range<usize>, msg: String, hint: Option<String>) {
        let loc = value_loc(self.nodes[i].1, self.sources, range);
        let label = "in this variable";
        self.errors
            .push(SpecError::at(&loc, msg, label).hint_opt(hint));
    }

    fn resolve(&mut self, i: usize) {
        if self.done[i] {
            return;
        }
        let Val::Text(raw) = self.vars[i].1.clone() else {
            self.done[i] = true;
            return;
        };
        if self.stack.len() >= MAX_DEPTH {
            let msg = format!(
                "variables nest deeper than {MAX_DEPTH} levels ({} → …)",
                self.vars[self.stack[0]].0
            );
            self.error(i, 0..raw.len(), msg, None);
            self.vars[i].1 = Val::Failed;
            self.done[i] = true;
            return;
        }
        self.stack.push(i);
        for (range, name) in references(&raw) {
            let Some(j) = self.vars.iter().position(|(k, _)| *k == name) else {
                continue;
            };
            if let Some(at) = self.stack.iter().position(|&s| s == j) {
                let chain: Vec<&str> = self.stack[at..]
                    .iter()
                    .chain([&j])
                    .map(|&s| self.vars[s].0.as_str())
                    .collect();
                let msg = format!("variable cycle: {}", chain.join(" → "));
                let hint = Some("a variable cannot use itself, directly or through others".into());
                // Reported where the chain starts, on its reference to the next variable.
                let first = self.stack[at];
                let next = chain.get(1).copied().unwrap_or(chain[0]);
                let first_raw = match &self.vars[first].1 {
                    Val::Text(t) => t.clone(),
                    _ => String::new(),
                };
                let span = references(&first_raw)
                    .into_iter()
                    .find(|(_, n)| n == next)
                    .map_or(range.clone(), |(r, _)| r);
                self.error(first, span, msg, hint);
                for &s in &self.stack[at..] {
                    self.vars[s].1 = Val::Failed;
                    self.done[s] = true;
                }
                self.stack.pop();
                return;
            }
            self.resolve(j);
        }
        self.stack.pop();
        if self.done[i] {
            return; // failed as part of a cycle found below
        }
        self.vars[i].1 = match expand(&raw, &self.vars) {
            Ok((text, _)) => Val::Text(text),
            Err(Expand::Failed) => Val::Failed,
            Err(Expand::Error(range, msg, hint)) => {
                self.error(i, range, msg, hint);
                Val::Failed
            }
        };
        self.done[i] = true;
    }
}

/// Every well-formed `${name}` in `s`: its byte range and the trimmed name.
fn references(s: &str) -> Vec<(Range<usize>, String)> {
    let mut out = Vec::new();
    let mut rest = 0;
    while let Some(found) = s[rest..].find("${") {
        let start = rest + found;
        let Some(len) = s[start..].find('}') else {
            break;
        };
        out.push((
            start..start + len + 1,
            s[start + 2..start + len].trim().to_owned(),
        ));
        rest = start + len + 1;
    }
    out
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

fn walk(node: &mut Node, vars: &Vars, sources: &Sources, errors: &mut Vec<SpecError>) {
    match &mut node.value {
        Value::Str(s) if s.contains("${") => match expand(s, vars) {
            Ok((text, pieces)) => {
                *s = text;
                node.pieces = Some(pieces);
            }
            Err(Expand::Failed) => {}
            Err(Expand::Error(range, msg, hint)) => {
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

/// Why a string could not be expanded: an error to report at a range of it, or a variable whose
/// own definition already failed (reported there).
#[derive(Debug)]
enum Expand {
    Error(Range<usize>, String, Option<String>),
    Failed,
}

fn expand(s: &str, vars: &Vars) -> Result<(String, Vec<Piece>), Expand> {
    let mut out = String::new();
    let mut pieces = Vec::new();
    let mut rest = 0;
    while let Some(found) = s[rest..].find("${") {
        let start = rest + found;
        push_literal(&mut out, &mut pieces, s, rest..start);
        let Some(len) = s[start..].find('}') else {
            return Err(Expand::Error(
                start..s.len(),
                "unclosed `${` in a variable reference".into(),
                Some("write ${name}".into()),
            ));
        };
        let name = s[start + 2..start + len].trim();
        let reference = start..start + len + 1;
        let value = match vars.iter().find(|(k, _)| k == name) {
            Some((_, Val::Text(value))) => value,
            Some((_, Val::Failed)) => return Err(Expand::Failed),
            Some((_, Val::NotScalar)) => {
                let hint = Some("a variable holds text, a number or a boolean".to_owned());
                let msg = format!("variable `{name}` is a list or a table, not a value");
                return Err(Expand::Error(reference, msg, hint));
            }
            None => {
                let hint = did_you_mean(name, vars.iter().map(|(k, _)| k.as_str()))
                    .or_else(|| Some("declare it in [vars], or pass --set NAME=VALUE".into()));
                let msg = format!("unknown variable `{name}`");
                return Err(Expand::Error(reference, msg, hint));
            }
        };
        if out.len() + value.len() > MAX_EXPANDED {
            let msg = format!(
                "`${{{name}}}` makes this text longer than {} KiB, the limit for an expanded value",
                MAX_EXPANDED >> 10
            );
            let hint = Some("a variable that uses another twice doubles at each step".into());
            return Err(Expand::Error(reference, msg, hint));
        }
        let at = out.len();
        out.push_str(value);
        pieces.push(Piece {
            expanded: at..out.len(),
            written: reference,
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

    fn vars(pairs: &[(&str, &str)]) -> Vec<(String, Val)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Val::Text(v.to_string())))
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
        let Expand::Error(range, _, hint) =
            expand("${dsks}", &vars(&[("disks", "1")])).unwrap_err()
        else {
            panic!("an error to report");
        };
        assert_eq!(range, 0..7);
        assert!(hint.unwrap().contains("disks"));
        assert!(expand("${disks", &vars(&[("disks", "1")])).is_err());
    }

    #[test]
    fn expansion_is_bounded() {
        let big = "x".repeat(MAX_EXPANDED / 2 + 1);
        let err = expand("${v}${v}", &vars(&[("v", &big)])).unwrap_err();
        assert!(matches!(err, Expand::Error(r, m, _) if r == (4..8) && m.contains("64 KiB")));
        assert!(matches!(
            expand("${v}", &[("v".into(), Val::Failed)]),
            Err(Expand::Failed)
        ));
    }

    #[test]
    fn references_are_found_with_their_ranges() {
        let refs = references("a${ b }c${d");
        assert_eq!(refs, vec![(1..7, "b".to_owned())]);
    }
}
