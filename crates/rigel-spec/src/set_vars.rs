//! What the command line's `--set`s name: the targets whose paths they give (consent for those
//! comes with the same command line's `--allow-destructive`), a variable no value uses (an error:
//! the user's LUN would be ignored), and the variables a spec's values use.

use super::diag::SpecError;
use super::load::Override;
use super::source::{Loc, Sources};
use super::tree::{Node, Table, Value};

/// Which `[[target]]`s (by index) the command line names: their `path` was set by `--set
/// target.N.path=`, or uses a variable a `--set VAR=` overrides. Read after the overrides and
/// before `${var}` substitution, while the path still shows the variables it uses.
pub fn named_on_command_line(
    table: &Table,
    overrides: &[Override],
    sources: &Sources,
) -> Vec<bool> {
    let Some(Value::Array(targets)) = table.get("target").map(|n| &n.value) else {
        return Vec::new();
    };
    let set_vars: Vec<&str> = overrides
        .iter()
        .filter(|o| !o.key.contains('.'))
        .map(|o| o.key.as_str())
        .collect();
    targets
        .iter()
        .map(|t| {
            let Value::Table(t) = &t.value else {
                return false;
            };
            let Some(path) = t.get("path") else {
                return false;
            };
            let from_set = sources
                .try_get(path.loc.source)
                .is_some_and(|s| s.name.starts_with("--set "));
            let uses_set_var = match &path.value {
                Value::Str(text) => set_vars.iter().any(|v| text.contains(&format!("${{{v}}}"))),
                _ => false,
            };
            from_set || uses_set_var
        })
        .collect()
}

/// `--set VAR=` of a variable that no value of the spec uses (a parent's `lun` that the spec's
/// own targets replaced): an error, or the user's LUN would be silently ignored.
pub fn unused_set_vars(
    table: &Table,
    overrides: &[Override],
    sources: &mut Sources,
) -> Vec<SpecError> {
    let mut texts = Vec::new();
    collect_strings(table, &mut texts);
    let mut errors = Vec::new();
    for o in overrides.iter().filter(|o| !o.key.contains('.')) {
        let reference = format!("${{{}}}", o.key);
        if texts.iter().any(|t| t.contains(&reference)) {
            continue;
        }
        let id = sources.add("--set".to_owned(), None, format!("{}={}", o.key, o.value));
        let used: Vec<String> = target_vars(table);
        let hint = if used.is_empty() {
            "no value of this spec uses a variable: set a key instead (--set target.0.path=PATH)"
                .to_owned()
        } else {
            format!(
                "this spec's targets take: {}",
                used.iter()
                    .map(|v| format!("--set {v}=PATH"))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        };
        errors.push(
            SpecError::at(
                &Loc::new(id, 0..o.key.len()),
                format!(
                    "`{}` is a variable of this spec, but no value uses it",
                    o.key
                ),
                "unused variable",
            )
            .hint(hint),
        );
    }
    errors
}

/// The `[vars]` some string value uses, with their (scalar) values as written.
pub fn used_vars(table: &Table) -> Vec<(String, String)> {
    let Some(Value::Table(vars)) = table.get("vars").map(|n| &n.value) else {
        return Vec::new();
    };
    let mut texts = Vec::new();
    collect_strings(table, &mut texts);
    vars.entries
        .iter()
        .filter(|(k, _)| texts.iter().any(|t| t.contains(&format!("${{{k}}}"))))
        .map(|(k, (_, n))| {
            let v = match &n.value {
                Value::Str(s) => s.clone(),
                Value::Int(i) => i.to_string(),
                Value::Float(f) => f.to_string(),
                Value::Bool(b) => b.to_string(),
                other => other.kind().to_owned(),
            };
            (k.clone(), v)
        })
        .collect()
}

/// The variables the targets' paths are written as, in target order (`path = "${data1}"`).
fn target_vars(table: &Table) -> Vec<String> {
    let Some(Value::Array(targets)) = table.get("target").map(|n| &n.value) else {
        return Vec::new();
    };
    targets
        .iter()
        .filter_map(|t| match &t.value {
            Value::Table(t) => match t.get("path").map(|p| &p.value) {
                Some(Value::Str(p)) => whole_var(p).map(str::to_owned),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// `name` when `text` is exactly `${name}`.
pub fn whole_var(text: &str) -> Option<&str> {
    let name = text.trim().strip_prefix("${")?.strip_suffix('}')?;
    (!name.is_empty() && !name.contains(['$', '{', '}'])).then_some(name)
}

/// Every string value of `table`, `[vars]` included (a variable may use another).
fn collect_strings<'t>(table: &'t Table, out: &mut Vec<&'t str>) {
    fn node<'t>(n: &'t Node, out: &mut Vec<&'t str>) {
        match &n.value {
            Value::Str(s) => out.push(s),
            Value::Array(items) => items.iter().for_each(|i| node(i, out)),
            Value::Table(t) => collect_strings(t, out),
            _ => {}
        }
    }
    table.entries.values().for_each(|(_, n)| node(n, out));
}
