//! Typed reads from the located tree: each helper checks one value's kind, parses it with the value
//! grammar, and turns any failure into a diagnostic pointing inside the value.

use super::diag::SpecError;
use super::model::Sp;
use super::source::{Loc, Sources};
use super::tree::{Node, Table, Value};
use super::vars::value_loc;
use rigel_expr::suggest::did_you_mean;
use rigel_expr::{self as expr, ExprError};

/// Collects errors while reading, so one pass reports every mistake it can.
pub struct Reader<'s> {
    pub sources: &'s Sources,
    pub errors: Vec<SpecError>,
}

impl<'s> Reader<'s> {
    pub fn new(sources: &'s Sources) -> Self {
        Reader {
            sources,
            errors: Vec::new(),
        }
    }

    pub fn push(&mut self, e: SpecError) {
        self.errors.push(e);
    }

    /// Reports keys of `table` outside `allowed`, with a "did you mean" hint.
    pub fn check_keys(&mut self, table: &Table, what: &str, allowed: &[&str]) {
        for (key, (key_loc, _)) in &table.entries {
            if !allowed.contains(&key.as_str()) {
                let hint = did_you_mean(key, allowed.iter().copied())
                    .unwrap_or_else(|| format!("{what} takes: {}", allowed.join(", ")));
                self.push(
                    SpecError::at(
                        key_loc,
                        format!("unknown key `{key}` in {what}"),
                        "not a known key",
                    )
                    .hint(hint),
                );
            }
        }
    }

    /// The table under `key`, or an error when the key holds something else.
    pub fn table<'t>(&mut self, parent: &'t Table, key: &str) -> Option<&'t Table> {
        let node = parent.get(key)?;
        match &node.value {
            Value::Table(t) => Some(t),
            other => {
                self.push(
                    SpecError::at(
                        &node.loc,
                        format!("`{key}` must be a table, found {}", other.kind()),
                        "expected a table",
                    )
                    .hint(format!("write it as a [{key}] section")),
                );
                None
            }
        }
    }

    pub fn string(&mut self, node: &Node, what: &str) -> Option<String> {
        match &node.value {
            Value::Str(s) => Some(s.clone()),
            other => {
                self.push(SpecError::at(
                    &node.loc,
                    format!("{what} must be a string, found {}", other.kind()),
                    "expected a string",
                ));
                None
            }
        }
    }

    pub fn boolean(&mut self, node: &Node, what: &str) -> Option<bool> {
        match &node.value {
            Value::Bool(b) => Some(*b),
            Value::Str(s) if s == "true" || s == "false" => Some(s == "true"),
            other => {
                self.push(SpecError::at(
                    &node.loc,
                    format!("{what} must be true or false, found {}", other.kind()),
                    "expected true or false",
                ));
                None
            }
        }
    }

    /// A non-negative integer: a TOML integer, or a count expression in a string.
    pub fn integer(&mut self, node: &Node, what: &str, names: &expr::Names) -> Option<u64> {
        match &node.value {
            Value::Int(i) if *i >= 0 => Some(*i as u64),
            Value::Str(s) => {
                let parsed = expr::parse_count(s).and_then(|c| c.eval(names));
                self.expr(node, parsed)
            }
            other => {
                self.push(SpecError::at(
                    &node.loc,
                    format!(
                        "{what} must be a non-negative integer, found {}",
                        describe(other)
                    ),
                    "expected an integer",
                ));
                None
            }
        }
    }

    /// A string value parsed by `parse`; integers are accepted as the string of their digits when
    /// `bare_ints` says what they mean (bytes for sizes, seconds for durations).
    pub fn parsed<T>(
        &mut self,
        node: &Node,
        what: &str,
        example: &str,
        bare: Option<&dyn Fn(i64) -> Option<T>>,
        parse: impl Fn(&str) -> Result<T, ExprError>,
    ) -> Option<Sp<T>> {
        let value = match (&node.value, bare) {
            (Value::Str(s), _) => {
                let r = parse(s);
                self.expr(node, r)?
            }
            (Value::Int(i), Some(f)) => match f(*i) {
                Some(v) => v,
                None => {
                    self.push(
                        SpecError::at(&node.loc, format!("{what} out of range"), "this value")
                            .hint(format!("write it as {example}")),
                    );
                    return None;
                }
            },
            (other, _) => {
                self.push(
                    SpecError::at(
                        &node.loc,
                        format!(
                            "{what} must be a string such as {example}, found {}",
                            describe(other)
                        ),
                        format!("expected {what}"),
                    )
                    .hint(format!("write it as {example}")),
                );
                return None;
            }
        };
        Some(Sp::new(value, node.loc.clone()))
    }

    /// Turns an expression error into a diagnostic underlining the offending part of the value.
    pub fn expr<T>(&mut self, node: &Node, result: Result<T, ExprError>) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(e) => {
                let loc = value_loc(node, self.sources, e.span.clone());
                let label = if e.span.is_empty() {
                    "here".to_owned()
                } else {
                    "this part".to_owned()
                };
                self.push(SpecError::at(&loc, e.message, label).hint_opt(e.hint));
                None
            }
        }
    }

    pub fn loc_of(&self, node: &Node, range: std::ops::Range<usize>) -> Loc {
        value_loc(node, self.sources, range)
    }
}

pub(super) fn describe(v: &Value) -> String {
    match v {
        Value::Int(i) => format!("{} ({i})", v.kind()),
        Value::Float(f) => format!("{} ({f})", v.kind()),
        other => other.kind().to_owned(),
    }
}

/// A size value (`"8KiB"`, or a bare number of bytes).
pub fn size_of(r: &mut Reader, node: &Node, what: &str) -> Option<Sp<expr::Size>> {
    let bare = |i: i64| u64::try_from(i).ok().map(expr::Size);
    r.parsed(
        node,
        what,
        "\"8KiB\" or \"1MiB\"",
        Some(&bare),
        expr::parse_size,
    )
}

/// A duration value (`"60s"`, `"1m30s"`, or a bare number of seconds).
pub fn duration_of(r: &mut Reader, node: &Node, what: &str) -> Option<Sp<std::time::Duration>> {
    let bare = |i: i64| u64::try_from(i).ok().map(std::time::Duration::from_secs);
    r.parsed(
        node,
        what,
        "\"60s\" or \"1m30s\"",
        Some(&bare),
        expr::parse_duration,
    )
}

/// The error for a word outside a fixed set, with a "did you mean" hint.
pub fn one_of(n: &Node, key: &str, found: &str, options: &[&str]) -> SpecError {
    let hint = did_you_mean(found, options.iter().copied())
        .unwrap_or_else(|| format!("`{key}` is one of: {}", options.join(", ")));
    SpecError::at(
        &n.loc,
        format!("unknown {key} `{found}`"),
        format!("expected one of {}", options.join(", ")),
    )
    .hint(hint)
}

/// An `engine` value (`[run]` or a class's): one of [`super::Engine::NAMES`], else a spanned error
/// listing them with a did-you-mean hint.
pub(crate) fn engine_of(r: &mut Reader, n: &Node) -> Option<Sp<super::Engine>> {
    let s = r.string(n, "`engine`")?;
    match super::Engine::from_name(s.trim()) {
        Some(e) => Some(Sp::new(e, n.loc.clone())),
        None => {
            r.push(one_of(n, "engine", s.trim(), &super::Engine::NAMES));
            None
        }
    }
}
