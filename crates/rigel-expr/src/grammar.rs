//! The pest parser generated from `grammar/values.pest`, and the translation of its failures into
//! friendly, spanned [`ExprError`]s: users see what was expected, never a grammar rule name.

use super::ExprError;
use pest::Parser;
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;
use pest_derive::Parser;
use std::ops::Range;

#[derive(Parser)]
#[grammar = "../grammar/values.pest"]
pub(crate) struct ValueParser;

/// One node of a parse tree.
pub(crate) type Node<'i> = Pair<'i, Rule>;

/// Parentheses deeper than this are refused before parsing, so that neither the parser nor the
/// evaluators (both recursive) can exhaust the stack, whatever the input.
const MAX_NESTING: usize = 32;

/// What an entry point expects, for messages: `noun` ("a size") and `examples` ("8KiB or 1MiB").
#[derive(Clone, Copy, Debug)]
pub(crate) struct Expected {
    pub noun: &'static str,
    pub examples: &'static str,
}

impl Expected {
    fn sentence(&self) -> String {
        format!("expected {} such as {}", self.noun, self.examples)
    }
}

/// Parses the whole of `input` with the entry `rule` and returns the entry's children.
pub(crate) fn parse_entry(
    rule: Rule,
    input: &str,
    expected: Expected,
) -> Result<pest::iterators::Pairs<'_, Rule>, ExprError> {
    if input.trim().is_empty() {
        return Err(ExprError::new(
            0..input.len(),
            format!("empty value: {}", expected.sentence()),
        ));
    }
    check_nesting(input)?;
    match ValueParser::parse(rule, input) {
        Ok(mut pairs) => match pairs.next() {
            Some(entry) => Ok(entry.into_inner()),
            None => Err(ExprError::new(0..input.len(), expected.sentence())),
        },
        Err(err) => Err(friendly(err, input, expected)),
    }
}

fn check_nesting(input: &str) -> Result<(), ExprError> {
    let mut depth = 0usize;
    for (at, c) in input.char_indices() {
        match c {
            '(' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(ExprError::new(
                        at..at + 1,
                        format!("parentheses nested deeper than {MAX_NESTING} levels"),
                    ));
                }
            }
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Turns a pest failure into a message naming what was found and what would have been accepted.
fn friendly(err: pest::error::Error<Rule>, input: &str, expected: Expected) -> ExprError {
    let raw = match err.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((start, _)) => start,
    };
    let at = skip_blanks(input, raw.min(input.len()));
    let positives = match &err.variant {
        ErrorVariant::ParsingError { positives, .. } => positives.clone(),
        ErrorVariant::CustomError { .. } => Vec::new(),
    };
    let wanted = describe_all(&positives);
    if at >= input.len() {
        let end = input.len();
        let mut e = ExprError::new(
            end..end,
            format!("{}, but the value ends here", expected.sentence()),
        );
        if let Some(w) = wanted {
            e = e.with_hint(format!("expected {w} at the end"));
        }
        return e;
    }
    let span = token_at(input, at);
    let found = &input[span.clone()];
    let before = input[..at].trim_end();
    let after_separator = before.ends_with(',');
    if positives.contains(&Rule::EOI) && !before.is_empty() && !after_separator {
        let hint = match wanted.filter(|_| positives.len() > 1) {
            Some(w) => format!("expected {w} here"),
            None => format!("write {} like {}", expected.noun, expected.examples),
        };
        return ExprError::new(span, format!("unexpected `{found}` after `{before}`"))
            .with_hint(hint);
    }
    let e = ExprError::new(span, format!("{}, found `{found}`", expected.sentence()));
    match wanted.filter(|_| !after_separator) {
        Some(w) => e.with_hint(format!("expected {w} here")),
        None => e,
    }
}

fn skip_blanks(input: &str, mut at: usize) -> usize {
    while let Some(c) = input[at..].chars().next() {
        if c != ' ' && c != '\t' {
            break;
        }
        at += c.len_utf8();
    }
    at
}

/// The span of the token starting at `at`: a run of letters, digits and `._%µ`, or one other
/// character (an operator or punctuation).
fn token_at(input: &str, at: usize) -> Range<usize> {
    let word = |c: char| c.is_alphanumeric() || matches!(c, '.' | '_' | '%');
    let mut end = at;
    for c in input[at..].chars() {
        if !word(c) {
            break;
        }
        end += c.len_utf8();
    }
    if end == at {
        end += input[at..].chars().next().map_or(0, char::len_utf8);
    }
    at..end
}

/// Plain words for what the parser would have accepted, e.g. "a number, a name or `(`".
fn describe_all(rules: &[Rule]) -> Option<String> {
    let mut words: Vec<&str> = Vec::new();
    for rule in rules {
        if let Some(word) = describe(*rule) {
            if !words.contains(&word) {
                words.push(word);
            }
        }
    }
    match words.split_last() {
        None => None,
        Some((last, [])) => Some((*last).to_string()),
        Some((last, rest)) => Some(format!("{} or {last}", rest.join(", "))),
    }
}

fn describe(rule: Rule) -> Option<&'static str> {
    Some(match rule {
        Rule::int | Rule::number | Rule::size | Rule::duration_part | Rule::quantity => "a number",
        Rule::name => "a name (targets or cores)",
        Rule::count | Rule::term => "a count (a number, a name such as targets, or `(`)",
        Rule::comparison => "an operator (>=, >, <=, <, ==) and a value",
        Rule::paren => "`(`",
        Rule::close => "`)`",
        Rule::sep => "`,`",
        Rule::pct => "`%`",
        Rule::per => "`/`",
        Rule::unit | Rule::rate_unit => "a unit",
        Rule::inclusive | Rule::exclusive => "a range (`..=` or `..`)",
        Rule::add | Rule::sub | Rule::mul | Rule::div => "an operator (+ - * /)",
        Rule::count_step | Rule::size_step => "`step N`",
        Rule::geometric => "`xN` (such as x2)",
        Rule::read => "`read`",
        Rule::write => "`write`",
        Rule::ge | Rule::le | Rule::eq | Rule::gt | Rule::lt => "a comparison (>=, >, <=, <, ==)",
        Rule::orion => "`orion(M)`",
        Rule::key_word | Rule::metric_path => "a name",
        Rule::at | Rule::selector => "`@` and a point selector",
        Rule::select_all | Rule::select_best | Rule::select_pair => {
            "a point selector (all, best, small=1)"
        }
        Rule::select_value => "a value",
        Rule::EOI => "the end of the value",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZE: Expected = Expected {
        noun: "a size",
        examples: "8KiB or 1MiB",
    };

    #[test]
    fn empty_input_is_reported_over_the_whole_string() {
        let err = parse_entry(Rule::size_value, "  ", SIZE).unwrap_err();
        assert_eq!(err.span, 0..2);
        assert!(
            err.message.starts_with("empty value: expected a size"),
            "{}",
            err.message
        );
    }

    #[test]
    fn garbage_names_the_token_found() {
        let err = parse_entry(Rule::size_value, "abc", SIZE).unwrap_err();
        assert_eq!(err.span, 0..3);
        assert_eq!(
            err.message,
            "expected a size such as 8KiB or 1MiB, found `abc`"
        );
    }

    #[test]
    fn trailing_text_is_unexpected() {
        let err = parse_entry(Rule::size_value, "8KiB, 4", SIZE).unwrap_err();
        assert_eq!(err.span, 4..5);
        assert_eq!(err.message, "unexpected `,` after `8KiB`");
    }

    #[test]
    fn deep_nesting_is_refused_before_parsing() {
        let input = "(".repeat(10_000);
        let err = parse_entry(Rule::count_value, &input, SIZE).unwrap_err();
        assert!(err.message.contains("nested deeper"), "{}", err.message);
        assert_eq!(err.span, MAX_NESTING..MAX_NESTING + 1);
    }

    #[test]
    fn no_rule_name_leaks_into_messages() {
        for input in ["8 KiB KiB", "(", "1..", "orion(", ">=", "70%", "x"] {
            for rule in [
                Rule::size_value,
                Rule::count_value,
                Rule::sweep_value,
                Rule::mix_value,
            ] {
                if let Err(e) = parse_entry(rule, input, SIZE) {
                    let text = format!("{} {:?}", e.message, e.hint);
                    for leak in ["Rule", "EOI", "_value", "size_step", "count_step"] {
                        assert!(!text.contains(leak), "{input:?}: {text}");
                    }
                }
            }
        }
    }
}
