//! Requirement keys of `[expect]`: a metric and an optional point selector, such as `small.iops`,
//! `small.read.latency.p99 @ small=1`, `large.mbps @ all` or `errors`. Parsed by the grammar, then
//! interpreted here without knowing the spec's classes; [`check_key`] checks the class names and
//! [`check_unit`] the comparison's unit once the spec is known.

use super::grammar::{Expected, Node, Rule, parse_entry};
use super::size::span_of;
use super::{Access, Comparison, ExprError, Mix, Quantity, parse_mix, parse_size};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Range;

const EXPECT_KEY: Expected = Expected {
    noun: "a requirement key",
    examples: "small.iops, small.latency.p99 @ small=1 or errors",
};

/// A parsed requirement key.
#[derive(Clone, Debug, PartialEq)]
pub struct RequirementKey {
    pub metric: Metric,
    pub selector: Selector,
}

/// A name written in a key, with its byte range in the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    pub name: String,
    pub span: Range<usize>,
}

/// What a requirement measures.
#[derive(Clone, Debug, PartialEq)]
pub enum Metric {
    /// The number of selected points that failed with an I/O error.
    Errors,
    /// A figure of one class: `small.iops`, `small.write.latency.p99`.
    Class {
        class: Named,
        direction: Direction,
        stat: Stat,
    },
}

/// Which I/Os of a class: all of them (the default), or only its reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Total,
    Read,
    Write,
}

/// One figure of a class and direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stat {
    Iops,
    /// MiB/s.
    Mbps,
    Latency(LatencyStat),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LatencyStat {
    #[serde(rename = "min")]
    Min,
    #[serde(rename = "mean")]
    Mean,
    #[serde(rename = "stdev")]
    Stdev,
    #[serde(rename = "p50")]
    P50,
    #[serde(rename = "p90")]
    P90,
    #[serde(rename = "p99")]
    P99,
    #[serde(rename = "p99.9")]
    P99_9,
    #[serde(rename = "p99.99")]
    P99_99,
    #[serde(rename = "max")]
    Max,
}

impl LatencyStat {
    pub const ALL: [LatencyStat; 9] = [
        LatencyStat::Min,
        LatencyStat::Mean,
        LatencyStat::Stdev,
        LatencyStat::P50,
        LatencyStat::P90,
        LatencyStat::P99,
        LatencyStat::P99_9,
        LatencyStat::P99_99,
        LatencyStat::Max,
    ];
    pub fn name(self) -> &'static str {
        match self {
            LatencyStat::Min => "min",
            LatencyStat::Mean => "mean",
            LatencyStat::Stdev => "stdev",
            LatencyStat::P50 => "p50",
            LatencyStat::P90 => "p90",
            LatencyStat::P99 => "p99",
            LatencyStat::P99_9 => "p99.9",
            LatencyStat::P99_99 => "p99.99",
            LatencyStat::Max => "max",
        }
    }
    pub fn from_name(s: &str) -> Option<LatencyStat> {
        LatencyStat::ALL.into_iter().find(|l| l.name() == s)
    }
}

impl Stat {
    /// Whether a larger value is better (throughput) or worse (latency).
    pub fn higher_is_better(self) -> bool {
        !matches!(self, Stat::Latency(_))
    }
    /// `iops`, `mbps`, `latency.p99`: as written in keys.
    pub fn name(self) -> String {
        match self {
            Stat::Iops => "iops".into(),
            Stat::Mbps => "mbps".into(),
            Stat::Latency(l) => format!("latency.{}", l.name()),
        }
    }
    /// `iops`, `mbps`, `latency.p99`, or a latency statistic alone (`p99`, `mean`).
    pub fn from_name(s: &str) -> Option<Stat> {
        match s {
            "iops" => Some(Stat::Iops),
            "mbps" => Some(Stat::Mbps),
            _ => LatencyStat::from_name(s.strip_prefix("latency.").unwrap_or(s)).map(Stat::Latency),
        }
    }
}

impl Direction {
    pub fn name(self) -> &'static str {
        match self {
            Direction::Total => "total",
            Direction::Read => "read",
            Direction::Write => "write",
        }
    }
}

/// Which points a requirement looks at, and how.
#[derive(Clone, Debug, PartialEq)]
pub struct Selector {
    pub pick: Pick,
    /// Only points matching every filter (none: every point where the class runs).
    pub filters: Vec<Filter>,
}

/// How the selected points are judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pick {
    /// The point with the best value (highest IOPS or MB/s, lowest latency) must pass.
    Best,
    /// Every selected point must pass.
    Every,
}

/// `small=1`, `small.size=8KiB`: a condition on a point's loads or class parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    pub class: Named,
    pub condition: Condition,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Condition {
    /// The class's matrix level (outstanding I/Os, or streams for sequential classes).
    Load(u32),
    Size(u64),
    Access(Access),
    Mix(Mix),
    PerStream(u32),
}

const PARAMS: &[&str] = &["size", "access", "mix", "per_stream", "load"];
const DIRECTIONS: &[&str] = &["total", "read", "write"];
const METRICS: &[&str] = &["iops", "mbps", "latency"];

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
        "latency" => None,
        other => {
            let mut options = METRICS.to_vec();
            options.extend(DIRECTIONS);
            let hint = closest(other, &options)
                .map(|c| format!("did you mean `{c}`?"))
                .unwrap_or_else(|| {
                    "metrics are iops, mbps and latency.STAT, after an optional read or write"
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
        Some(l) => Ok(Stat::Latency(l)),
        None => Err(
            ExprError::new(span, format!("unknown latency statistic `{text}`")).with_hint(
                closest(&text, &stats)
                    .map(|c| format!("did you mean `{c}`?"))
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
                    closest(other, PARAMS)
                        .map(|c| format!("did you mean `{c}`?"))
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

/// The closest candidate, when close enough to be a likely typo.
fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (strsim::jaro_winkler(word, c), *c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// What the spec says about a class, for [`check_key`].
#[derive(Clone, Copy, Debug)]
pub struct ClassFacts<'a> {
    pub name: &'a str,
    /// Some point may read (or write): false only when no mix of the class (swept or not) does.
    pub reads: bool,
    pub writes: bool,
}

/// Checks the class names of a key against the spec's classes, and the direction against what
/// the class does. Returns every mistake, each spanned in the key.
pub fn check_key(key: &RequirementKey, classes: &[ClassFacts<'_>]) -> Vec<ExprError> {
    let names: Vec<&str> = classes.iter().map(|c| c.name).collect();
    let unknown = |n: &Named| {
        let hint = closest(&n.name, &names)
            .map(|c| format!("did you mean `{c}`?"))
            .unwrap_or_else(|| format!("the classes are: {}", names.join(", ")));
        ExprError::new(
            n.span.clone(),
            format!("`{}` is not a class of this spec", n.name),
        )
        .with_hint(hint)
    };
    let mut errors = Vec::new();
    if let Metric::Class {
        class, direction, ..
    } = &key.metric
    {
        match classes.iter().find(|c| c.name == class.name) {
            None => errors.push(unknown(class)),
            Some(c) => {
                let (never, verb) = match direction {
                    Direction::Read => (!c.reads, "reads"),
                    Direction::Write => (!c.writes, "writes"),
                    Direction::Total => (false, ""),
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
            Stat::Latency(_) => "a time",
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
                    stat: Stat::Latency(_),
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
                stat: Stat::Latency(_),
                ..
            },
            Quantity::Number(n),
        ) => {
            format!("write a time with its unit, e.g. {} {n}us", c.op)
        }
        (
            Metric::Class {
                stat: Stat::Latency(_),
                ..
            },
            _,
        ) => "write a time such as <= 500us".into(),
        (Metric::Errors, _) => "write == 0".into(),
        _ => "IOPS are a plain number: >= 40000".into(),
    };
    Err((format!("expected {wanted} here, found {found}"), hint))
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Metric::Errors => f.write_str("errors"),
            Metric::Class {
                class,
                direction,
                stat,
            } => {
                f.write_str(&class.name)?;
                if *direction != Direction::Total {
                    write!(f, ".{}", direction.name())?;
                }
                write!(f, ".{}", stat.name())
            }
        }
    }
}

impl Condition {
    /// The parameter's name in a selector (`load` is written as the bare class name).
    pub fn describe(&self, class: &str) -> String {
        match self {
            Condition::Load(n) => format!("{class}={n}"),
            Condition::Size(b) => format!("{class}.size={}", super::Size(*b)),
            Condition::Access(a) => format!(
                "{class}.access={}",
                match a {
                    Access::Random => "random",
                    Access::Sequential => "sequential",
                }
            ),
            Condition::Mix(m) => format!("{class}.mix={m}"),
            Condition::PerStream(n) => format!("{class}.per_stream={n}"),
        }
    }
}

#[cfg(test)]
#[path = "requirement_tests.rs"]
mod tests;
