//! `[search]`: a requirement as `[expect]` writes it (`small.read.latency.p99 <= 2ms`, read by the
//! same parsers and checks), the bounds of the class's rate or load, a precision and a trial cap.

use super::diag::SpecError;
use super::expect::class_facts;
use super::keys;
use super::model::{ClassSpec, Precision, SearchSpec, Sp, SweepSpec};
use super::read::Reader;
use super::tree::{Node, Table, Value};
use rigel_expr::{self as expr, Metric, Rate};

/// `precision` when the spec does not set it.
pub const DEFAULT_PRECISION: f64 = 5.0;
/// `max_trials` when the spec does not set it.
pub const DEFAULT_MAX_TRIALS: u64 = 12;

pub fn read_search(
    r: &mut Reader,
    root: &Table,
    classes: &[ClassSpec],
    sweep: &[SweepSpec],
    declared: &[String],
) -> Option<SearchSpec> {
    let t = r.table(root, "search")?;
    r.check_keys(t, "[search]", &keys::names(keys::SEARCH));
    let loc = root.get("search").map(|n| n.loc.clone())?;
    let required = |r: &mut Reader, name: &str| {
        let n = t.get(name);
        if n.is_none() {
            r.push(
                SpecError::at(&loc, format!("[search] needs `{name}`"), "in this table")
                    .hint("target = \"small.read.latency.p99 <= 2ms\", low = \"1000 iops\", high = \"50000 iops\""),
            );
        }
        n
    };
    let target = required(r, "target");
    let low = required(r, "low");
    let high = required(r, "high");
    let target = target.and_then(|n| read_target(r, n, classes, sweep, declared));
    let bound = |r: &mut Reader, n: &Node, what: &str| {
        let bare = |i: i64| u64::try_from(i).ok().map(Rate::Iops);
        r.parsed(n, what, "\"5000 iops\" or 8", Some(&bare), expr::parse_rate)
    };
    let low = low.and_then(|n| bound(r, n, "`low`"));
    let high = high.and_then(|n| bound(r, n, "`high`"));
    let precision = match t.get("precision") {
        Some(n) => read_precision(r, n)?,
        None => Sp::new(Precision::Percent(DEFAULT_PRECISION), loc.clone()),
    };
    let max_trials = match t.get("max_trials") {
        Some(n) => Sp::new(
            r.integer(
                n,
                "`max_trials`",
                &expr::Names {
                    targets: 1,
                    cores: 1,
                },
            )?,
            n.loc.clone(),
        ),
        None => Sp::new(DEFAULT_MAX_TRIALS, loc.clone()),
    };
    let ((key, comparison, class), low, high) = (target?, low?, high?);
    Some(SearchSpec {
        key,
        comparison,
        class,
        low,
        high,
        precision,
        max_trials,
        loc,
    })
}

pub(super) type Target = (Sp<String>, Sp<expr::Comparison>, String);

/// `KEY OP VALUE`: the key up to the first of `<`, `>`, `=`, the comparison from there (a search's
/// target, an answer's `where`).
pub(super) fn read_target(
    r: &mut Reader,
    n: &Node,
    classes: &[ClassSpec],
    sweep: &[SweepSpec],
    declared: &[String],
) -> Option<Target> {
    let text = r.string(n, "`target`")?;
    let Some(at) = text.find(['<', '>', '=']) else {
        r.push(
            SpecError::at(
                &n.loc,
                "a search target needs a comparison",
                "no <=, >= here",
            )
            .hint("write it as \"small.read.latency.p99 <= 2ms\""),
        );
        return None;
    };
    let key_text = text[..at].trim_end();
    let key_start = key_text.len() - key_text.trim_start().len();
    let key_text = key_text.trim_start();
    let shifted = |e: expr::ExprError, by: usize| expr::ExprError {
        span: e.span.start + by..e.span.end + by,
        ..e
    };
    let key = match expr::parse_requirement_key(key_text) {
        Ok(k) => k,
        Err(e) => return r.expr(n, Err(shifted(e, key_start))),
    };
    let facts = class_facts(classes, sweep, declared);
    if let Some(e) = expr::check_key(&key, &facts).into_iter().next() {
        return r.expr(n, Err(shifted(e, key_start)));
    }
    let Metric::Class { class, .. } = &key.metric else {
        let loc = r.loc_of(n, key_start..key_start + key_text.len());
        r.push(
            SpecError::at(
                &loc,
                "a search needs a class's figure",
                "not a class's figure",
            )
            .hint("search on CLASS[.DIR].latency.STAT, .service.STAT, .iops or .mbps"),
        );
        return None;
    };
    let comparison = match expr::parse_comparison(&text[at..]) {
        Ok(c) => c,
        Err(e) => return r.expr(n, Err(shifted(e, at))),
    };
    if let Err((message, hint)) = expr::check_unit(&key.metric, &comparison) {
        let loc = r.loc_of(n, at..text.len());
        r.push(SpecError::at(&loc, message, "this value").hint(hint));
        return None;
    }
    let key_loc = r.loc_of(n, key_start..key_start + key_text.len());
    let cmp_loc = r.loc_of(n, at..text.len());
    Some((
        Sp::new(key_text.to_owned(), key_loc),
        Sp::new(comparison, cmp_loc),
        class.name.clone(),
    ))
}

/// `"5%"` (of the passing value) or an absolute value (`"500 iops"`, `2`).
fn read_precision(r: &mut Reader, n: &Node) -> Option<Sp<Precision>> {
    if let Value::Str(s) = &n.value
        && let Some(pct) = s.trim().strip_suffix('%')
    {
        return match pct.trim().parse::<f64>() {
            Ok(p) if p > 0.0 && p < 100.0 => Some(Sp::new(Precision::Percent(p), n.loc.clone())),
            _ => {
                r.push(
                    SpecError::at(
                        &n.loc,
                        format!("a precision of {s} is not a share between 0% and 100%"),
                        "this value",
                    )
                    .hint("write it as \"5%\", or as a value such as \"500 iops\""),
                );
                None
            }
        };
    }
    let bare = |i: i64| u64::try_from(i).ok().map(Rate::Iops);
    let p = r.parsed(
        n,
        "`precision`",
        "\"5%\" or \"500 iops\"",
        Some(&bare),
        expr::parse_rate,
    )?;
    Some(Sp::new(Precision::Absolute(p.value), p.loc))
}
