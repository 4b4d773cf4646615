//! An owned TOML tree in which every key and value remembers where it was written, so files merged
//! through `extends` and values set with `--set` still point at their own text.

use super::diag::SpecError;
use super::source::{Loc, SourceId};
use indexmap::IndexMap;
use toml::de::{DeTable, DeValue};

#[derive(Clone, Debug)]
pub struct Node {
    pub value: Value,
    pub loc: Loc,
    /// For a string that had `${var}`s substituted: how its text maps back to what was written.
    pub pieces: Option<Vec<Piece>>,
}

/// A stretch of a substituted string: `expanded` in the new text came from `written` in the string
/// as written (literal text, or the whole `${name}` reference), both relative to the string's start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    pub expanded: std::ops::Range<usize>,
    pub written: std::ops::Range<usize>,
    pub literal: bool,
}

impl Node {
    pub fn new(value: Value, loc: Loc) -> Node {
        Node {
            value,
            loc,
            pieces: None,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Value {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Array(Vec<Node>),
    Table(Table),
    /// TOML datetimes have no use in a spec; kept only to report them.
    Other(String),
}

#[derive(Clone, Debug, Default)]
pub struct Table {
    /// Keys in the order written, each with the location of the key itself.
    pub entries: IndexMap<String, (Loc, Node)>,
}

impl Table {
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entries.get(key).map(|(_, n)| n)
    }
}

impl Value {
    /// What a user would call this kind of value, for "expected X, found Y".
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Bool(_) => "a boolean",
            Value::Array(_) => "an array",
            Value::Table(_) => "a table",
            Value::Other(_) => "a date",
        }
    }
}

/// Parses TOML text into a tree; syntax errors are returned all at once.
pub fn parse(source: SourceId, text: &str) -> Result<Table, Vec<SpecError>> {
    let (doc, errors) = DeTable::parse_recoverable(text);
    if !errors.is_empty() {
        return Err(errors
            .iter()
            .map(|e| {
                let span = e.span().unwrap_or(0..0);
                SpecError::at(&Loc::new(source, span), "invalid TOML", first_line(e.message()))
                    .hint("see the TOML syntax at https://toml.io; values with units are strings: size = \"8KiB\"")
            })
            .collect());
    }
    Ok(table_from(source, doc.get_ref()))
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or(s).trim().to_owned()
}

fn table_from(source: SourceId, t: &DeTable<'_>) -> Table {
    let mut entries = IndexMap::new();
    for (k, v) in t.iter() {
        let key_loc = Loc::new(source, k.span());
        entries.insert(k.get_ref().to_string(), (key_loc, node_from(source, v)));
    }
    Table { entries }
}

fn node_from(source: SourceId, v: &toml::Spanned<DeValue<'_>>) -> Node {
    let loc = Loc::new(source, v.span());
    let value = match v.get_ref() {
        DeValue::String(s) => Value::Str(s.to_string()),
        DeValue::Integer(i) => {
            let digits: String = i.as_str().chars().filter(|c| *c != '_').collect();
            match i64::from_str_radix(&digits, i.radix()) {
                Ok(n) => Value::Int(n),
                Err(_) => Value::Other(i.as_str().to_owned()),
            }
        }
        DeValue::Float(f) => {
            let digits: String = f.as_str().chars().filter(|c| *c != '_').collect();
            Value::Float(digits.parse().unwrap_or(f64::NAN))
        }
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Datetime(d) => Value::Other(d.to_string()),
        DeValue::Array(a) => Value::Array(a.iter().map(|n| node_from(source, n)).collect()),
        DeValue::Table(t) => Value::Table(table_from(source, t)),
    };
    Node::new(value, loc)
}

/// Merges `child` over `parent`: tables merge key by key, anything else in the child replaces the
/// parent's value (so a child's `[[target]]` list replaces the parent's whole list).
pub fn merge(parent: Table, child: Table) -> Table {
    let mut out = parent;
    for (key, (key_loc, node)) in child.entries {
        let merged = match (out.entries.shift_remove(&key), node) {
            (
                Some((
                    _,
                    Node {
                        value: Value::Table(p),
                        ..
                    },
                )),
                Node {
                    value: Value::Table(c),
                    loc,
                    ..
                },
            ) => Node::new(Value::Table(merge(p, c)), loc),
            (_, node) => node,
        };
        out.entries.insert(key, (key_loc, merged));
    }
    out
}

/// Parses a `--set` right-hand side: a TOML value when it is one (`true`, `4`, `"x"`), else the
/// text itself as a string (`10s`, `/dev/sdb`).
/// `source` holds exactly `text`, so spans inside the value stay right.
pub fn set_value(source: SourceId, text: &str) -> Node {
    match DeValue::parse(text) {
        Ok(v) if !matches!(v.get_ref(), DeValue::Table(_) | DeValue::Datetime(_)) => {
            node_from(source, &v)
        }
        _ => Node::new(Value::Str(text.to_owned()), Loc::new(source, 0..text.len())),
    }
}

/// The tree as TOML text (the resolved spec a run folder keeps). `[spec] extends` is dropped: the
/// parents are already merged in.
pub fn to_toml(table: &Table) -> String {
    let mut out = to_toml_table(table);
    if let Some(toml::Value::Table(spec)) = out.get_mut("spec") {
        spec.remove("extends");
    }
    toml::to_string(&out).unwrap_or_default()
}

fn to_toml_table(table: &Table) -> toml::Table {
    table
        .entries
        .iter()
        .map(|(k, (_, n))| (k.clone(), to_toml_value(&n.value)))
        .collect()
}

fn to_toml_value(v: &Value) -> toml::Value {
    match v {
        Value::Str(s) | Value::Other(s) => toml::Value::String(s.clone()),
        Value::Int(i) => toml::Value::Integer(*i),
        Value::Float(f) => toml::Value::Float(*f),
        Value::Bool(b) => toml::Value::Boolean(*b),
        Value::Array(a) => toml::Value::Array(a.iter().map(|n| to_toml_value(&n.value)).collect()),
        Value::Table(t) => toml::Value::Table(to_toml_table(t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_tables_merge_and_other_values_replace() {
        let parent = parse(
            SourceId(0),
            "[run]\nduration = \"60s\"\nseed = 1\n[[target]]\npath = \"a\"\n",
        )
        .unwrap();
        let child = parse(SourceId(1), "[run]\nseed = 2\n[[target]]\npath = \"b\"\n").unwrap();
        let merged = merge(parent, child);
        let Some(Value::Table(run)) = merged.get("run").map(|n| &n.value) else {
            panic!("run")
        };
        assert!(matches!(run.get("duration").map(|n| &n.value), Some(Value::Str(s)) if s == "60s"));
        let seed = run.get("seed").unwrap();
        assert!(matches!(seed.value, Value::Int(2)));
        assert_eq!(
            seed.loc.source,
            SourceId(1),
            "the value remembers the file it came from"
        );
        let Some(Value::Array(targets)) = merged.get("target").map(|n| &n.value) else {
            panic!("targets")
        };
        assert_eq!(targets.len(), 1);
    }

    #[test]
    fn toml_syntax_errors_carry_spans() {
        let errors = parse(SourceId(0), "a = \"x\nb = 1\n").unwrap_err();
        assert!(errors[0].loc.as_ref().is_some_and(|l| l.span.start > 0));
    }
}
