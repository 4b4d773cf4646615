//! Requirement keys from text: the grammar's `requirement_key` rule, then the words interpreted
//! as a metric and a selector, each mistake spanned in the key.

use super::*;
use crate::grammar::{Expected, Node, Rule, parse_entry};
use crate::size::span_of;
use crate::suggest::did_you_mean;
use crate::{Access, ExprError, parse_mix, parse_size};

const EXPECT_KEY: Expected = Expected {
    noun: "a requirement key",
    examples: "small.iops, small.latency.p99 @ small=1 or errors",
};

const PARAMS: &[&str] = &["size", "access", "mix", "per_stream", "load"];
const DIRECTIONS: &[&str] = &["total", "read", "write", "commit"];
const METRICS: &[&str] = &["iops", "mbps", "latency", "service"];

/// Parses a requirement key such as `small.latency.p99 @ small=1`.
pub fn parse_requirement_key(s: &str) -> Result<RequirementKey, ExprError> {
    let mut inner = parse_entry(Rule::requirement_key, s, EXPECT_KEY)?;
    let Some(path) = inner.next() else {
        return Err(ExprError::new(0..s.len(), "expected a requirement key"));
    };
    let metric = metric_from(words(path))?;
    let selector = match inner.next().filter(|n| n.as_rule() == Rule::selector) {
        Some(node) => selector_from(node, &metric)?,
        None => Selector {
            pick: if metric == Metric::Errors {
                Pick::Every
            } else {
                Pick::Best
            },
            filters: Vec::new(),
        },
    };
    Ok(RequirementKey { metric, selector })
}

fn words(path: Node<'_>) -> Vec<Named> {
    path.into_inner()
        .map(|w| Named {
            name: w.as_str().to_owned(),
            span: span_of(&w),
        })
        .collect()
}

fn metric_from(words: Vec<Named>) -> Result<Metric, ExprError> {
    let mut rest = words.into_iter();
    let Some(class) = rest.next() else {
        return Err(ExprError::new(0..0, "expected a requirement key"));
    };
    let rest: Vec<Named> = rest.collect();
    if rest.is_empty() {
        if class.name == "errors" {
            return Ok(Metric::Errors);
        }
        let hint = if METRICS.contains(&class.name.as_str()) {
            format!("name the class first: small.{}", class.name)
        } else {
            "write CLASS.METRIC (small.iops, large.mbps, small.latency.p99) or errors".to_owned()
        };
        return Err(
            ExprError::new(class.span, format!("`{}` is not a requirement", class.name))
                .with_hint(hint),
        );
    }
    let (direction, rest) = match rest[0].name.as_str() {
        "read" => (Direction::Read, &rest[1..]),
        "write" => (Direction::Write, &rest[1..]),
        "total" => (Direction::Total, &rest[1..]),
        "commit" => (Direction::Commit, &rest[1..]),
        _ => (Direction::Total, &rest[..]),
    };
    let Some(first) = rest.first() else {
        let end = class.span.end.max(rest_end(&class, rest));
        return Err(
            ExprError::new(end..end, "a requirement needs a metric after the direction")
                .with_hint("add iops, mbps or latency.p99"),
        );
    };
    let stat = stat_from(first, &rest[1..])?;
    Ok(Metric::Class {
        class,
        direction,
        stat,
    })
}

fn rest_end(class: &Named, rest: &[Named]) -> usize {
    rest.last().map_or(class.span.end, |w| w.span.end)
}

fn stat_from(metric: &Named, rest: &[Named]) -> Result<Stat, ExprError> {
    let simple = match metric.name.as_str() {
        "iops" => Some(Stat::Iops),
        "mbps" => Some(Stat::Mbps),
        "latency" | "service" => None,
        other => {
            let mut options = METRICS.to_vec();
            options.extend(DIRECTIONS);
            let hint = did_you_mean(other, options.iter().copied()).unwrap_or_else(|| {
                    "metrics are iops, mbps, latency.STAT and service.STAT, after an optional read or write"
                        .into()
                });
            return Err(
                ExprError::new(metric.span.clone(), format!("unknown metric `{other}`"))
                    .with_hint(hint),
            );
        }
    };
    if let Some(stat) = simple {
        return match rest.first() {
            None => Ok(stat),
            Some(w) => Err(ExprError::new(
                w.span.start..rest_end(w, rest),
                format!("unexpected `.{}` after `{}`", w.name, metric.name),
            )
            .with_hint(format!("`{}` has no parts", metric.name))),
        };
    }
    let stats: Vec<&str> = LatencyStat::ALL.iter().map(|l| l.name()).collect();
    let Some(first) = rest.first() else {
        return Err(ExprError::new(
            metric.span.clone(),
            "a latency requirement needs a statistic",
        )
        .with_hint(format!(
            "write latency.p99 or latency.mean (one of {})",
            stats.join(", ")
        )));
    };
    let span = first.span.start..rest_end(first, rest);
    let text: Vec<&str> = rest.iter().map(|w| w.name.as_str()).collect();
    let text = text.join(".");
    match LatencyStat::from_name(&text) {
        Some(l) if metric.name == "service" => Ok(Stat::Service(l)),
        Some(l) => Ok(Stat::Latency(l)),
        None => Err(
            ExprError::new(span, format!("unknown latency statistic `{text}`")).with_hint(
                did_you_mean(&text, stats.iter().copied())
                    .unwrap_or_else(|| format!("latency statistics: {}", stats.join(", "))),
            ),
        ),
    }
}

fn selector_from(node: Node<'_>, metric: &Metric) -> Result<Selector, ExprError> {
    let mut pick: Option<(Pick, Range<usize>)> = None;
    let mut filters = Vec::new();
    for item in node.into_inner() {
        let span = span_of(&item);
        let chosen = match item.as_rule() {
            Rule::select_all => Pick::Every,
            Rule::select_best => Pick::Best,
            Rule::select_pair => {
                filters.push(filter_from(item)?);
                continue;
            }
            _ => continue,
        };
        if pick.is_some() {
            return Err(
                ExprError::new(span, "a selector takes one of `all` and `best`")
                    .with_hint("`all`: every point must pass; `best`: the best point must pass"),
            );
        }
        if *metric == Metric::Errors && chosen == Pick::Best {
            return Err(ExprError::new(span, "`best` does not apply to errors")
                .with_hint("errors counts the failed points among those selected"));
        }
        pick = Some((chosen, span));
    }
    let default = if filters.is_empty() && *metric != Metric::Errors {
        Pick::Best
    } else {
        Pick::Every
    };
    Ok(Selector {
        pick: pick.map_or(default, |(p, _)| p),
        filters,
    })
}

fn filter_from(node: Node<'_>) -> Result<Filter, ExprError> {
    let mut parts = node.into_inner();
    let (Some(path), Some(value)) = (parts.next(), parts.next()) else {
        return Err(ExprError::new(0..0, "expected NAME=VALUE"));
    };
    let value_span = span_of(&value);
    let value = value.as_str();
    let mut names = words(path).into_iter();
    let Some(class) = names.next() else {
        return Err(ExprError::new(value_span, "expected NAME=VALUE"));
    };
    let param = names.next();
    if let Some(extra) = names.next() {
        return Err(
            ExprError::new(extra.span, format!("unexpected `.{}`", extra.name)).with_hint(
                "a selector names a class (small=1) or a class parameter (small.size=8KiB)",
            ),
        );
    }
    let shift = |e: ExprError| {
        let span = value_span.start + e.span.start..value_span.start + e.span.end;
        ExprError {
            span,
            message: e.message,
            hint: e.hint,
        }
    };
    let condition = match param.as_ref().map(|p| p.name.as_str()) {
        None | Some("load") => Condition::Load(whole(value, value_span.clone(), "a load")?),
        Some("per_stream") => Condition::PerStream(whole(value, value_span.clone(), "per_stream")?),
        Some("size") => Condition::Size(parse_size(value).map_err(shift)?.0),
        Some("mix") => Condition::Mix(parse_mix(value).map_err(shift)?),
        Some("access") => match value {
            "random" | "rand" => Condition::Access(Access::Random),
            "sequential" | "seq" => Condition::Access(Access::Sequential),
            other => {
                return Err(
                    ExprError::new(value_span, format!("unknown access `{other}`"))
                        .with_hint("access is random or sequential"),
                );
            }
        },
        Some(other) => {
            let span = param
                .as_ref()
                .map_or(value_span.clone(), |p| p.span.clone());
            return Err(
                ExprError::new(span, format!("`{other}` is not a point parameter")).with_hint(
                    did_you_mean(other, PARAMS.iter().copied())
                        .unwrap_or_else(|| format!("a point is selected by {}", PARAMS.join(", "))),
                ),
            );
        }
    };
    Ok(Filter { class, condition })
}

fn whole(value: &str, span: Range<usize>, what: &str) -> Result<u32, ExprError> {
    value.replace('_', "").parse::<u32>().map_err(|_| {
        ExprError::new(
            span,
            format!("{what} must be a whole number, found `{value}`"),
        )
        .with_hint("write the load as in [matrix], e.g. small=4")
    })
}
