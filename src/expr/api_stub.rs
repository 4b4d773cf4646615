//! PLACEHOLDER: the parsing entry points, to be implemented over the pest grammar (issue 2).
//! Signatures are the contract the spec layer relies on.

use super::*;
use std::time::Duration;

/// A count expression: integers, `+ - * /`, parentheses, the names `targets` and `cores`.
#[derive(Clone, Debug, PartialEq)]
pub struct CountExpr {}

impl CountExpr {
    /// Evaluates with the given names; errors (division by zero, negative result) carry spans.
    pub fn eval(&self, _names: &Names) -> Result<u64, ExprError> {
        todo!()
    }
}

/// A load sweep: `1, 2, 4..=64 x2, 100`, `1..32 step 4`, `orion(5 * targets)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {}

impl Sweep {
    /// The levels, sorted ascending and de-duplicated.
    pub fn eval(&self, _names: &Names) -> Result<Vec<u64>, ExprError> {
        todo!()
    }
}

pub fn parse_size(_s: &str) -> Result<Size, ExprError> {
    todo!()
}
pub fn parse_duration(_s: &str) -> Result<Duration, ExprError> {
    todo!()
}
pub fn parse_count(_s: &str) -> Result<CountExpr, ExprError> {
    todo!()
}
pub fn parse_sweep(_s: &str) -> Result<Sweep, ExprError> {
    todo!()
}
/// A comma-separated list of sizes, with ranges: `4KiB, 8KiB`, `4KiB..=1MiB x2`. In the order written.
pub fn parse_size_list(_s: &str) -> Result<Vec<Size>, ExprError> {
    todo!()
}
pub fn parse_mix(_s: &str) -> Result<Mix, ExprError> {
    todo!()
}
/// `read, 70% read, write`: in the order written.
pub fn parse_mix_list(_s: &str) -> Result<Vec<Mix>, ExprError> {
    todo!()
}
pub fn parse_comparison(_s: &str) -> Result<Comparison, ExprError> {
    todo!()
}
/// ORION's level rule for a maximum `m`: step `s = max(1, m / 20)`, levels `1..=s` then multiples of
/// `s` up to `m`.
pub fn orion_levels(_m: u64) -> Vec<u64> {
    todo!()
}
/// Canonical text of a duration that parses back to itself: `500ms`, `1m30s`, `60s`.
pub fn format_duration(_d: Duration) -> String {
    todo!()
}
