//! The parts of a `quantity` node (a number, then an optional unit), split once for every reader
//! of quantities: requirements (`>= 1.5GiB/s`) and rates (`400MiB/s`).

use super::ExprError;
use super::grammar::Node;
use super::number::Decimal;
use super::size::{span_of, trimmed_span};
use std::ops::Range;

/// A quantity as written: its number (exact) and its unit, each with its span.
pub(crate) struct QuantityParts<'i> {
    /// The whole quantity, for errors about the value as a whole.
    pub whole: Range<usize>,
    /// The number as written, for hints that repeat it (`write 40MiB/s`).
    pub number: &'i str,
    pub value: Decimal,
    /// The unit and its span, when one follows the number.
    pub unit: Option<(&'i str, Range<usize>)>,
}

/// Splits a `quantity` node into its number and unit.
pub(crate) fn quantity_parts(node: Node<'_>) -> Result<QuantityParts<'_>, ExprError> {
    let whole = trimmed_span(&node);
    let mut parts = node.into_inner();
    let Some(number) = parts.next() else {
        return Err(ExprError::new(whole, "expected a number"));
    };
    let value = Decimal::parse(number.as_str(), span_of(&number))?;
    Ok(QuantityParts {
        whole,
        number: number.as_str(),
        value,
        unit: parts.next().map(|u| (u.as_str(), span_of(&u))),
    })
}
