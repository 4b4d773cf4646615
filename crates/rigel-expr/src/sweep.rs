//! Load sweeps: comma-separated items of any kind, expanded to sorted, distinct levels. An item is
//! a count (`4`, `2 * targets`), a range (`1..=32`, `1..32`) with `step N` or geometric `xN`, or
//! `orion(M)`, ORION's own level rule.

use super::count::CountExpr;
use super::grammar::{Expected, Node, Rule, parse_entry};
use super::number::parse_u64;
use super::size::{span_of, trimmed_span};
use super::{ExprError, Names};
use std::ops::Range;
use std::sync::Arc;

pub(crate) const EXPECT_SWEEP: Expected = Expected {
    noun: "a sweep",
    examples: "1, 2, 4..=64 x2 or orion(5 * targets)",
};

/// No sweep may expand to more levels than this (a typo such as `1..=10000000000` must fail, not
/// exhaust memory).
pub const MAX_LEVELS: u64 = 1_000_000;

/// A load sweep: `1, 2, 4..=64 x2, 100`, `1..32 step 4`, `orion(5 * targets)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq)]
enum Item {
    Count(CountExpr),
    Range(RangeItem),
    Orion { max: CountExpr, span: Range<usize> },
}

#[derive(Clone, Debug, PartialEq)]
struct RangeItem {
    span: Range<usize>,
    low: CountExpr,
    high: CountExpr,
    inclusive: bool,
    step: Step,
}

/// How a range advances; `Geometric` factors are checked (≥ 2) when parsed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Step {
    One,
    By(CountExpr),
    Geometric(u64),
}

/// Parses a sweep such as `1, 2, 4..=64 x2, 100` or `orion(5 * targets)`.
pub fn parse_sweep(s: &str) -> Result<Sweep, ExprError> {
    let source: Arc<str> = Arc::from(s);
    let mut inner = parse_entry(Rule::sweep_value, s, EXPECT_SWEEP)?;
    let Some(sweep) = inner.next() else {
        return Err(ExprError::new(0..s.len(), EXPECT_SWEEP.noun));
    };
    let items = sweep
        .into_inner()
        .filter(|node| node.as_rule() != Rule::sep)
        .map(|node| item(node, &source))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Sweep { items })
}

fn item(node: Node<'_>, source: &Arc<str>) -> Result<Item, ExprError> {
    let span = trimmed_span(&node);
    match node.as_rule() {
        Rule::orion => {
            let max = first_count(node, source, &span)?;
            Ok(Item::Orion { max, span })
        }
        Rule::range => {
            let mut parts = node.into_inner();
            let missing = || ExprError::new(span.clone(), "expected a range such as 1..=32");
            let low = CountExpr::from_node(parts.next().ok_or_else(missing)?, source)?;
            let inclusive = parts.next().ok_or_else(missing)?.as_rule() == Rule::inclusive;
            let high = CountExpr::from_node(parts.next().ok_or_else(missing)?, source)?;
            let step = match parts.next() {
                None => Step::One,
                Some(s) if s.as_rule() == Rule::geometric => Step::Geometric(geometric_factor(s)?),
                Some(s) => Step::By(first_count(s, source, &span)?),
            };
            Ok(Item::Range(RangeItem {
                span,
                low,
                high,
                inclusive,
                step,
            }))
        }
        _ => Ok(Item::Count(CountExpr::from_node(node, source)?)),
    }
}

fn first_count(
    node: Node<'_>,
    source: &Arc<str>,
    span: &Range<usize>,
) -> Result<CountExpr, ExprError> {
    match node.into_inner().next() {
        Some(count) => CountExpr::from_node(count, source),
        None => Err(ExprError::new(span.clone(), "expected a count")),
    }
}

/// The factor of an `xN` node, which must be at least 2 (x1 would never advance).
pub(crate) fn geometric_factor(node: Node<'_>) -> Result<u64, ExprError> {
    let span = span_of(&node);
    let int = node.into_inner().next();
    let int = int.ok_or_else(|| ExprError::new(span.clone(), "expected a factor such as x2"))?;
    let factor = parse_u64(int.as_str(), span_of(&int))?;
    if factor < 2 {
        return Err(ExprError::new(
            span,
            format!("a geometric step of x{factor} never advances"),
        )
        .with_hint("use a factor of 2 or more, e.g. x2, or `step N` for an arithmetic range"));
    }
    Ok(factor)
}

impl Sweep {
    /// The levels, sorted ascending and de-duplicated.
    pub fn eval(&self, names: &Names) -> Result<Vec<u64>, ExprError> {
        let mut levels = Vec::new();
        for item in &self.items {
            match item {
                Item::Count(c) => levels.push(c.eval(names)?),
                Item::Range(r) => levels.extend(r.expand(names)?),
                Item::Orion { max, span } => {
                    let m = max.eval(names)?;
                    if orion_level_count(m) > MAX_LEVELS {
                        return Err(too_many(span.clone()));
                    }
                    levels.extend(orion_levels(m));
                }
            }
            if levels.len() as u64 > MAX_LEVELS {
                return Err(too_many(item_span(item)));
            }
        }
        levels.sort_unstable();
        levels.dedup();
        Ok(levels)
    }
}

fn item_span(item: &Item) -> Range<usize> {
    match item {
        Item::Count(c) => c.span(),
        Item::Range(r) => r.span.clone(),
        Item::Orion { span, .. } => span.clone(),
    }
}

impl RangeItem {
    fn expand(&self, names: &Names) -> Result<Vec<u64>, ExprError> {
        let low = self.low.eval(names)?;
        let high = self.high.eval(names)?;
        let step = match &self.step {
            Step::One => RangeStep::By(1),
            Step::By(c) => RangeStep::By(step_value(c, names)?),
            Step::Geometric(f) => RangeStep::Times(*f),
        };
        expand_range(low, high, self.inclusive, step, self.span.clone(), |v| {
            v.to_string()
        })
    }
}

fn step_value(c: &CountExpr, names: &Names) -> Result<u64, ExprError> {
    match c.eval(names)? {
        0 => {
            Err(ExprError::new(c.span(), "a step of 0 never advances")
                .with_hint("use step 1 or more"))
        }
        s => Ok(s),
    }
}

/// How a range of levels or sizes advances, once evaluated.
#[derive(Clone, Copy, Debug)]
pub(crate) enum RangeStep {
    By(u64),
    Times(u64),
}

/// Expands `low..high` or `low..=high` by `step`, ascending. `show` writes a bound for messages.
pub(crate) fn expand_range(
    low: u64,
    high: u64,
    inclusive: bool,
    step: RangeStep,
    span: Range<usize>,
    show: impl Fn(u64) -> String,
) -> Result<Vec<u64>, ExprError> {
    let op = if inclusive { "..=" } else { ".." };
    let last = match (inclusive, high.checked_sub(u64::from(!inclusive))) {
        (_, Some(last)) if last >= low => last,
        _ => {
            let (l, h) = (show(low), show(high));
            return Err(
                ExprError::new(span, format!("the range {l}{op}{h} is empty")).with_hint(format!(
                    "write the smaller bound first, e.g. {}..={}",
                    show(high.min(low)),
                    show(high.max(low))
                )),
            );
        }
    };
    match step {
        RangeStep::By(s) => {
            if (last - low) / s >= MAX_LEVELS {
                return Err(too_many(span));
            }
            Ok((0..=(last - low) / s).map(|k| low + k * s).collect())
        }
        RangeStep::Times(f) => {
            if low == 0 {
                return Err(ExprError::new(span, "a geometric range cannot start at 0")
                    .with_hint("start at 1 and list 0 on its own, e.g. 0, 1..=64 x2"));
            }
            let mut out = vec![low];
            let mut v = low;
            while let Some(next) = v.checked_mul(f).filter(|n| *n <= last) {
                out.push(next);
                v = next;
            }
            Ok(out)
        }
    }
}

fn too_many(span: Range<usize>) -> ExprError {
    ExprError::new(
        span,
        format!("this sweep has more than {MAX_LEVELS} levels"),
    )
    .with_hint("use a larger step, or a geometric range such as 1..=1024 x2")
}

/// How many levels [`orion_levels`] returns for `m`, without building them.
pub fn orion_level_count(m: u64) -> u64 {
    if m == 0 {
        return 0;
    }
    let s = (m / 20).max(1);
    // 1..=s, then 2s, 3s, … ≤ m, then m itself when it is not a multiple of s.
    s + (m / s - 1) + u64::from(m % s != 0)
}

/// ORION's level rule for a maximum `m`: step `s = max(1, m / 20)`, levels `1..=s` then multiples
/// of `s` up to `m`; `m` itself ends the list even when it is not a multiple of `s` (the maximum
/// load is always measured). `orion_levels(0)` is empty. Callers bound `m` (see
/// [`orion_level_count`]); sweeps refuse more than [`MAX_LEVELS`].
pub fn orion_levels(m: u64) -> Vec<u64> {
    if m == 0 {
        return Vec::new();
    }
    let s = (m / 20).max(1);
    let mut levels: Vec<u64> = (1..=s).collect();
    levels.extend((2..=m / s).map(|k| k * s));
    if m % s != 0 {
        levels.push(m);
    }
    levels
}

#[cfg(test)]
#[path = "sweep_tests.rs"]
mod tests;
