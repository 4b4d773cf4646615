//! The minijinja environment every report renders in: strict about unknown variables, the built-in
//! templates embedded from `templates/`, and rigel's filters (printf-style `fmt`, sizes, latencies,
//! aligned Markdown tables).

use crate::orion::printf::{Arg, PrintfError, sprintf};
use minijinja::value::{Rest, Value, ValueKind};
use minijinja::{AutoEscape, Environment, Error, ErrorKind, UndefinedBehavior};
use rigel_expr::units;

/// The built-in templates besides ORION's (`orion::TEMPLATES`), by the name they render under.
const BUILTIN: &[(&str, &str)] = &[
    (
        "markdown/report.md",
        include_str!("../../templates/markdown/report.md"),
    ),
    (
        "markdown/requirements.md",
        include_str!("../../templates/markdown/requirements.md"),
    ),
    (
        "markdown/fleet.md",
        include_str!("../../templates/markdown/fleet.md"),
    ),
    (
        "html/fleet.html",
        include_str!("../../templates/html/fleet.html"),
    ),
    (
        "html/report.html",
        include_str!("../../templates/html/report.html"),
    ),
    (
        "html/style.css",
        include_str!("../../templates/html/style.css"),
    ),
    (
        "markdown/cover.md",
        include_str!("../../templates/markdown/cover.md"),
    ),
    (
        "html/cover.html",
        include_str!("../../templates/html/cover.html"),
    ),
    (
        "markdown/answers.md",
        include_str!("../../templates/markdown/answers.md"),
    ),
    (
        "html/answers.html",
        include_str!("../../templates/html/answers.html"),
    ),
    (
        "text/closing.txt",
        include_str!("../../templates/text/closing.txt"),
    ),
    (
        "markdown/summary.md",
        include_str!("../../templates/markdown/summary.md"),
    ),
    (
        "html/summary.html",
        include_str!("../../templates/html/summary.html"),
    ),
    (
        "markdown/appendix.md",
        include_str!("../../templates/markdown/appendix.md"),
    ),
    (
        "html/appendix.html",
        include_str!("../../templates/html/appendix.html"),
    ),
    (
        "markdown/signoff.md",
        include_str!("../../templates/markdown/signoff.md"),
    ),
    (
        "html/signoff.html",
        include_str!("../../templates/html/signoff.html"),
    ),
    (
        "html/requirements.html",
        include_str!("../../templates/html/requirements.html"),
    ),
];

/// A fresh environment with rigel's settings, filters and functions, and no templates.
pub fn base_environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.set_keep_trailing_newline(true);
    env.set_auto_escape_callback(|name| {
        let name = name
            .trim_end_matches(".j2")
            .trim_end_matches(".jinja2")
            .trim_end_matches(".jinja");
        match name.rsplit('.').next() {
            Some("html" | "htm" | "xml" | "svg") => AutoEscape::Html,
            _ => AutoEscape::None,
        }
    });
    env.add_filter("fmt", fmt_filter);
    env.add_function("printf", printf_function);
    // One spelling per unit, the same as the terminal's (`rigel_expr::units`).
    env.add_filter("bytes", units::size);
    env.add_filter("lat", units::latency);
    env.add_filter("thousands", units::thousands);
    env.add_filter("number", units::number);
    env.add_filter("percent", units::percent);
    env.add_filter("si_mbps", units::si_mbps);
    env.add_filter("duration", units::seconds);
    env.add_filter("us", |ns: f64| ns / 1e3);
    env.add_filter("ms", |ns: f64| ns / 1e6);
    env.add_function("md_table", md_table);
    env.add_filter("summarize", super::summarize::summarize);
    env
}

/// The environment holding the built-in templates.
pub fn builtin_environment() -> Result<Environment<'static>, crate::ReportError> {
    let mut env = base_environment();
    for (name, source) in crate::orion::TEMPLATES.iter().chain(BUILTIN) {
        env.add_template(name, source)
            .map_err(|e| crate::ReportError::template(&e, name))?;
    }
    Ok(env)
}

fn to_arg(v: &Value) -> Arg {
    match v.kind() {
        ValueKind::Undefined | ValueKind::None => Arg::Missing,
        ValueKind::Number if v.is_integer() => {
            i128::try_from(v.clone()).map_or(Arg::Missing, Arg::Int)
        }
        ValueKind::Number => f64::try_from(v.clone()).map_or(Arg::Missing, Arg::Float),
        ValueKind::Bool => Arg::Int(i128::from(v.is_true())),
        _ => Arg::Str(v.as_str().map_or_else(|| v.to_string(), str::to_string)),
    }
}

fn printf_error(e: PrintfError) -> Error {
    Error::new(ErrorKind::InvalidOperation, e.to_string())
}

/// `{{ v | fmt(",%7.2f") }}`: C printf of one value; none renders as blanks of the field's width.
fn fmt_filter(value: Value, format: &str) -> Result<String, Error> {
    sprintf(format, &[to_arg(&value)]).map_err(printf_error)
}

/// `{{ printf("%9d - %-10d us:", lo, hi) }}`: C printf of several values.
fn printf_function(format: &str, args: Rest<Value>) -> Result<String, Error> {
    let args: Vec<Arg> = args.iter().map(to_arg).collect();
    sprintf(format, &args).map_err(printf_error)
}

/// `md_table(header, rows, align)`: a Markdown table with every column padded to its widest cell.
/// `align` holds one letter per column, `l` or `r` (default `l`).
fn md_table(
    header: Vec<Value>,
    rows: Vec<Vec<Value>>,
    align: Option<&str>,
) -> Result<String, Error> {
    let text = |v: &Value| -> String {
        let s = v.as_str().map_or_else(
            || {
                if v.is_none() {
                    String::new()
                } else {
                    v.to_string()
                }
            },
            str::to_string,
        );
        s.replace('|', r"\|").replace('\n', " ")
    };
    let header: Vec<String> = header.iter().map(text).collect();
    let rows: Vec<Vec<String>> = rows.iter().map(|r| r.iter().map(text).collect()).collect();
    if let Some(bad) = rows.iter().find(|r| r.len() != header.len()) {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!(
                "md_table: a row has {} cells, the header {}",
                bad.len(),
                header.len()
            ),
        ));
    }
    let align: Vec<char> = align.unwrap_or("").chars().collect();
    let right = |i: usize| align.get(i) == Some(&'r');
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([header[i].chars().count(), 3])
                .max()
                .unwrap_or(3)
        })
        .collect();
    let line = |cells: &[String]| -> String {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if right(i) {
                    format!("{c:>w$}", w = widths[i])
                } else {
                    format!("{c:<w$}", w = widths[i])
                }
            })
            .collect();
        format!("| {} |", padded.join(" | "))
    };
    let rule: Vec<String> = widths
        .iter()
        .enumerate()
        .map(|(i, &w)| {
            if right(i) {
                format!("{}:", "-".repeat(w - 1))
            } else {
                "-".repeat(w)
            }
        })
        .collect();
    let mut out = vec![line(&header), format!("| {} |", rule.join(" | "))];
    out.extend(rows.iter().map(|r| line(r)));
    Ok(out.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_in_templates() {
        let env = base_environment();
        let out = env
            .render_str(
                r#"{{ "Large/Small" | fmt("%11s") }}{{ 5 | fmt(",%7d") }}{{ 271.58 | fmt(",%7.2f") }}{{ none | fmt(",%7d") }}|{{ printf("%d-%s", 3, "x") }}"#,
                (),
            )
            .unwrap();
        assert_eq!(out, "Large/Small,      5, 271.58,       |3-x");
    }

    #[test]
    fn md_table_aligns_columns() {
        let env = base_environment();
        let out = env
            .render_str(
                r#"{{ md_table(["load", "IOPS"], [[1, "2,302"], [10, "58,778"]], "rr") }}"#,
                (),
            )
            .unwrap();
        assert_eq!(
            out,
            "| load |   IOPS |\n| ---: | -----: |\n|    1 |  2,302 |\n|   10 | 58,778 |"
        );
    }

    #[test]
    fn strict_about_unknown_variables() {
        let env = base_environment();
        let err = env.render_str("line one\n{{ nope }}", ()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UndefinedError);
        assert_eq!(err.line(), Some(2));
    }
}
