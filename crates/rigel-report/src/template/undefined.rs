//! A template's undefined variable, named and matched to the nearest name the context has
//! (`headline.max_iops.vaule`: did you mean `value`?). minijinja says only "undefined value".

use minijinja::value::{Value, ValueKind};
use minijinja::{Environment, Error, ErrorKind};

/// What to say instead of minijinja's message, when `err` is an undefined variable in a template
/// whose source `env` can give.
pub(crate) fn explain(env: &Environment, err: &Error, ctx: &Value) -> Option<String> {
    if err.kind() != ErrorKind::UndefinedError {
        return None;
    }
    let source = env.get_template(err.name()?).ok()?.source().to_owned();
    let range = err.range()?;
    // The span may cover only the last attributes of a chain (`.max_iops.vaule`): widen it to the
    // whole dotted name.
    let is_name = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
    let start = source.get(..range.start)?.trim_end_matches(is_name).len();
    let written = source.get(start..range.end)?.trim();
    let path: Vec<&str> = written.split('.').map(str::trim).collect();
    if path.is_empty()
        || !path
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'))
    {
        return None;
    }
    // Walk the context as far as the names exist; the first missing one is the mistake.
    let mut at = ctx.clone();
    for (i, part) in path.iter().enumerate() {
        let next = at.get_attr(part).ok().filter(|v| !v.is_undefined());
        match next {
            Some(v) => at = v,
            None => {
                let keys = keys_of(&at);
                let near = rigel_expr::suggest::did_you_mean(part, keys.iter().map(String::as_str));
                let within = if i == 0 {
                    String::new()
                } else {
                    format!(" (`{}` has no `{part}`)", path[..i].join("."))
                };
                let hint = near.unwrap_or_else(|| {
                    let mut shown: Vec<&str> = keys.iter().map(String::as_str).take(12).collect();
                    if keys.len() > shown.len() {
                        shown.push("…");
                    }
                    format!("known here: {}", shown.join(", "))
                });
                return Some(format!("undefined variable `{written}`{within}; {hint}"));
            }
        }
    }
    None
}

fn keys_of(v: &Value) -> Vec<String> {
    if v.kind() != ValueKind::Map {
        return Vec::new();
    }
    v.try_iter()
        .map(|it| it.filter_map(|k| k.as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_variable_and_the_nearest_one() {
        let mut env = Environment::new();
        env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
        env.add_template("t", "a\n{{ run.nmae }}").unwrap();
        env.add_template("u", "{{ runn }}").unwrap();
        let ctx = minijinja::context! { run => minijinja::context! { name => "x" } };
        let err = env.get_template("t").unwrap().render(&ctx).unwrap_err();
        assert_eq!(
            explain(&env, &err, &ctx).unwrap(),
            "undefined variable `run.nmae` (`run` has no `nmae`); did you mean `name`?"
        );
        let err = env.get_template("u").unwrap().render(&ctx).unwrap_err();
        assert_eq!(
            explain(&env, &err, &ctx).unwrap(),
            "undefined variable `runn`; did you mean `run`?"
        );
    }
}
