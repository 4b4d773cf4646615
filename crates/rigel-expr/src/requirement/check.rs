//! Checks that need the spec: the key's class names against its classes, and the comparison's
//! unit against the metric.

use super::*;
use crate::suggest::did_you_mean;
use crate::{Comparison, ExprError, Quantity};

/// What the spec says about a class, for [`check_key`].
#[derive(Clone, Copy, Debug)]
pub struct ClassFacts<'a> {
    pub name: &'a str,
    /// Some point may read (or write): false only when no mix of the class (swept or not) does.
    pub reads: bool,
    pub writes: bool,
    /// It commits: `durability = "fdatasync:N"` or `"fsync:N"`.
    pub commits: bool,
}

/// Checks the class names of a key against the spec's classes, and the direction against what
/// the class does. Returns every mistake, each spanned in the key.
pub fn check_key(key: &RequirementKey, classes: &[ClassFacts<'_>]) -> Vec<ExprError> {
    let names: Vec<&str> = classes.iter().map(|c| c.name).collect();
    let unknown = |n: &Named| {
        let hint = did_you_mean(&n.name, names.iter().copied())
            .unwrap_or_else(|| format!("the classes are: {}", names.join(", ")));
        ExprError::new(
            n.span.clone(),
            format!("`{}` is not a class of this spec", n.name),
        )
        .with_hint(hint)
    };
    let mut errors = Vec::new();
    if let Metric::Class {
        class,
        direction,
        stat,
    } = &key.metric
    {
        if *direction == Direction::Commit && *stat == Stat::Mbps {
            errors.push(
                ExprError::new(class.span.clone(), "a commit moves no bytes of its own").with_hint(
                    format!(
                        "require {0}.commit.iops (commits per second) or {0}.write.mbps",
                        class.name
                    ),
                ),
            );
        }
        match classes.iter().find(|c| c.name == class.name) {
            None => errors.push(unknown(class)),
            Some(c) if *direction == Direction::Commit && !c.commits => errors.push(
                ExprError::new(
                    class.span.clone(),
                    format!("class `{}` never commits", c.name),
                )
                .with_hint(format!(
                    "give `{}` durability = \"fdatasync:N\" (or \"fsync:N\"), or require its \
                         write latency instead",
                    c.name
                )),
            ),
            Some(c) => {
                let (never, verb) = match direction {
                    Direction::Read => (!c.reads, "reads"),
                    Direction::Write => (!c.writes, "writes"),
                    Direction::Total | Direction::Commit => (false, ""),
                };
                if never {
                    errors.push(
                        ExprError::new(
                            class.span.clone(),
                            format!("class `{}` never {verb}", c.name),
                        )
                        .with_hint(format!(
                            "drop `.{}` to require the class's total, or change its mix",
                            direction.name()
                        )),
                    );
                }
            }
        }
    }
    for f in &key.selector.filters {
        if !names.contains(&f.class.name.as_str()) {
            errors.push(unknown(&f.class));
        }
    }
    errors
}

/// The unit each metric needs: a number for IOPS and errors, a rate for MB/s, a time for latencies.
/// The message and hint of a mismatch, to be shown over the comparison's value.
pub fn check_unit(metric: &Metric, c: &Comparison) -> Result<(), (String, String)> {
    let wanted = match metric {
        Metric::Errors => "a number of points",
        Metric::Class { stat, .. } => match stat {
            Stat::Iops => "a number of I/Os per second",
            Stat::Mbps => "a rate",
            Stat::Latency(_) | Stat::Service(_) => "a time",
        },
    };
    let ok = matches!(
        (metric, c.value),
        (Metric::Errors, Quantity::Number(_))
            | (
                Metric::Class {
                    stat: Stat::Iops,
                    ..
                },
                Quantity::Number(_)
            )
            | (
                Metric::Class {
                    stat: Stat::Mbps,
                    ..
                },
                Quantity::BytesPerSec(_)
            )
            | (
                Metric::Class {
                    stat: Stat::Latency(_) | Stat::Service(_),
                    ..
                },
                Quantity::Nanos(_)
            )
    );
    if ok {
        return Ok(());
    }
    let found = match c.value {
        Quantity::Number(_) => "a plain number",
        Quantity::Bytes(_) => "a size",
        Quantity::Nanos(_) => "a time",
        Quantity::BytesPerSec(_) => "a rate",
    };
    let hint = match (metric, c.value) {
        (
            Metric::Class {
                stat: Stat::Mbps, ..
            },
            Quantity::Number(n),
        ) => {
            format!("write {} {n}MiB/s (rigel's MB/s are MiB/s)", c.op)
        }
        (
            Metric::Class {
                stat: Stat::Mbps, ..
            },
            _,
        ) => "write a rate such as >= 200MiB/s".into(),
        (
            Metric::Class {
                stat: Stat::Latency(_) | Stat::Service(_),
                ..
            },
            Quantity::Number(n),
        ) => {
            format!("write a time with its unit, e.g. {} {n}us", c.op)
        }
        (
            Metric::Class {
                stat: Stat::Latency(_) | Stat::Service(_),
                ..
            },
            _,
        ) => "write a time such as <= 500us".into(),
        (Metric::Errors, _) => "write == 0".into(),
        _ => "IOPS are a plain number: >= 40000".into(),
    };
    Err((format!("expected {wanted} here, found {found}"), hint))
}
