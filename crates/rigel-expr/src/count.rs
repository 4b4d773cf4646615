//! Counts: integers with `+ - * /` (integer division, rounding down) and parentheses over the
//! built-in names `targets` and `cores`, such as `5 * targets` or `(cores + 1) / 2`. Parsed once,
//! evaluated when the names are known.

use super::grammar::{Expected, Node, Rule, parse_entry};
use super::number::parse_u64;
use super::size::{span_of, trimmed_span};
use super::{ExprError, Names};
use std::ops::Range;
use std::sync::Arc;

pub(crate) const EXPECT_COUNT: Expected = Expected {
    noun: "a count",
    examples: "4, 2 * targets or (cores + 1) / 2",
};

/// The names a count may use, as written.
const NAMES: [&str; 2] = ["targets", "cores"];

/// A count expression: integers, `+ - * /`, parentheses, the names `targets` and `cores`.
#[derive(Clone, Debug, PartialEq)]
pub struct CountExpr {
    /// The whole string the expression was parsed from, for messages.
    source: Arc<str>,
    root: Expr,
}

#[derive(Clone, Debug, PartialEq)]
struct Expr {
    span: Range<usize>,
    kind: Kind,
}

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Int(u64),
    Targets,
    Cores,
    Binary(Op, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

/// Parses a count such as `4`, `5 * targets` or `(cores + 1) / 2`.
pub fn parse_count(s: &str) -> Result<CountExpr, ExprError> {
    let source: Arc<str> = Arc::from(s);
    let mut inner = parse_entry(Rule::count_value, s, EXPECT_COUNT)?;
    match inner.next() {
        Some(node) => CountExpr::from_node(node, &source),
        None => Err(ExprError::new(0..s.len(), "expected a count such as 4")),
    }
}

impl CountExpr {
    /// Builds the expression from a `count` node of a parse of `source`.
    pub(crate) fn from_node(node: Node<'_>, source: &Arc<str>) -> Result<CountExpr, ExprError> {
        Ok(CountExpr {
            source: Arc::clone(source),
            root: build(node)?,
        })
    }

    /// Evaluates with the given names; errors (division by zero, negative result) carry spans.
    pub fn eval(&self, names: &Names) -> Result<u64, ExprError> {
        let value = self.eval_node(&self.root, names)?;
        let span = self.root.span.clone();
        if value < 0 {
            // `1-32` in a sweep is almost certainly a range written the wrong way.
            let hint = match &self.root.kind {
                Kind::Binary(Op::Sub, a, b) if is_int(a) && is_int(b) => format!(
                    "a range is written {}..={}",
                    self.text(&a.span),
                    self.text(&b.span)
                ),
                _ => names_hint(names),
            };
            return Err(ExprError::new(
                span.clone(),
                format!(
                    "`{}` is {value} here; a count cannot be negative",
                    self.text(&span)
                ),
            )
            .with_hint(hint));
        }
        u64::try_from(value).map_err(|_| self.too_large(span))
    }

    /// The span of the whole expression in the parsed string.
    pub fn span(&self) -> Range<usize> {
        self.root.span.clone()
    }

    /// The expression as written.
    pub fn as_str(&self) -> &str {
        self.text(&self.root.span)
    }

    fn text(&self, span: &Range<usize>) -> &str {
        self.source.get(span.clone()).unwrap_or("")
    }

    fn eval_node(&self, expr: &Expr, names: &Names) -> Result<i128, ExprError> {
        let (op, left, right) = match &expr.kind {
            Kind::Int(v) => return Ok(i128::from(*v)),
            Kind::Targets => return Ok(i128::from(names.targets)),
            Kind::Cores => return Ok(i128::from(names.cores)),
            Kind::Binary(op, left, right) => (op, left, right),
        };
        let a = self.eval_node(left, names)?;
        let b = self.eval_node(right, names)?;
        let result = match op {
            Op::Add => a.checked_add(b),
            Op::Sub => a.checked_sub(b),
            Op::Mul => a.checked_mul(b),
            Op::Div if b == 0 => {
                return Err(ExprError::new(
                    right.span.clone(),
                    format!("division by zero: `{}` is 0 here", self.text(&right.span)),
                )
                .with_hint(names_hint(names)));
            }
            Op::Div => floor_div(a, b),
        };
        result.ok_or_else(|| self.too_large(expr.span.clone()))
    }

    fn too_large(&self, span: Range<usize>) -> ExprError {
        let text = self.text(&span).to_string();
        ExprError::new(span, format!("`{text}` is too large for a count"))
    }
}

fn is_int(expr: &Expr) -> bool {
    matches!(expr.kind, Kind::Int(_))
}

fn names_hint(names: &Names) -> String {
    format!(
        "here targets = {} and cores = {}",
        names.targets, names.cores
    )
}

/// Division rounding towards negative infinity, as documented (`-1 / 2` = -1).
fn floor_div(a: i128, b: i128) -> Option<i128> {
    let q = a.checked_div(b)?;
    if a % b != 0 && ((a < 0) != (b < 0)) {
        Some(q - 1)
    } else {
        Some(q)
    }
}

/// Builds an expression from a `count`, `term`, `paren`, `int` or `name` node.
fn build(node: Node<'_>) -> Result<Expr, ExprError> {
    let span = trimmed_span(&node);
    match node.as_rule() {
        Rule::count | Rule::term => {
            let mut children = node.into_inner();
            let first = children
                .next()
                .ok_or_else(|| ExprError::new(span.clone(), "expected a number"))?;
            let mut acc = build(first)?;
            while let (Some(op), Some(operand)) = (children.next(), children.next()) {
                let right = build(operand)?;
                let op = match op.as_rule() {
                    Rule::add => Op::Add,
                    Rule::sub => Op::Sub,
                    Rule::mul => Op::Mul,
                    _ => Op::Div,
                };
                let joined = acc.span.start..right.span.end;
                acc = Expr {
                    span: joined,
                    kind: Kind::Binary(op, Box::new(acc), Box::new(right)),
                };
            }
            Ok(acc)
        }
        Rule::paren => {
            let inner = node.into_inner().next();
            let inner =
                inner.ok_or_else(|| ExprError::new(span.clone(), "expected a count in ( )"))?;
            let mut expr = build(inner)?;
            expr.span = span;
            Ok(expr)
        }
        Rule::int => Ok(Expr {
            kind: Kind::Int(parse_u64(node.as_str(), span.clone())?),
            span,
        }),
        _ => name(node.as_str(), span_of(&node)),
    }
}

fn name(text: &str, span: Range<usize>) -> Result<Expr, ExprError> {
    let kind = match text {
        "targets" => Kind::Targets,
        "cores" => Kind::Cores,
        _ => return Err(unknown_name(text, span)),
    };
    Ok(Expr { span, kind })
}

fn unknown_name(text: &str, span: Range<usize>) -> ExprError {
    let lower = text.to_ascii_lowercase();
    let hint = match crate::suggest::did_you_mean(text, NAMES) {
        Some(hint) => hint,
        None if lower.contains("disk") || lower.contains("lun") => {
            "the number of disks is `targets` (one per [[target]])".to_string()
        }
        None => {
            "a count may use the names `targets` and `cores`, or ${var} from [vars]".to_string()
        }
    };
    ExprError::new(span, format!("unknown name `{text}`")).with_hint(hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES_2_4: Names = Names {
        targets: 2,
        cores: 4,
    };

    fn eval(s: &str) -> Result<u64, ExprError> {
        parse_count(s)?.eval(&NAMES_2_4)
    }

    #[test]
    fn integers_operators_and_names() {
        assert_eq!(eval("7").unwrap(), 7);
        assert_eq!(eval("1_000").unwrap(), 1000);
        assert_eq!(eval("targets").unwrap(), 2);
        assert_eq!(eval("cores").unwrap(), 4);
        assert_eq!(eval("5 * targets").unwrap(), 10);
        assert_eq!(eval("1 + 2 * 3").unwrap(), 7);
        assert_eq!(eval("(1 + 2) * 3").unwrap(), 9);
        assert_eq!(eval("10 - 2 - 3").unwrap(), 5);
        assert_eq!(eval("100 / 10 / 5").unwrap(), 2);
        assert_eq!(eval("7 / 2").unwrap(), 3);
        assert_eq!(eval("(cores + 1) / 2").unwrap(), 2);
        assert_eq!(eval("1 - 2 + 1").unwrap(), 0);
        assert_eq!(eval("(1 - 4) / 2 + 2").unwrap(), 0);
        assert_eq!(eval(" ( ( 3 ) ) ").unwrap(), 3);
    }

    #[test]
    fn text_and_span_of_the_expression() {
        let c = parse_count("  5 * targets ").unwrap();
        assert_eq!(c.span(), 2..13);
        assert_eq!(c.as_str(), "5 * targets");
    }

    #[test]
    fn unknown_names_suggest_the_closest() {
        let err = parse_count("5 * target").unwrap_err();
        assert_eq!(err.message, "unknown name `target`");
        assert_eq!(err.span, 4..10);
        assert_eq!(err.hint.as_deref(), Some("did you mean `targets`?"));
        assert_eq!(
            parse_count("core").unwrap_err().hint.as_deref(),
            Some("did you mean `cores`?")
        );
        assert!(
            parse_count("num_disks")
                .unwrap_err()
                .hint
                .unwrap()
                .contains("targets")
        );
        assert!(
            parse_count("zzz")
                .unwrap_err()
                .hint
                .unwrap()
                .contains("`targets` and `cores`")
        );
    }

    #[test]
    fn division_by_zero_points_at_the_divisor() {
        let err = eval("4 / (targets - 2)").unwrap_err();
        assert_eq!(err.span, 4..17);
        assert_eq!(err.message, "division by zero: `(targets - 2)` is 0 here");
        assert_eq!(err.hint.as_deref(), Some("here targets = 2 and cores = 4"));
    }

    #[test]
    fn negative_results_are_errors() {
        let err = eval("targets - 3").unwrap_err();
        assert_eq!(err.span, 0..11);
        assert_eq!(
            err.message,
            "`targets - 3` is -1 here; a count cannot be negative"
        );
        assert_eq!(err.hint.as_deref(), Some("here targets = 2 and cores = 4"));
        let err = eval("1-32").unwrap_err();
        assert_eq!(err.hint.as_deref(), Some("a range is written 1..=32"));
    }

    #[test]
    fn overflow_is_an_error() {
        assert!(eval("18446744073709551615 + 1").is_err());
        assert_eq!(eval("18446744073709551615").unwrap(), u64::MAX);
        let huge = "18446744073709551615 * 18446744073709551615 * 18446744073709551615";
        assert!(eval(huge).unwrap_err().message.contains("too large"));
        assert!(eval("18446744073709551616").is_err());
    }

    #[test]
    fn malformed_counts_say_what_was_expected() {
        let err = parse_count("2 *").unwrap_err();
        assert_eq!(err.span, 3..3);
        assert!(err.message.contains("ends here"), "{}", err.message);
        let err = parse_count("(1 + 2").unwrap_err();
        assert!(
            err.message.starts_with("expected a count"),
            "{}",
            err.message
        );
        let err = parse_count("2 x 3").unwrap_err();
        assert_eq!(err.span, 2..3);
        assert!(parse_count("-1").is_err());
        assert!(parse_count("1.5").is_err());
        assert!(parse_count("").is_err());
    }

    #[test]
    fn floor_division_rounds_down() {
        assert_eq!(floor_div(-1, 2), Some(-1));
        assert_eq!(floor_div(1, -2), Some(-1));
        assert_eq!(floor_div(-4, 2), Some(-2));
        assert_eq!(floor_div(7, 2), Some(3));
        assert_eq!(floor_div(i128::MIN, -1), None);
    }
}
