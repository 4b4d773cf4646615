//! `verify` (on a class or in `[run]`) and `[run] verify_unit`: which classes stamp their writes
//! and check their reads, and the block they do it in.

use super::diag::SpecError;
use super::model::{Sp, Verify};
use super::read::{Reader, one_of, size_of};
use super::tree::{Node, Value};
use rigel_expr::Size;

/// `verify = true`, `false` or `"after"`.
pub(super) fn verify_of(r: &mut Reader, n: &Node) -> Option<Sp<Verify>> {
    let v = match &n.value {
        Value::Bool(true) => Verify::On,
        Value::Bool(false) => Verify::Off,
        Value::Str(s) if s.trim() == "after" => Verify::After,
        Value::Str(s) => {
            r.push(one_of(n, "verify", s, &["true", "false", "after"]));
            return None;
        }
        other => {
            r.push(
                SpecError::at(
                    &n.loc,
                    format!(
                        "`verify` must be true, false or \"after\", found {}",
                        other.kind()
                    ),
                    "expected true, false or \"after\"",
                )
                .hint("verify = true checks every read of a block written in this run"),
            );
            return None;
        }
    };
    Some(Sp::new(v, n.loc.clone()))
}

/// `verify_unit = "4KiB"`.
pub(super) fn unit_of(r: &mut Reader, n: &Node) -> Option<Sp<Size>> {
    size_of(r, n, "a verify unit")
}
